/**
 * `kopf run` as a user runs it: a separate process, its flags, its one-line errors, its
 * log formats, and a graceful stop on SIGTERM.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { spawnKopf, terminate } from "./kopf_process.ts";
import { quote } from "../doc_quotes.ts";

const CRD = new URL("../../examples/crd.yaml", import.meta.url);
const EXAMPLE = new URL("../../examples/01-minimal/example.ts", import.meta.url).pathname;

Deno.test("kopf --help and kopf run --help list the command and every flag", async () => {
  const top = await spawnKopf(["--help"]).finished;
  assertEquals(top.code, 0);
  assertStringIncludes(top.stdout, "run [options] [files...]");
  const help = await spawnKopf(["run", "--help"]).finished;
  assertEquals(help.code, 0);
  for (
    const flag of [
      "-m, --module",
      "-n, --namespace",
      "-A, --all-namespaces",
      "--standalone",
      "--priority",
      "--peering",
      "--dev",
      "--liveness",
      "--verbose",
      "--debug",
      "--quiet",
      "--log-format",
      "--log-prefix",
      "--no-log-prefix",
      "--log-refkey",
    ]
  ) assertStringIncludes(help.stdout, flag);
});

Deno.test("without any credentials, kopf run says in one line what it tried", async () => {
  const result = await spawnKopf(["run", "-A", EXAMPLE]).finished;
  assertEquals(result.code, 2);
  const errors = result.stderr.split("\n").filter((l) => l.trim() !== "");
  // The line, then the hint that follows every usage error.
  assertEquals(errors.length, 2, result.stderr);
  assertEquals(errors[1], await quote("configuration.md", "See 'kopf run")); // as the doc quotes it
  for (const text of ["kopf run: No Kubernetes credentials", "KUBECONFIG", "in-cluster", "demo"]) {
    assertStringIncludes(errors[0], text);
  }
});

Deno.test("kopf run logs in with the kubeconfig when no login handler is registered", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create((await import("yaml")).parse(await Deno.readTextFile(CRD)));
  const kubeconfig = await cluster.writeKubeconfig();
  const example = EXAMPLE;
  for (const how of ["env", "flag"]) {
    const kopf = how === "env"
      ? spawnKopf(["run", "--standalone", "-A", example], { KUBECONFIG: kubeconfig })
      : spawnKopf(["run", "--standalone", "-A", "--kubeconfig", kubeconfig, example]);
    const name = `by-${how}`;
    cluster.create({ apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: { name } });
    await kopf.waitForLine(`[default/${name}] Handler 'createFn' succeeded.`);
    assertEquals((await terminate(kopf)).code, 0);
  }
});

Deno.test("kopf run -l watches only the objects with the labels", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create((await import("yaml")).parse(await Deno.readTextFile(CRD)));
  const kubeconfig = await cluster.writeKubeconfig();
  const kopf = spawnKopf(
    ["run", "--standalone", "-A", "-l", "team in (a,b)", "--kubeconfig", kubeconfig, EXAMPLE],
  );
  const labelled = (name: string, team: string) => ({
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name, labels: { team } },
  });
  cluster.create(labelled("other", "c"));
  cluster.create(labelled("mine", "a"));
  await kopf.waitForLine("[default/mine] Handler 'createFn' succeeded.");
  const result = await terminate(kopf);
  assertEquals(result.code, 0);
  assert(!result.stderr.includes("[default/other]"), "the object outside is never seen");
  const watches = cluster.requests.filter((r) =>
    r.path.endsWith("/kopfexamples") && (r.verb === "watch" || r.verb === "list")
  );
  assert(watches.length > 0);
  for (const request of watches) {
    assertEquals(new URLSearchParams(request.query).get("labelSelector"), "team in (a,b)");
  }
});

Deno.test("bad flags and files are refused with one line each, and the usage hint", async () => {
  const cases: [string[], string][] = [
    [["run", "--log-format", "xml", "x.ts"], "Allowed choices are plain, full, json"],
    [["run", "-A", "-n", "default", "x.ts"], "either -n/--namespace or -A/--all-namespaces"],
    [["run", "--priority", "high", "x.ts"], "the priority must be an integer"],
    [["run", "-A", "-l", "app=a b", "x.ts"], '"app=a b" has a term that does not parse'],
    [["run", "-A", "absent-operator.ts"], "Cannot load absent-operator.ts: no such file."],
    [
      ["run", "-A", "--kubeconfig", "/absent/config", EXAMPLE],
      "--kubeconfig /absent/config (missing)",
    ],
  ];
  for (const [args, text] of cases) {
    const result = await spawnKopf(args).finished;
    assertEquals(result.code, 2, args.join(" "));
    const lines = result.stderr.split("\n").filter((l) => l.trim() !== "");
    assertEquals(lines.length, 2, result.stderr);
    assertStringIncludes(lines[0], text);
    assertEquals(lines[1], "See 'kopf run --help'.");
  }
});

Deno.test("kopf run serves a cluster, logs JSON lines, and stops on SIGTERM", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create((await import("yaml")).parse(await Deno.readTextFile(CRD)));
  const dir = await Deno.makeTempDir();
  try {
    const mod = new URL("../../mod.ts", import.meta.url).href;
    const file = `${dir}/operator.ts`;
    await Deno.writeTextFile(
      file,
      [
        `import { kopf } from ${JSON.stringify(mod)};`,
        `kopf.on.login({ id: "fake" }, () => ({ server: Deno.env.get("FAKE_URL")! }));`,
        `kopf.on.create("kopfexamples", function createFn({ logger }) {`,
        `  logger.info("Seen.", { extra: 42 });`,
        `  return { done: true };`,
        `});`,
        "",
      ].join("\n"),
    );
    const kopf = spawnKopf(
      ["run", "--standalone", "-A", "--log-format", "json", "--log-refkey", "k8s", file],
      { FAKE_URL: cluster.url },
    );
    // Created before or after the initial listing: handled either way.
    cluster.create({
      apiVersion: "kopf.dev/v1",
      kind: "KopfExample",
      metadata: { name: "one" },
      spec: {},
    });
    await cluster.waitFor(
      "kopfexamples.kopf.dev",
      "one",
      (o) => (o?.status as { createFn?: unknown } | undefined)?.createFn !== undefined,
    );
    const seen = JSON.parse(await kopf.waitForLine('"Seen."'));
    assertEquals(seen.extra, 42);
    assertEquals(seen.k8s.name, "one");
    assertEquals(seen.k8s.namespace, "default");
    const result = await terminate(kopf);
    assertEquals(result.code, 0, result.stderr);
    for (const line of result.stderr.split("\n").filter((l) => l.trim())) {
      JSON.parse(line); // every line is JSON
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("in JSON mode the command's own messages are JSON lines too, usage errors included", async () => {
  for (
    const args of [["--log-format", "json", "-A", "/nonexistent/op.ts"], [
      "--log-format=json",
      "--bogus",
    ]]
  ) {
    const { code, stderr } = await spawnKopf(["run", ...args]).finished;
    assertEquals(code, 2);
    const lines = stderr.trim().split("\n");
    assertEquals(lines.length, 2, stderr);
    for (const line of lines) {
      const record = JSON.parse(line);
      assertEquals(record.severity, "error");
      assert(typeof record.message === "string" && typeof record.timestamp === "string");
    }
    assertEquals(JSON.parse(lines[1]).message, "See 'kopf run --help'.");
  }
});

/** An operator file whose create handler takes `seconds` and says when it starts and ends. */
async function slowOperator(dir: string, seconds: number): Promise<string> {
  const mod = new URL("../../mod.ts", import.meta.url).href;
  const file = `${dir}/operator.ts`;
  await Deno.writeTextFile(
    file,
    [
      `import { kopf } from ${JSON.stringify(mod)};`,
      `kopf.on.login({ id: "fake" }, () => ({ server: Deno.env.get("FAKE_URL")! }));`,
      `kopf.on.create("kopfexamples", async function slow({ logger }) {`,
      `  logger.info("Slow handler started.");`,
      `  await new Promise((resolve) => setTimeout(resolve, ${seconds * 1000}));`,
      `  logger.info("Slow handler finishing.");`,
      `  return { done: true };`,
      `});`,
      "",
    ].join("\n"),
  );
  return file;
}

Deno.test("SIGTERM during a slow handler lets it finish, stores its outcome, and exits 0", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create((await import("yaml")).parse(await Deno.readTextFile(CRD)));
  const dir = await Deno.makeTempDir();
  try {
    const file = await slowOperator(dir, 3);
    const kopf = spawnKopf(["run", "--standalone", "-A", "--grace-period", "10", file], {
      FAKE_URL: cluster.url,
    });
    await kopf.waitForLine("Serving the whole cluster");
    cluster.create({ apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: { name: "s" } });
    await kopf.waitForLine("Slow handler started.");
    const result = await terminate(kopf);
    assertEquals(result.code, 0, result.stderr);
    assertStringIncludes(result.stderr, "Slow handler finishing.");
    const stored = cluster.get("kopfexamples.kopf.dev", "s");
    assertEquals((stored?.status as Record<string, unknown>).slow, { done: true });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SIGTERM during a handler longer than the exit timeout still stores its outcome, exit 0", async () => {
  // The default settings: an exit timeout of 2 s, and a handler of 5 s that must not be lost.
  await using cluster = await FakeCluster.start();
  cluster.create((await import("yaml")).parse(await Deno.readTextFile(CRD)));
  const dir = await Deno.makeTempDir();
  try {
    const file = await slowOperator(dir, 5);
    const kopf = spawnKopf(["run", "--standalone", "-A", file], { FAKE_URL: cluster.url });
    await kopf.waitForLine("Serving the whole cluster");
    cluster.create({ apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: { name: "s" } });
    await kopf.waitForLine("Slow handler started.");
    const result = await terminate(kopf);
    assertEquals(result.code, 0, result.stderr);
    const stored = cluster.get("kopfexamples.kopf.dev", "s");
    assertEquals((stored?.status as Record<string, unknown>).slow, { done: true });
    assertStringIncludes(result.stderr, "handlers that run go on, and their outcomes are stored");
    const annotations = stored?.metadata?.annotations ?? {};
    assert(
      annotations["kopf.zalando.org/last-handled-configuration"] !== undefined,
      "the diff-base is stored: the creation is not handled again after a restart",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a second signal during the graceful stop exits at once", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create((await import("yaml")).parse(await Deno.readTextFile(CRD)));
  const dir = await Deno.makeTempDir();
  try {
    const file = await slowOperator(dir, 30);
    const kopf = spawnKopf(["run", "--standalone", "-A", "--grace-period", "60", file], {
      FAKE_URL: cluster.url,
    });
    await kopf.waitForLine("Serving the whole cluster");
    cluster.create({ apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: { name: "s" } });
    await kopf.waitForLine("Slow handler started.");
    kopf.process.kill("SIGTERM");
    await kopf.waitForLine("the operator is stopping");
    const started = performance.now();
    kopf.process.kill("SIGINT");
    const result = await kopf.finished;
    assert(performance.now() - started < 5000, "it did not wait for the handler");
    assertEquals(result.code, 1);
    assertStringIncludes(result.stderr, "exiting at once");
    // What is lost is named: the object whose handling ran.
    assertStringIncludes(result.stderr, "The outcome of the handling of kopfexamples default/s");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
