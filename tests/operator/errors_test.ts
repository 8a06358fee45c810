/**
 * Error handling over HTTP against the fake cluster: temporary errors with delays,
 * permanent errors, arbitrary errors per `errors` mode with `backoff`, `retries` and
 * `timeout` limits, and the progress records left on the object while retrying.
 */
import { assert, assertEquals } from "../assert.ts";
import { PermanentError, TemporaryError } from "../../src/structs/errors.ts";
import { on } from "../../src/intents/registration.ts";
import { KEY_FIXTURES } from "../settings/key_fixtures.ts";
import {
  Calls,
  clusterRegistry,
  DIFFBASE,
  handled,
  kex,
  kopfStatus,
  logsOf,
  startCluster,
  whileRunning,
} from "./harness.ts";
import { wallClockAt } from "../clocks.ts";

function logged(name: string, text: string): boolean {
  return logsOf(name).some((line) => line.includes(text));
}

Deno.test("TemporaryError: retried after its delay with retry/started/runtime", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<{ retry: number; started: number; runtime: number }>();
  on.create("kopfexamples", { registry }, function create_fn({ retry, started, runtime }) {
    calls.add({ retry, started: started.getTime(), runtime });
    if (retry < 2) throw new TemporaryError(`not yet ${retry}`, { delay: 0.1 });
    return "done";
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("kex1"));
    const body = await cluster.waitFor("kopfexamples", "kex1", handled);
    assertEquals((body?.status as Record<string, unknown>).create_fn, "done");
    assertEquals(Object.keys(body?.metadata?.annotations ?? {}), [DIFFBASE]);
  });
  assertEquals(calls.list.map((c) => c.retry), [0, 1, 2]);
  assertEquals(new Set(calls.list.map((c) => c.started)).size, 1);
  assert(calls.list[2].runtime >= 0.2, `runtime ${calls.list[2].runtime}`);
  assert(logged("kex1", "Handler 'create_fn' failed temporarily: not yet 0. Will retry in 0.1s."));
});

Deno.test("after a retried handler succeeds, no empty progress stanza is left in the status", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<number>();
  on.create("kopfexamples", { registry }, function create_fn({ retry }) {
    calls.add(retry);
    if (retry < 1) throw new TemporaryError("not yet", { delay: 0.05 });
    return "done";
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("kex-purged"));
    // The record was in the status while retrying…
    await cluster.waitFor(
      "kopfexamples",
      "kex-purged",
      (b) => (b?.status as { kopf?: { progress?: object } })?.kopf?.progress !== undefined,
    );
    const body = await cluster.waitFor("kopfexamples", "kex-purged", handled);
    // …and is gone with its containers, not left as `kopf: { progress: {} }`.
    assertEquals(kopfStatus(body), { create_fn: "done" });
    assertEquals(Object.keys(body?.metadata?.annotations ?? {}), [DIFFBASE]);
  });
  assertEquals(calls.list, [0, 1]);
});

Deno.test("PermanentError: not retried; the cycle ends as failed", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  let count = 0;
  on.create("kopfexamples", { registry }, function create_fn() {
    count++;
    throw new PermanentError("broken for good");
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("kex1"));
    const body = await cluster.waitFor("kopfexamples", "kex1", handled);
    assertEquals(kopfStatus(body), undefined, "no result of a failed handler");
    const stalled = (body?.status as { conditions: { type: string; status: string }[] }).conditions
      .find((c) => c.type === "Stalled");
    assertEquals(stalled?.status, "True");
  });
  assertEquals(count, 1);
  assert(logged("kex1", "Handler 'create_fn' failed permanently: broken for good"));
  assert(logged("kex1", "Creation is processed: 0 succeeded; 1 failed."));
});

Deno.test("arbitrary errors: retried after the backoff by default", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<number>();
  on.create("kopfexamples", { registry, backoff: 0.1 }, function create_fn({ retry }) {
    calls.add(retry);
    if (retry === 0) throw new Error("flaky");
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("kex1"));
    await cluster.waitFor("kopfexamples", "kex1", handled);
  });
  assertEquals(calls.list, [0, 1]);
  assert(logged("kex1", "Handler 'create_fn' failed with an exception. Will retry in 0.1s."));
});

Deno.test("errors: permanent and ignored modes; a thrown non-Error is an error too", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry, errors: "permanent" }, function strict_fn() {
    calls.add("strict");
    throw "a string";
  });
  on.create("kopfexamples", { registry, errors: "ignored" }, function lenient_fn() {
    calls.add("lenient");
    throw new Error("whatever");
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("kex1"));
    await cluster.waitFor("kopfexamples", "kex1", handled);
  });
  assertEquals(calls.list, ["strict", "lenient"]);
  assert(logged("kex1", "Handler 'strict_fn' failed with an exception. Will stop."));
  assert(logged("kex1", "Handler 'lenient_fn' failed with an exception. Will ignore."));
  assert(logged("kex1", "Creation is processed: 1 succeeded; 1 failed."));
});

Deno.test("retries: the handler fails for good when its attempts are used up", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<number>();
  on.create("kopfexamples", { registry, retries: 3 }, function create_fn({ retry }) {
    calls.add(retry);
    throw new TemporaryError("again", { delay: 0 });
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("kex1"));
    await cluster.waitFor("kopfexamples", "kex1", handled);
  });
  assertEquals(calls.list, [0, 1, 2]);
  assert(logged("kex1", "Handler 'create_fn' has exceeded 3 retries."));
});

Deno.test("timeout: the handler fails for good once it has run too long", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<number>();
  // Each attempt takes 100 ms of the operator's clock; the timeout is 250 ms.
  let now = Date.UTC(2024, 0, 1);
  on.create("kopfexamples", { registry, timeout: 0.25 }, function create_fn({ retry, runtime }) {
    calls.add(retry);
    assertEquals(runtime, retry * 0.1);
    now += 100;
    throw new TemporaryError("slow", { delay: 0 });
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("kex1"));
    await cluster.waitFor("kopfexamples", "kex1", handled);
  }, { clock: wallClockAt(() => now) });
  assertEquals(calls.list, [0, 1, 2]);
  assert(logged("kex1", "Handler 'create_fn' has timed out after 0.3s."));
});

Deno.test("progress while retrying: Kopf's records byte for byte, long ids hashed", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const [, longId, v2Key, v1Key] = KEY_FIXTURES.find(([, id]) => id.length === 64)!;
  on.create("kopfexamples", { registry, id: longId }, () => {
    throw new TemporaryError("later, please", { delay: 60 });
  });
  const t0 = Date.UTC(2020, 11, 31, 23, 59, 59, 123);
  await whileRunning(registry, async () => {
    cluster.create(kex("kex1"));
    const body = await cluster.waitFor(
      "kopfexamples",
      "kex1",
      (b) => b?.metadata?.annotations?.[v2Key] !== undefined,
    );
    const record = '{"started":"2020-12-31T23:59:59.123456+00:00",' +
      '"delayed":"2021-01-01T00:00:59.123456+00:00","purpose":"create","retries":1,' +
      '"success":false,"failure":false,"message":"later, please"}';
    assertEquals(body?.metadata?.annotations, { [v2Key]: record, [v1Key]: record });
    assertEquals((body?.status as Record<string, unknown>).kopf, {
      progress: {
        [longId]: {
          started: "2020-12-31T23:59:59.123456+00:00",
          delayed: "2021-01-01T00:00:59.123456+00:00",
          purpose: "create",
          retries: 1,
          success: false,
          failure: false,
          message: "later, please",
        },
      },
    });
  }, { clock: wallClockAt(t0 + 0.456) });
});

Deno.test("a result that cannot be stored fails the handler once, with a clear message", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  let count = 0;
  on.create("kopfexamples", { registry }, function create_fn() {
    count++;
    return { callback: () => {} };
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("unstorable"));
    await cluster.waitFor("kopfexamples", "unstorable", handled);
  });
  assertEquals(count, 1);
  assert(
    logged("unstorable", "Handler 'create_fn' failed permanently: its result cannot be stored"),
  );
  assert(!logged("unstorable", "Handler 'create_fn' succeeded."));
  assert(logged("unstorable", "Creation is processed: 0 succeeded; 1 failed."));
});
