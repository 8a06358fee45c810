/**
 * KopfRunner and FakeCluster.waitFor explain their failures: the operator's last lines
 * and the object's state; and the operator's handlers log into the test's cluster with
 * clients of their own, with no kubeconfig written by the test.
 */
import {
  assert,
  assertEquals,
  assertMatch,
  assertRejects,
  assertStringIncludes,
} from "../assert.ts";
import { quote, shapeOf, textBlocks } from "../doc_quotes.ts";
import { kopf } from "../../mod.ts";
import { ApiClient, createObject, Vault } from "../../src/client/mod.ts";
import { FakeCluster, KopfRunner, KopfRunnerError } from "../../src/testing/mod.ts";
import { withEnv } from "../env.ts";

const CONFIGMAPS = new kopf.Resource({
  group: "",
  version: "v1",
  plural: "configmaps",
  namespaced: true,
});

function configMap(name: string) {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default" } };
}

/** An operator whose handler keeps failing, as docs/testing.md's example of a failed wait has it. */
const FAILING = `import { kopf } from "${new URL("../../mod.ts", import.meta.url).href}";

kopf.on.create("configmaps", { backoff: 30 }, function connect() {
  throw new Error("the database at db.example:5432 refuses connections");
});
`;

Deno.test("a handler that throws: failed waits show the operator's last lines naming the cause, as docs/testing.md shows them", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/operator.ts`, FAILING);
    await using cluster = await FakeCluster.start();
    const args = ["run", "--standalone", "-A", `${dir}/operator.ts`];
    await using runner = await KopfRunner.start(args, { cluster });
    cluster.create(configMap("settings"));
    await runner.waitForOutput("Handler 'connect' failed with an exception.");

    const waited = await assertRejects(
      () =>
        cluster.waitFor("configmaps", "settings", (o) => !!o?.metadata?.labels, { timeout: 0.1 }),
      Error,
    );
    // As a failed test prints it, and as the doc shows it for a project in /home/me/operator:
    // the object as it is now (what the operator wrote on it), the operator's last lines (the
    // handler's failure and its cause).
    const shown = (await textBlocks("testing.md")).find((b) => b.startsWith("error: Error: Timed"));
    assert(shown !== undefined, "docs/testing.md shows a failed wait");
    const here = shown.replaceAll("/home/me/operator/", `${dir}/`)
      .replace(" -A operator.ts)", ` -A ${dir}/operator.ts)`);
    assertMatch(`error: ${waited}`, shapeOf(here));

    const output = await assertRejects(
      () => runner.waitForOutput("Handler 'connect' succeeded.", { timeout: 0.05 }),
      KopfRunnerError,
    );
    assertStringIncludes(output.message, "within 0.05s");
    assertStringIncludes(output.message, "the database at db.example:5432 refuses connections");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the last lines are bounded: 20 lines, the earlier ones counted", async () => {
  await using cluster = await FakeCluster.start();
  const registry = new kopf.OperatorRegistry();
  kopf.on.create("v1", "configmaps", { registry }, function chatty({ logger }) {
    for (let i = 0; i < 100; i++) logger.info(`chatter ${i}`);
  });
  await using runner = await KopfRunner.start(
    ["run", "--standalone", "-A", "--log-format", "plain", "--no-log-prefix"],
    { registry, cluster },
  );
  cluster.create(configMap("x"));
  await runner.waitForOutput("Handler 'chatty' succeeded.");
  const error = await assertRejects(
    () => runner.waitForOutput("never printed", { timeout: 0.01 }),
    KopfRunnerError,
  );
  const quoted = error.message.split("\n").filter((line) => line.startsWith("  | "));
  assertEquals(quoted.length, 20, error.message);
  assert(!error.message.includes("chatter 80\n"), error.message);
  assertStringIncludes(error.message, "earlier line(s) left out");
});

Deno.test("an operator that ended early: a wait on the cluster says how, and `await using` does not hide it", async () => {
  await using cluster = await FakeCluster.start();
  // Any source of the cluster's credentials will do: the runner is known by the address.
  const source = { connectionInfo: cluster.connectionInfo };
  const runner = await KopfRunner.start(["run", "-A", "absent-operator.ts"], { cluster: source });
  assertEquals(runner.exitCode, 2);
  const error = await assertRejects(
    () => cluster.waitFor("configmaps", "child", (o) => o !== undefined, { timeout: 0.05 }),
    Error,
  );
  assertStringIncludes(error.message, "it does not exist");
  assertStringIncludes(error.message, "it did not change during the wait");
  // As docs/testing.md quotes it, of operator.ts.
  const ended = await quote("testing.md", "has ended with exit code ");
  assertStringIncludes(error.message, ended.replace("operator.ts", "absent-operator.ts"));
  // That error was shown: the end of an `await using` block does not throw it again (it
  // would hide the failed wait behind a SuppressedError); stop() still does.
  await runner[Symbol.asyncDispose]();
  await assertRejects(() => runner.stop(), Error, "no such file");
});

Deno.test("a handler creates a ConfigMap through a client of its own: no kubeconfig needed", async () => {
  await using cluster = await FakeCluster.start();
  const registry = new kopf.OperatorRegistry();
  const api = new ApiClient(
    new Vault({ relogin: async () => ({ handler: await kopf.loginWithDefaults() }) }),
  );
  kopf.on.create(
    "v1",
    "configmaps",
    { registry, labels: { role: "parent" } },
    async function makeChild({ name }) {
      await createObject(api, CONFIGMAPS, configMap(`${name}-child`));
    },
  );
  const kubeconfigless = `${await Deno.makeTempDir()}/absent-kubeconfig`;
  // Whatever the machine has (a real cluster in ~/.kube/config?), this is not read.
  await withEnv("KUBECONFIG", kubeconfigless, async () => {
    await using runner = await KopfRunner.start(["run", "--standalone", "-A"], {
      registry,
      cluster,
    });
    cluster.create({
      ...configMap("parent"),
      metadata: { ...configMap("parent").metadata, labels: { role: "parent" } },
    });
    const child = await cluster.waitFor("configmaps", "parent-child", (o) => o !== undefined);
    assertEquals(child?.metadata?.namespace, "default");
    await runner.waitForOutput("Handler 'makeChild' succeeded.");
  });
  await api[Symbol.asyncDispose]();
});
