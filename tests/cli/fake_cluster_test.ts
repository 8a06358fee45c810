/**
 * `kopf fake-cluster`: serves until SIGTERM, writes a kubeconfig, keeps the state file;
 * HTTPS with a generated CA and a token by default, plain HTTP with `--http`.
 */
import { parseEventTtl, serveFakeCluster } from "../../src/cli/fake_cluster.ts";
import {
  assert,
  assertEquals,
  assertMatch,
  assertStringIncludes,
  assertThrows,
} from "../assert.ts";
import { holdCreates, postJson, startCli } from "./helpers.ts";
import { available, run } from "../platform/commands.ts";
import { ApiClient } from "../../src/client/api.ts";
import { Vault } from "../../src/client/vault.ts";
import { loginWithKubeconfig } from "../../src/client/kubeconfig.ts";
import { getObject } from "../../src/client/objects.ts";
import { Resource } from "../../src/structs/resources.ts";

const hasKubectl = await available("kubectl", ["version", "--client"]);

Deno.test({
  name: "kopf fake-cluster --http serves until SIGTERM and keeps its objects in the state file",
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      const args = ["--http", `--kubeconfig=${dir}/kubeconfig`, `--state=${dir}/state.json`];
      const first = await startCli(args);
      assertStringIncludes(first.out, `--kubeconfig=${dir}/kubeconfig`);
      assert(first.url?.startsWith("http://"), `an http URL in the ready line: ${first.out}`);
      const kubeconfig = await Deno.readTextFile(`${dir}/kubeconfig`);
      assertStringIncludes(kubeconfig, `server: ${first.url}`);
      assertStringIncludes(kubeconfig, "insecure-skip-tls-verify: true");
      const created = await fetch(`${first.url}/api/v1/namespaces/default/configmaps`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ metadata: { name: "kept" }, data: { a: "1" } }),
      });
      assertEquals(created.status, 201);
      await created.body?.cancel();
      assertEquals(await first.stop(), 0);
      assertStringIncludes(await Deno.readTextFile(`${dir}/state.json`), '"kept"');

      const second = await startCli(args);
      const got = await fetch(`${second.url}/api/v1/namespaces/default/configmaps/kept`);
      assertEquals((await got.json()).data, { a: "1" });
      second.child.kill("SIGINT");
      assertEquals((await second.child.status).code, 0);
      await second.reader.cancel();
      await second.child.stderr.cancel();
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("kopf fake-cluster --state keeps its identity: the kubeconfig of the last run still works", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const args = [`--kubeconfig=${dir}/kubeconfig`, `--state=${dir}/state.json`];
    const first = await startCli(args);
    const old = await Deno.readTextFile(`${dir}/kubeconfig`);
    await Deno.writeTextFile(`${dir}/old`, old);
    if (hasKubectl) {
      const kubectl = [`--kubeconfig=${dir}/old`, `--cache-dir=${dir}/cache`];
      const made = await run("kubectl", [...kubectl, "create", "configmap", "kept"]);
      assertEquals(made.code, 0, made.stderr);
    }
    assertEquals(await first.stop(), 0);
    assertEquals((await Deno.stat(`${dir}/state.json`)).mode! & 0o777, 0o600);

    const second = await startCli(args);
    try {
      assertEquals(second.url, first.url, "the same port, being free");
      assertEquals(await Deno.readTextFile(`${dir}/kubeconfig`), old, "the same CA and token");
      // The project's client and kubectl, with the kubeconfig of the first run.
      const vault = new Vault({
        relogin: async () => ({
          kubeconfig: await loginWithKubeconfig({ kubeconfig: `${dir}/old` }),
        }),
      });
      await using api = new ApiClient(vault);
      const namespaces = new Resource({
        group: "",
        version: "v1",
        plural: "namespaces",
        namespaced: false,
      });
      const ns = await getObject(api, namespaces, { name: "default" });
      assertEquals(ns.metadata?.name, "default");
      if (hasKubectl) {
        const kubectl = [`--kubeconfig=${dir}/old`, `--cache-dir=${dir}/cache`];
        const got = await run("kubectl", [...kubectl, "get", "configmap", "kept", "-o", "name"]);
        assertEquals([got.code, got.stdout.trim()], [0, "configmap/kept"], got.stderr);
      }
    } finally {
      assertEquals(await second.stop(), 0);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kopf fake-cluster serves HTTPS by default: the kubeconfig carries the CA and a token", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const cli = await startCli([`--kubeconfig=${dir}/kubeconfig`]);
    try {
      assert(cli.url?.startsWith("https://"), `an https URL in the ready line: ${cli.out}`);
      const kubeconfig = await Deno.readTextFile(`${dir}/kubeconfig`);
      assertMatch(kubeconfig, /certificate-authority-data: \S+/);
      assertMatch(kubeconfig, /token: [0-9a-f]{32}/);
      assert(!kubeconfig.includes("insecure-skip-tls-verify"), "TLS is verified");
    } finally {
      assertEquals(await cli.stop(), 0);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kopf fake-cluster refuses --http with --tls or with --client-certificates", async () => {
  for (const args of [["--http", "--tls"], ["--http", "--client-certificates"]]) {
    const cli = await startCli(args);
    const { code } = await cli.child.status;
    const err = await new Response(cli.child.stderr).text();
    await cli.reader.cancel();
    assertEquals(code, 2, "a wrong command line");
    assertStringIncludes(err, "--http");
  }
});

Deno.test("serveFakeCluster prints one ready line, warns about tokens over HTTP, stops on abort", async () => {
  const lines: string[] = [];
  const warnings: string[] = [];
  const controller = new AbortController();
  const dir = await Deno.makeTempDir();
  try {
    const serving = serveFakeCluster(
      { tls: false, token: "x", kubeconfig: `${dir}/kc` },
      {
        print: (line) => {
          lines.push(line);
          controller.abort();
        },
        warn: (line) => warnings.push(line),
        signal: controller.signal,
      },
    );
    await serving;
    assertEquals(lines.length, 1);
    assertStringIncludes(lines[0], "Fake cluster ready at http://127.0.0.1:");
    assertStringIncludes(warnings[0], "--http");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kopf fake-cluster --no-streaming-lists refuses streamed listings like an older server", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const streamed = "/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true" +
      "&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1";
    for (const [flags, status] of [[[], 200], [["--no-streaming-lists"], 422]] as const) {
      const cli = await startCli(["--http", `--kubeconfig=${dir}/kubeconfig`, ...flags]);
      const response = await fetch(`${cli.url}${streamed}`);
      await response.body?.cancel();
      assertEquals(response.status, status, flags.join(" "));
      assertEquals(await cli.stop(), 0);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the fault flags inject failures, lost replies, latency, watch drops and token expiry", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const failing = await startCli([
      "--http",
      "--error-rate=1",
      "--error-status=503",
      "--latency=150",
    ]);
    const started = performance.now();
    const refused = await fetch(`${failing.url}/api/v1/namespaces/default/configmaps`);
    assertEquals(refused.status, 503);
    await refused.body?.cancel();
    assert(performance.now() - started >= 140, "the latency delays the answer");
    assertEquals(await failing.stop(), 0);

    const losing = await startCli(["--http", "--lose-replies=1", "--drop-watches-every=0.3"]);
    const post = await fetch(`${losing.url}/api/v1/namespaces/default/configmaps`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ metadata: { name: "written" } }),
    });
    let broken = false;
    await post.text().catch(() => (broken = true));
    assert(broken, "the reply is lost");
    const kept = await fetch(`${losing.url}/api/v1/namespaces/default/configmaps/written`);
    assertEquals(kept.status, 200, "the write was done");
    await kept.body?.cancel();
    const watch = await fetch(`${losing.url}/api/v1/namespaces/default/configmaps?watch=true`);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ended = await Promise.race([
      watch.text().then(() => true, () => true), // cut within 0.3 s
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), 5000))),
    ]);
    clearTimeout(timer);
    assert(ended, "the watch is dropped");
    assertEquals(await losing.stop(), 0);

    const expiring = await startCli([`--kubeconfig=${dir}/kc`, "--expire-token-every=0.3"]);
    const token = () => Deno.readTextFile(`${dir}/kc`).then((t) => /token: (\S+)/.exec(t)?.[1]);
    const first = await token();
    let next = first;
    for (let i = 0; i < 50 && next === first; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      next = await token();
    }
    assert(first !== undefined && next !== first, "the kubeconfig gets the new token");
    assertEquals(await expiring.stop(), 0);

    const bad = await startCli(["--error-rate=2"]);
    assertEquals((await bad.child.status).code, 2, "a share over 1 is a usage error");
    await bad.reader.cancel();
    await bad.child.stderr.cancel();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--event-ttl takes seconds or a Go duration; anything else is one line naming the forms", () => {
  assertEquals(["3600", "0", "1.5", "5s", "1m30s", "1h0m0s", "300ms"].map(parseEventTtl), [
    3600,
    0,
    1.5,
    5,
    90,
    3600,
    0.3,
  ]);
  for (const wrong of ["", "-5s", "5x", "1 hour", "1d"]) {
    assertThrows(
      () => parseEventTtl(wrong),
      Error,
      `the Event TTL must be seconds (e.g. 3600, 0 for never) or a duration such as 5s, 1m30s or 1h0m0s, not ${
        JSON.stringify(wrong)
      }.`,
    );
  }
});

Deno.test("kopf fake-cluster --event-ttl deletes Events: a watch sees them go", async () => {
  const dir = await Deno.makeTempDir();
  const cli = await startCli(["--http", `--kubeconfig=${dir}/kubeconfig`, "--event-ttl=300ms"]);
  const controller = new AbortController();
  const deadline = setTimeout(() => controller.abort(new Error("no DELETED within 30 s")), 30_000);
  try {
    const events = `${cli.url}/api/v1/namespaces/default/events`;
    const created = await fetch(events, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        metadata: { name: "short-lived" },
        involvedObject: { kind: "ConfigMap", name: "cm", namespace: "default" },
        reason: "Testing",
      }),
    });
    assertEquals(created.status, 201);
    const rv = (await created.json()).metadata.resourceVersion;
    const watch = await fetch(`${events}?watch=true&resourceVersion=${rv}`, {
      signal: controller.signal,
    });
    const reader = watch.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    await reader.cancel();
    const event = JSON.parse(text.slice(0, text.indexOf("\n")));
    assertEquals([event.type, event.object.metadata.name], ["DELETED", "short-lived"]);
  } finally {
    clearTimeout(deadline);
    assertEquals(await cli.stop(), 0);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kopf fake-cluster --max-inflight limits requests as API Priority and Fairness does", async () => {
  const cli = await startCli(["--http", "--max-inflight=2", "--max-queued=0"]);
  try {
    assertStringIncludes(cli.out, "at most 2 requests at once, 0 more queued, the rest get 429");
    await using held = await holdCreates(cli.url!);
    const post = (path: string, body: unknown) => postJson(cli.url!, path, body);
    const cms = "/api/v1/namespaces/default/configmaps";
    const holding = [
      post(cms, { metadata: { name: "a" } }),
      post(cms, { metadata: { name: "b" } }),
    ];
    await held.arrived(2);
    const refused = await post(cms, { metadata: { name: "c" } });
    assertEquals(refused.status, 429);
    assertEquals(refused.headers.get("retry-after"), "1");
    assertMatch(refused.headers.get("x-kubernetes-pf-flowschema-uid") ?? "", /^[0-9a-f-]{36}$/);
    assertEquals(await refused.text(), "Too many requests, please try again later.\n");
    held.release();
    for (const done of holding) {
      const created = await done;
      assertEquals(created.status, 201);
      await created.body?.cancel();
    }
  } finally {
    assertEquals(await cli.stop(), 0);
  }
});

Deno.test("--max-queued defaults to --max-inflight; a bad limit is one line naming the flag", async () => {
  const cli = await startCli(["--http", "--max-inflight", "4"]);
  assertStringIncludes(cli.out, "at most 4 requests at once, 4 more queued");
  assertEquals(await cli.stop(), 0);
  for (
    const [args, line] of [
      [
        ["--max-inflight=0"],
        '--max-inflight must be a whole number of requests, at least 1, not "0"',
      ],
      [["--max-inflight=-2"], "--max-inflight must be a whole number of requests, at least 1"],
      [["--max-inflight=many"], 'not "many"'],
      [
        ["--max-inflight=2", "--max-queued=1.5"],
        "--max-queued must be a whole number of requests, at least 0",
      ],
      [["--max-queued=3"], "--max-queued needs --max-inflight too"],
    ] as [string[], string][]
  ) {
    const bad = await startCli(["--http", ...args]);
    assertEquals((await bad.child.status).code, 2, `a usage error: ${args.join(" ")}`);
    const err = await new Response(bad.child.stderr).text();
    await bad.reader.cancel();
    assertStringIncludes(err.split("\n")[0], line);
  }
});
