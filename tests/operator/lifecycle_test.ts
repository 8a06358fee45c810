/**
 * The operator's own lifecycle: options refused with one clear line, startup handlers
 * tuning the settings, a failing startup, cleanup on exit, several operators in one
 * process, resources whose CRD appears later, and events posted from log messages.
 */
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../assert.ts";
import { PermanentError, TemporaryError } from "../../src/structs/errors.ts";
import { OperatorRegistry } from "../../src/intents/registry.ts";
import { on } from "../../src/intents/registration.ts";
import { operator } from "../../src/reactor/running.ts";
import { OperatorConfigurationError } from "../../src/reactor/operator_options.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { startHttpServer } from "../../src/platform/http_server.ts";
import {
  Calls,
  clusterRegistry,
  handled,
  kex,
  kexCrd,
  LOGS,
  startCluster,
  startOperator,
  testSettings,
  whileRunning,
} from "./harness.ts";
import { withEnv } from "../env.ts";
import { quote } from "../doc_quotes.ts";

Deno.test("options not supported yet or invalid fail at once with one line", async () => {
  const registry = new OperatorRegistry({ onWarning: () => {} });
  on.create("kopfexamples", { registry }, () => {});
  const cases: [Parameters<typeof operator>[0], string][] = [
    [{ registry, peeringName: " " }, "name of a peering object"],
    [{ registry, priority: 1.5 }, "priority must be an integer"],
    [{ registry, livenessEndpoint: "https://0.0.0.0:8080/healthz" }, "only HTTP"],
    [{ registry, clusterwide: true, namespaces: ["ns"] }, "not both"],
  ];
  for (const [options, text] of cases) {
    const error = await assertRejects(() => operator(options), OperatorConfigurationError);
    assertStringIncludes(error.message, text);
    assert(!error.message.includes("\n"));
  }
  const withWebhook = new OperatorRegistry({ onWarning: () => {} });
  on.validate("kopfexamples", { registry: withWebhook }, function check() {});
  const error = await assertRejects(
    () => operator({ registry: withWebhook }),
    OperatorConfigurationError,
  );
  assertStringIncludes(error.message, '"check" is registered, but no webhook server is configured');
  assert(!error.message.includes("\n"));
});

Deno.test("startup tunes the settings; cleanup runs on exit; a failing startup stops the start", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.startup({ registry }, ({ settings, memo }) => {
    settings.persistence.finalizer = "example.com/custom";
    (memo as Record<string, unknown>).greeting = "hi";
    calls.add("startup");
  });
  on.cleanup({ registry }, () => calls.add("cleanup"));
  on.delete("kopfexamples", { registry }, ({ memo }) => {
    calls.add(`delete ${(memo as Record<string, unknown>).greeting}`);
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("kex1"));
    const body = await cluster.waitFor("kopfexamples", "kex1", handled);
    assertEquals(body?.metadata?.finalizers, ["example.com/custom"]);
    cluster.delete("kopfexamples", "kex1");
    await cluster.waitFor("kopfexamples", "kex1", (b) => b === undefined);
  });
  assertEquals(calls.list, ["startup", "delete hi", "cleanup"]);

  const failing = clusterRegistry(cluster);
  on.startup({ registry: failing }, function broken() {
    throw new PermanentError("no database");
  });
  on.create("kopfexamples", { registry: failing }, () => {});
  const error = await assertRejects(() =>
    operator({ registry: failing, settings: testSettings(), standalone: true })
  );
  assertStringIncludes(error.message, "startup handler(s) broken failed for good: no database");
});

Deno.test("two operators in one process, each with its own registry", async () => {
  await using cluster = await startCluster();
  const calls = new Calls<string>();
  const one = clusterRegistry(cluster);
  const two = clusterRegistry(cluster);
  on.create("kopfexamples", { registry: one, labels: { owner: "one" } }, ({ name }) => {
    calls.add(`one ${name}`);
  });
  on.create("kopfexamples", { registry: two, labels: { owner: "two" } }, ({ name }) => {
    calls.add(`two ${name}`);
  });
  const op1 = await startOperator(one);
  const op2 = await startOperator(two, {
    settings: testSettings({ persistence: { finalizer: "two.example.com/finalizer" } }),
  });
  try {
    cluster.create(kex("a", {}, { metadata: { labels: { owner: "one" } } }));
    cluster.create(kex("b", {}, { metadata: { labels: { owner: "two" } } }));
    await calls.until(2);
    await cluster.waitFor("kopfexamples", "a", handled);
    await cluster.waitFor("kopfexamples", "b", handled);
  } finally {
    await Promise.all([op1.stop(), op2.stop()]);
  }
  assertEquals(calls.list.toSorted(), ["one a", "two b"]);
});

Deno.test("a resource whose CRD appears later is served once it appears", async () => {
  await using cluster = await FakeCluster.start();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry }, ({ name }) => calls.add(`create ${name}`));
  await whileRunning(registry, async () => {
    assert(
      LOGS.some((l) => l.includes("No served resource matches") && l.includes("kopfexamples")),
    );
    cluster.create(kexCrd());
    // The operator notices the new CRD, discovers again, and starts watching.
    cluster.create(kex("late"));
    await calls.until(1);
  });
  assertEquals(calls.list, ["create late"]);
});

Deno.test("log messages at the posting level become Kubernetes events", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  on.create("kopfexamples", { registry }, function create_fn({ logger }) {
    logger.info("Hello from the handler.");
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("kex1"));
    await cluster.waitFor("kopfexamples", "kex1", handled);
  }, {
    settings: testSettings({ posting: { enabled: true, level: "info" } }),
  });
  const messages = cluster.list("events").map((e) => String(e.message));
  for (
    const text of [
      "Hello from the handler.",
      // As docs/writes.md quotes it, of a handler x.
      (await quote("writes.md", "Handler 'x' ")).replace("'x'", "'create_fn'"),
      "Creation is processed: 1 succeeded; 0 failed.",
    ]
  ) {
    assert(messages.includes(text), `no event "${text}" in ${JSON.stringify(messages)}`);
  }
});

Deno.test("the liveness endpoint answers with the probe handlers' results", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  let probes = 0;
  on.probe({ registry, id: "count" }, () => ++probes);
  on.probe({ registry, id: "fixed" }, () => "ok");
  on.create("kopfexamples", { registry }, () => {});
  const free = await startHttpServer({ port: 0, handler: () => new Response() });
  const port = free.port;
  await free.close();
  await whileRunning(registry, async () => {
    const first = await fetch(`http://127.0.0.1:${port}/healthz`);
    assertEquals([first.status, await first.json()], [200, { count: 1, fixed: "ok" }]);
    const cached = await fetch(`http://127.0.0.1:${port}/healthz`);
    assertEquals(await cached.json(), { count: 1, fixed: "ok" });
    const other = await fetch(`http://127.0.0.1:${port}/other`);
    await other.body?.cancel();
    assertEquals(other.status, 404);
  }, {
    livenessEndpoint: `http://127.0.0.1:${port}/healthz`,
  });
});

Deno.test("without login handlers, the kubeconfig is used", async () => {
  await using cluster = await startCluster();
  const registry = new OperatorRegistry({ onWarning: () => {} });
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry }, ({ name }) => calls.add(String(name)));
  await withEnv("KUBECONFIG", await cluster.writeKubeconfig(), async () => {
    await whileRunning(registry, async () => {
      cluster.create(kex("kex1"));
      await calls.until(1);
    });
  });
  assertEquals(calls.list, ["kex1"]);
});

Deno.test("stopping while a startup handler waits for its retry is a clean stop", async () => {
  const registry = new OperatorRegistry({ onWarning: () => {} });
  const calls = new Calls<number>();
  on.startup({ registry }, ({ retry }) => {
    calls.add(retry);
    throw new TemporaryError("the database is not up yet", { delay: 60 });
  });
  on.create("kopfexamples", { registry }, () => {});
  const controller = new AbortController();
  const done = operator({
    registry,
    settings: testSettings(),
    standalone: true,
    signal: controller.signal,
  });
  await calls.until(1);
  controller.abort();
  await done;
  assertEquals(calls.list, [0]);
});

Deno.test("without standalone, peering resources are looked for; the operator runs alone", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  on.create("kopfexamples", { registry }, () => {});
  const before = LOGS.length;
  await whileRunning(registry, async () => {}, { standalone: false });
  assert(
    LOGS.slice(before).some((l) => l.includes("No peering resources found: running standalone.")),
  );
  cluster.create({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "kopfpeerings.kopf.dev" },
    spec: {
      group: "kopf.dev",
      scope: "Namespaced",
      names: { plural: "kopfpeerings", singular: "kopfpeering", kind: "KopfPeering" },
      versions: [{
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        },
      }],
    },
  });
  const after = LOGS.length;
  await whileRunning(registry, async () => {}, { standalone: false });
  assert(
    LOGS.slice(after).some((l) =>
      l.includes('The peering object "default" (KopfPeering) is not found: running standalone.')
    ),
  );
});

Deno.test("Kopf's instant-exit settings are accepted but said to have no effect", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  on.create("kopfexamples", { registry }, () => {});
  const warning = "instantExitTimeout and instantExitZeroTimeCycles have no effect";
  const before = LOGS.length;
  await whileRunning(registry, async () => {});
  assert(!LOGS.slice(before).some((l) => l.includes(warning)), "not with the defaults");
  const after = LOGS.length;
  const settings = testSettings({ background: { instantExitTimeout: 2 } });
  await whileRunning(registry, async () => {}, { settings });
  assert(LOGS.slice(after).some((l) => l.includes(warning)));
});
