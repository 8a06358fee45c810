/**
 * When the API server refuses to store what a handler achieved (a 4xx other than 404/409,
 * or a size it would refuse), the handler that succeeded is not run again: one ERROR line
 * (and an Event on the object) says what was refused and why, and the store is retried
 * along the operator's error delays until it succeeds. The same holds when storing fails
 * for a while past the client's own retries (5xx, throttling), with a WARNING instead.
 */
import { assert, assertEquals, assertEventually, assertStringIncludes } from "../assert.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { on } from "../../src/intents/registration.ts";
import {
  Calls,
  clusterRegistry,
  handled,
  kex,
  logsOf,
  patchesOf,
  startCluster,
  testSettings,
  whileRunning,
} from "./harness.ts";

/**
 * Settings with quick error delays and events posted (to see the Event about the refusal);
 * the client retries a failed request once, quickly.
 */
function settings() {
  return testSettings({
    batching: { errorDelays: [0.1, 0.2, 0.3] },
    networking: { errorBackoffs: [0.05] },
    posting: { enabled: true, level: "error" },
  });
}

Deno.test("an invalid label set by a handler: refused (422), not run again, one ERROR and an Event", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry }, function labeller({ name, patch }) {
    calls.add(name!);
    patch.metadata.labels["not a valid key!"] = "x";
    return "labelled";
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("kex1"));
    await calls.until(1);
    // The store is retried along the error delays: three more PATCHes, all refused.
    await assertEventually("stores retried", () => patchesOf(cluster, "kex1").length >= 4);
  }, { settings: settings() });
  assertEquals(calls.list, ["kex1"], "the handler that succeeded ran once");
  const errors = logsOf("kex1").filter((line) => line.includes("refused to store the outcome"));
  assertEquals(errors.length, 1, logsOf("kex1").join("\n"));
  assertStringIncludes(errors[0], "of 'labeller'");
  assertStringIncludes(errors[0], "HTTP 422");
  assertStringIncludes(errors[0], "not a valid key!");
  assertStringIncludes(errors[0], "they are not run again, and storing is retried in 0.1s");
  const events = cluster.list("events", { namespace: "default" }).filter((e: RawBody) =>
    (e.involvedObject as Record<string, unknown>)?.name === "kex1"
  );
  assert(
    events.some((e: RawBody) => String(e.message).includes("refused to store the outcome")),
    "an Event on the object says so",
  );
});

Deno.test("a refusal that passes (403 for a while) stores the outcome at last; the handler ran once", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry }, function creator({ name }) {
    calls.add(name!);
    return "created";
  });
  cluster.faults.failRequests({ share: 1, status: 403, verbs: ["patch"] });
  await whileRunning(registry, async () => {
    cluster.create(kex("kex2"));
    await calls.until(1);
    await assertEventually("refused twice", () => patchesOf(cluster, "kex2").length >= 2);
    cluster.faults.clear();
    const body = await cluster.waitFor("kopfexamples", "kex2", handled);
    assertEquals((body?.status as Record<string, unknown>).creator, "created");
  }, { settings: settings() });
  assertEquals(calls.list, ["kex2"]);
  assert(
    logsOf("kex2").some((line) => line.includes("The outcome of 'creator' is stored at last")),
    logsOf("kex2").join("\n"),
  );
});

Deno.test("a store that fails past the client's retries (503 for a while): one WARNING, the handler ran once", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry }, function creator({ name }) {
    calls.add(name!);
    return "created";
  });
  cluster.faults.failRequests({ share: 1, status: 503, verbs: ["patch"] });
  await whileRunning(registry, async () => {
    cluster.create(kex("kex4"));
    await calls.until(1);
    await assertEventually(
      "the failure is reported",
      () => logsOf("kex4").some((line) => line.includes("Storing the outcome of 'creator' failed")),
    );
    cluster.faults.clear();
    const body = await cluster.waitFor("kopfexamples", "kex4", handled);
    assertEquals((body?.status as Record<string, unknown>).creator, "created");
  }, { settings: settings() });
  assertEquals(calls.list, ["kex4"], "the handler that succeeded ran once");
  const warnings = logsOf("kex4").filter((line) => line.includes("Storing the outcome"));
  assertEquals(warnings.length, 1, logsOf("kex4").join("\n"));
  assertStringIncludes(warnings[0], "HTTP 503");
  assertStringIncludes(warnings[0], "they are not run again, and storing is retried in 0.1s");
  assert(
    logsOf("kex4").some((line) => line.includes("The outcome of 'creator' is stored at last")),
    logsOf("kex4").join("\n"),
  );
});

Deno.test("a diff-base over the annotations limit does not cost the outcome; one error says what to do", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry }, function creator({ name }) {
    calls.add(name!);
    return { created: true };
  });
  const big = "x".repeat(1_000_000); // a 1 MB spec
  await whileRunning(registry, async () => {
    cluster.create(kex("kex3", { field: big }));
    await calls.until(1);
    const stored = await cluster.waitFor(
      "kopfexamples",
      "kex3",
      (b) => (b?.status as Record<string, unknown> | undefined)?.creator !== undefined,
    );
    assertEquals((stored!.status as Record<string, unknown>).creator, { created: true });
    const annotations = stored!.metadata?.annotations ?? {};
    assertEquals(annotations["kopf.zalando.org/last-handled-configuration"], undefined);
    assert(annotations["kopf.zalando.org/creator"] !== undefined, "the progress is kept");
    // Another change: the handler is done, so it does not run again; the error is not repeated.
    cluster.patch("kopfexamples", "kex3", { metadata: { labels: { touched: "yes" } } });
    await assertEventually(
      "the change is processed",
      () => logsOf("kex3").filter((line) => line.includes("cannot be stored")).length >= 2,
    );
  }, { settings: settings() });
  assertEquals(calls.list, ["kex3"], "the handler ran once");
  // Said at the error level once (posted as an Event), then at the debug level (not posted).
  const events = cluster.list("events", { namespace: "default" })
    .map((e) => String(e.message))
    .filter((message) => message.includes("cannot be stored"));
  assertEquals(events.length, 1, events.join("\n"));
  const errors = logsOf("kex3").filter((line) => line.includes("cannot be stored")).slice(0, 1);
  assertStringIncludes(errors[0], "The diff-base of kopfexamples default/kex3 cannot be stored");
  assertStringIncludes(errors[0], "over the 256 KB that Kubernetes allows");
  assertStringIncludes(
    errors[0],
    "settings.persistence.diffbaseStorage = new kopf.StatusDiffBaseStorage()",
  );
  assertStringIncludes(errors[0], "settings.persistence.sensitiveFields");
});
