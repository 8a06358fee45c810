/** KopfRunner: `kopf run` in the background of a test, with its output, exit code, error. */
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../assert.ts";
import { kopf } from "../../mod.ts";
import { FakeCluster, KopfRunner } from "../../src/testing/mod.ts";
import { UsageError } from "../../src/structs/errors.ts";
import { matcherOf } from "../../src/intents/registry.ts";

function cmName(i: number): string {
  return `cm-${i}`;
}

Deno.test("a registry of the test's own handlers runs until stopped; exit code 0", async () => {
  await using cluster = await FakeCluster.start();
  const registry = new kopf.OperatorRegistry();
  const seen: string[] = [];
  kopf.on.create("v1", "configmaps", { registry }, function remember({ name, logger }) {
    seen.push(name!);
    logger.info(`Remembered ${name}.`);
  });
  const runner = await KopfRunner.start(["run", "--standalone", "-A"], { registry, cluster });
  assert(runner.ready && runner.running);
  for (let i = 0; i < 3; i++) {
    cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: cmName(i) } });
  }
  await runner.waitForOutput(`[default/${cmName(2)}] Remembered ${cmName(2)}.`);
  await runner.stop();
  assertEquals(runner.exitCode, 0);
  assertEquals(runner.error, undefined);
  assert(!runner.running);
  assertEquals(seen.sort(), [cmName(0), cmName(1), cmName(2)]);
  assertStringIncludes(runner.output, "Handler 'remember' succeeded.");
});

Deno.test("a usage error ends the run at once: exit code 2 and the line in the output", async () => {
  const runner = await KopfRunner.start(["run", "-A", "-n", "default"], { reraise: false });
  assertEquals(runner.running, false);
  assertEquals(runner.exitCode, 2);
  assertStringIncludes(runner.output, "either -n/--namespace or -A/--all-namespaces");
  await assertRejects(() => runner.waitForOutput("never printed"), Error, "has ended");
  await runner.stop(); // no error: reraise is off
});

Deno.test("commander's own usage errors are usage errors too: exit code 2", async () => {
  const runner = await KopfRunner.start(["run", "--bogus"], { reraise: false });
  assertEquals(runner.exitCode, 2);
  assertStringIncludes(runner.output, "unknown option '--bogus'");
  await runner.stop();
});

Deno.test("an operator that cannot start: exit code 1, the error kept and re-raised", async () => {
  await using cluster = await FakeCluster.start();
  const registry = new kopf.OperatorRegistry();
  kopf.on.create("v1", "configmaps", { registry }, function noop() {});
  kopf.on.startup({ registry }, function refuse() {
    throw new kopf.PermanentError("No database configured.");
  });
  const runner = await KopfRunner.start(["run", "--standalone", "-A"], { registry, cluster });
  assertEquals(runner.exitCode, 1);
  assert(runner.error instanceof Error);
  assertStringIncludes(runner.output, "No database configured.");
  await assertRejects(() => runner.stop(), Error);
});

Deno.test("waiting for output that does not come fails after the timeout", async () => {
  await using cluster = await FakeCluster.start();
  const registry = new kopf.OperatorRegistry();
  kopf.on.create("v1", "configmaps", { registry }, function noop() {});
  await using runner = await KopfRunner.start(["run", "--standalone", "-A"], { registry, cluster });
  await assertRejects(
    () => runner.waitForOutput(/never printed/, { timeout: 0.05 }),
    Error,
    "within 0.05s",
  );
});

Deno.test("bad arguments of the runner itself are refused", async () => {
  await assertRejects(
    () => KopfRunner.start("run -A" as unknown as string[]),
    UsageError,
    "command line as strings",
  );
  await assertRejects(() => KopfRunner.start(["run"], { timeout: 0 }), UsageError, "timeout");
});

Deno.test("-n patterns: globs and negations in one pattern, several -n as alternatives", async () => {
  await using cluster = await FakeCluster.start();
  for (const ns of ["team-a", "team-b", "other", "lab"]) {
    cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
  }
  const registry = new kopf.OperatorRegistry();
  const seen: string[] = [];
  kopf.on.create("v1", "configmaps", { registry }, function remember({ namespace, name }) {
    seen.push(`${namespace}/${name}`);
  });
  const runner = await KopfRunner.start(
    ["run", "--standalone", "-n", "team-*,!team-b", "-n", "lab"],
    { registry, cluster },
  );
  for (const ns of ["other", "team-b", "team-a", "lab"]) {
    cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", namespace: ns } });
  }
  await runner.waitForOutput("[team-a/x] Handler 'remember' succeeded.");
  await runner.waitForOutput("[lab/x] Handler 'remember' succeeded.");
  await runner.stop();
  assertEquals(seen.sort(), ["lab/x", "team-a/x"]);
  const watched = new Set(
    cluster.requests.filter((r) => r.verb === "watch" && r.path.includes("/configmaps"))
      .map((r) => r.path.split("/namespaces/")[1]?.split("/")[0] ?? "(cluster)"),
  );
  assertEquals([...watched].sort(), ["lab", "team-a"]);
});

Deno.test("--log-format plain --no-log-prefix: bare messages", async () => {
  await using cluster = await FakeCluster.start();
  const registry = new kopf.OperatorRegistry();
  kopf.on.create("v1", "configmaps", { registry }, function greet({ logger }) {
    logger.info("Hello there.");
  });
  await using runner = await KopfRunner.start(
    ["run", "--standalone", "-A", "--log-format", "plain", "--no-log-prefix"],
    { registry, cluster },
  );
  cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } });
  assertEquals(await runner.waitForOutput("Hello there."), "Hello there.");
});

Deno.test("--liveness serves the probe handlers' results", async () => {
  await using cluster = await FakeCluster.start();
  const registry = new kopf.OperatorRegistry();
  kopf.on.create("v1", "configmaps", { registry }, function noop() {});
  kopf.on.probe({ registry, id: "answer" }, () => 42);
  await using runner = await KopfRunner.start(
    ["run", "--standalone", "-A", "--verbose", "--liveness", "http://127.0.0.1:0/healthz"],
    { registry, cluster },
  );
  const line = await runner.waitForOutput(/Answering liveness probes at http:\/\/\S+/);
  const url = /(http:\/\/\S+?)\.?$/.exec(line)![1];
  assert(url.endsWith("/healthz") && !url.includes(":0/"), url);
  const response = await fetch(url);
  assertEquals(response.status, 200);
  assertEquals(await response.json(), { answer: 42 });
});

Deno.test("one registry serves runners against different clusters, one after another", async () => {
  const registry = new kopf.OperatorRegistry();
  kopf.on.create("v1", "configmaps", { registry }, function noop() {});
  for (const name of ["first", "second"]) {
    await using cluster = await FakeCluster.start();
    await using runner = await KopfRunner.start(["run", "--standalone", "-A"], {
      registry,
      cluster,
    });
    cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name } });
    await runner.waitForOutput(`[default/${name}] Handler 'noop' succeeded.`);
  }
  assertEquals(
    matcherOf(registry).activityHandlers("login").length,
    0,
    "the registry is left as it was",
  );
});

Deno.test("an empty output line can be waited for: it is not taken for the end", async () => {
  await using cluster = await FakeCluster.start();
  const registry = new kopf.OperatorRegistry();
  kopf.on.create("v1", "configmaps", { registry }, function blank({ logger }) {
    logger.info("");
  });
  await using runner = await KopfRunner.start(
    ["run", "--standalone", "-A", "--log-format", "plain", "--no-log-prefix"],
    { registry, cluster },
  );
  const waiting = runner.waitForOutput(/^$/);
  cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } });
  assertEquals(await waiting, "");
  assert(runner.running);
});
