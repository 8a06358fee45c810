/**
 * `kopf run`'s flags and sources, checked before any operator starts: every bad input
 * is one clear line; good input becomes the operator's options.
 */
import { assert, assertEquals, assertRejects, assertThrows } from "../assert.ts";
import {
  CommandLineError,
  DEV_PRIORITY,
  loadSources,
  parseFieldSelectorFlag,
  parseLabelSelectorFlag,
  parsePriority,
  parseShards,
  planRun,
  whyNotLoaded,
} from "../../src/commands/run_options.ts";
import {
  findCredentialSources,
  missingCredentials,
} from "../../src/commands/credential_sources.ts";
import { getDefaultRegistry, matcherOf, OperatorRegistry } from "../../src/intents/registry.ts";
import { on } from "../../src/intents/registration.ts";

Deno.test("patterns, priority and logging flags become the plan", () => {
  const plan = planRun(["op.ts"], {
    namespace: ["ns-*", "!ns-skip"],
    priority: 5,
    peering: "team",
    liveness: "http://0.0.0.0:8080/healthz",
    verbose: true,
    logFormat: "json",
    logPrefix: false,
    logRefkey: "k8s",
  });
  assertEquals(plan.clusterwide, false);
  assertEquals(plan.namespaces, ["ns-*", "!ns-skip"]);
  assertEquals(plan.priority, 5);
  assertEquals(plan.peeringName, "team");
  assertEquals(plan.standalone, false);
  assertEquals(plan.livenessEndpoint, "http://0.0.0.0:8080/healthz");
  assertEquals(plan.logging, {
    verbose: true,
    debug: undefined,
    quiet: undefined,
    logFormat: "json",
    logPrefix: false,
    logRefkey: "k8s",
  });
  assertEquals(plan.warnings, []);
  assertEquals(plan.sources.length, 1);
  assert(plan.sources[0].specifier.startsWith("file:///"));
  assert(plan.sources[0].specifier.endsWith("/op.ts"));
});

Deno.test("-A is cluster-wide; no scope at all is cluster-wide with a warning", () => {
  const all = planRun([], { allNamespaces: true, standalone: true });
  assertEquals([all.clusterwide, all.namespaces, all.standalone, all.warnings], [
    true,
    [],
    true,
    [],
  ]);
  const implied = planRun([], {});
  assertEquals(implied.clusterwide, true);
  assertEquals(implied.warnings.length, 1);
  assert(implied.warnings[0].includes("-A/--all-namespaces"));
});

Deno.test("--dev means priority 666 unless --priority says otherwise", () => {
  assertEquals(planRun([], { dev: true, allNamespaces: true }).priority, DEV_PRIORITY);
  assertEquals(planRun([], { dev: true, priority: 3, allNamespaces: true }).priority, 3);
  assertEquals(planRun([], { allNamespaces: true }).priority, undefined);
});

Deno.test("modules: relative specifiers become file URLs, others stay as given", () => {
  const plan = planRun(["a.ts"], { module: ["./b.ts", "npm:some-operator"], allNamespaces: true });
  assertEquals(plan.sources.map((s) => s.file), [true, false, false]);
  assert(plan.sources[1].specifier.startsWith("file:///"));
  assertEquals(plan.sources[2].specifier, "npm:some-operator");
});

Deno.test("contradicting or empty flags are refused with one line", () => {
  const cases: [Parameters<typeof planRun>[1], string][] = [
    [{ allNamespaces: true, namespace: ["x"] }, "either -n/--namespace or -A/--all-namespaces"],
    [{ namespace: [" "] }, "non-empty pattern"],
    [{ standalone: true, peering: "p", allNamespaces: true }, "--standalone or --peering"],
    [{ peering: "", allNamespaces: true }, "--peering needs"],
    [{ verbose: true, quiet: true, allNamespaces: true }, "only one of --verbose"],
    [{ logRefkey: " ", allNamespaces: true }, "--log-refkey needs"],
    [{ liveness: "not a url", allNamespaces: true }, "--liveness: The liveness endpoint"],
    [{ liveness: "https://0.0.0.0:80/", allNamespaces: true }, "must use http://"],
    [{ module: [""], allNamespaces: true }, "-m/--module needs"],
  ];
  for (const [flags, text] of cases) {
    const error = assertThrows(() => planRun([], flags), CommandLineError, text);
    assert(!error.message.includes("\n"), `one line: ${error.message}`);
  }
});

Deno.test("--priority takes integers only", () => {
  assertEquals(parsePriority("-10"), -10);
  for (const bad of ["", "1.5", "high"]) {
    assertThrows(() => parsePriority(bad), Error, "the priority must be an integer");
  }
});

Deno.test("operator files register on the given registry, which is default meanwhile", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/op.ts`;
    const kopf = new URL("../../src/intents/registration.ts", import.meta.url).href;
    await Deno.writeTextFile(
      file,
      `import { on } from ${JSON.stringify(kopf)};\n` +
        `on.create("kopfexamples", function created() {});\n`,
    );
    const before = getDefaultRegistry();
    const first = new OperatorRegistry();
    const second = new OperatorRegistry();
    const plan = planRun([file], { allNamespaces: true });
    // Two loads at once (two runners starting together) still keep their registries apart.
    await Promise.all([
      loadSources(plan.sources, { registry: first, fresh: true }),
      loadSources(plan.sources, { registry: second, fresh: true }),
    ]);
    assertEquals(matcherOf(first).handlers.map((h) => h.id), ["created"]);
    assertEquals(matcherOf(second).handlers.map((h) => h.id), ["created"]);
    assert(getDefaultRegistry() === before, "the default registry is restored");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a missing file or a failing module is named in one line", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await assertRejects(
      () => loadSources(planRun([`${dir}/absent.ts`], {}).sources),
      CommandLineError,
      "absent.ts: no such file",
    );
    await Deno.writeTextFile(`${dir}/broken.ts`, `throw new Error("bad handler file");\n`);
    await assertRejects(
      () => loadSources(planRun([`${dir}/broken.ts`], {}).sources),
      CommandLineError,
      "broken.ts: bad handler file",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("no credentials anywhere: one line naming what was tried and what to do", async () => {
  const env = (name: string) => ({ HOME: "/home/nobody" } as Record<string, string>)[name];
  const sources = await findCredentialSources({ env, exists: () => Promise.resolve(false) });
  assertEquals(sources.map((s) => s.found), [false, false]);
  const line = await missingCredentials(new OperatorRegistry(), {
    env,
    exists: () => Promise.resolve(false),
  });
  assert(line !== undefined && !line.includes("\n"));
  for (const text of ["/home/nobody/.kube/config (missing)", "in-cluster", "KUBECONFIG", "demo"]) {
    assert(line.includes(text), `${JSON.stringify(text)} in ${line}`);
  }
});

Deno.test("credentials: a KUBECONFIG file, the pod's account or a login handler suffice", async () => {
  const kube = (name: string) => name === "KUBECONFIG" ? "/a:/b" : undefined;
  const onlyB = (path: string) => Promise.resolve(path === "/b");
  assertEquals(
    await missingCredentials(new OperatorRegistry(), { env: kube, exists: onlyB }),
    undefined,
  );
  const pod = (name: string) => name === "KUBERNETES_SERVICE_HOST" ? "10.0.0.1" : undefined;
  const token = (path: string) => Promise.resolve(path.endsWith("/serviceaccount/token"));
  assertEquals(
    await missingCredentials(new OperatorRegistry(), { env: pod, exists: token }),
    undefined,
  );
  const registry = new OperatorRegistry();
  on.login({ registry, id: "test-login" }, () => ({ server: "http://127.0.0.1:1" }));
  const none = () => Promise.resolve(false);
  assertEquals(
    await missingCredentials(registry, { env: () => undefined, exists: none }),
    undefined,
  );
});

Deno.test("credentials: in a pod, the home kubeconfig is not even looked at", async () => {
  const looked: string[] = [];
  const env = (name: string) =>
    ({ KUBERNETES_SERVICE_HOST: "10.0.0.1", HOME: "/home/op" } as Record<string, string>)[name];
  const exists = (path: string) => {
    looked.push(path);
    return Promise.resolve(path.endsWith("/serviceaccount/token"));
  };
  const sources = await findCredentialSources({ env, exists });
  assertEquals(sources.map((s) => [s.where, s.found]), [["in-cluster service account", true]]);
  assertEquals(looked.some((path) => path.includes(".kube")), false);
});

Deno.test("--leader-election and --shards become settings.leadership; no peering with them", () => {
  const elected = planRun([], {
    namespace: ["default"],
    leaderElection: true,
    leaderElectionId: "my-op",
    leaderElectionNamespace: "operators",
  });
  assertEquals(elected.leadership, {
    leaderElection: true,
    shards: 1,
    name: "my-op",
    namespace: "operators",
  });
  assert(elected.standalone, "coordinated replicas do not peer");
  const sharded = planRun([], { namespace: ["default"], shards: 4 });
  assertEquals(sharded.leadership, { leaderElection: false, shards: 4 });
  assertEquals(planRun([], { namespace: ["default"] }).leadership, undefined);
  assertEquals(planRun([], { namespace: ["default"], shards: 1 }).leadership, undefined);

  for (
    const [flags, text] of [
      [{ leaderElection: true, shards: 2 }, "either --leader-election or --shards"],
      [{ leaderElection: true, peering: "p" }, "either --peering or --leader-election"],
      [{ shards: 3, peering: "p" }, "either --peering or --shards"],
      [{ leaderElectionId: "x" }, "need --leader-election or --shards"],
      [{ leaderElection: true, leaderElectionId: "Not_A_Name" }, "lowercase DNS name"],
    ] as const
  ) {
    assertThrows(() => planRun([], { namespace: ["default"], ...flags }), CommandLineError, text);
  }
  for (const bad of ["0", "-1", "1.5", "x", ""]) {
    assertThrows(() => parseShards(bad), Error, "an integer of 1 or more");
  }
  assertEquals(parseShards("3"), 3);
});

Deno.test("-l/--selector and --field-selector: checked, then the selectors of every resource", () => {
  const plan = planRun([], {
    namespace: ["default"],
    selector: parseLabelSelectorFlag("app=web,tier in (a,b)"),
    fieldSelector: parseFieldSelectorFlag("metadata.name!=skip"),
  });
  assertEquals(plan.selectors, {
    labelSelector: "app=web,tier in (a,b)",
    fieldSelector: "metadata.name!=skip",
  });
  assertEquals(planRun([], { namespace: ["default"] }).selectors, undefined);
  assertThrows(
    () => parseLabelSelectorFlag("app=web server"),
    Error,
    'the label selector "app=web server" has a term that does not parse: "app=web server"',
  );
  assertThrows(() => parseLabelSelectorFlag(""), Error, "it is empty");
  assertThrows(() => parseFieldSelectorFlag("status.phase"), Error, "expected path=value");
});

Deno.test("a module that fails to load is said in one line, with where when known", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/broken.ts`, "export const x = ;\n");
    const error = await assertRejects(
      () => loadSources([{ name: "broken.ts", specifier: `file://${dir}/broken.ts`, file: false }]),
      CommandLineError,
      "Cannot load broken.ts: SyntaxError",
    );
    assert(error.message.endsWith(`(at file://${dir}/broken.ts:1:18)`), error.message);
    assert(!error.message.includes("\n"), error.message);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  assertEquals(
    whyNotLoaded(new Error("Not found: x.ts\n  at file:///a.ts:1:1")),
    "Not found: x.ts (at file:///a.ts:1:1)",
  );
  assertEquals(whyNotLoaded(new Error("one line")), "one line");
  assertEquals(whyNotLoaded("text"), "text");
});
