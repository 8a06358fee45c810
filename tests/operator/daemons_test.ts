/**
 * Daemons in a real operator against the fake cluster over HTTP: spawned for existing and
 * new objects, live views of the object, stopped on deletion before the object is released,
 * stopped at the operator's exit, retried after temporary errors, never restarted once
 * ended, and stopped or spawned again as the object's labels stop or start matching.
 */
import { assert, assertEquals } from "../assert.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { TemporaryError } from "../../src/structs/errors.ts";
import { daemon, on } from "../../src/intents/registration.ts";
import {
  Calls,
  clusterRegistry,
  FINALIZER,
  kex,
  LOGS,
  startCluster,
  startOperator,
  testSettings,
} from "./harness.ts";

const KEX = "kopfexamples";

Deno.test("a daemon runs per object, sees live changes, and holds the object until it exits", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  const seen = new Calls<string>();
  const releasedEarly: string[] = [];
  daemon(KEX, { registry, cancellationPolling: 0.05 }, async function monitor(kwargs) {
    const { name, spec, stopped } = kwargs;
    calls.add(`start ${name}`);
    while (!stopped.isSet) {
      seen.add(`${name} ${spec.field}`);
      await stopped.wait(0.02);
    }
    if (name === "old") {
      // A slow exit: the object must still be held while the daemon is exiting.
      await new Promise((resolve) => setTimeout(resolve, 300));
      if (cluster.get(KEX, name) === undefined) releasedEarly.push(name);
    }
    calls.add(`stop ${name} ${stopped.reason}`);
  });
  cluster.create(kex("old"));
  const op = await startOperator(registry);
  try {
    await calls.until(1, (c) => c === "start old");
    cluster.create(kex("new"));
    await calls.until(1, (c) => c === "start new");
    await cluster.waitFor(KEX, "new", (b) => b?.metadata?.finalizers?.includes(FINALIZER) ?? false);

    cluster.patch(KEX, "new", { spec: { field: "changed" } });
    await seen.until(1, (s) => s === "new changed");

    const deleting = cluster.delete(KEX, "old");
    assert(deleting?.metadata?.deletionTimestamp !== undefined, "held by the finalizer");
    await calls.until(1, (c) => c === "stop old resource-deleted");
    await cluster.waitFor(KEX, "old", (b) => b === undefined);
    assertEquals(releasedEarly, []);
    assertEquals(calls.count((c) => c === "start old"), 1);
  } finally {
    await op.stop();
  }
  assertEquals(calls.count((c) => c === "stop new operator-exiting"), 1);
  assertEquals(calls.count((c) => c.startsWith("start new")), 1);
});

Deno.test("a daemon is retried after a temporary error, and not restarted once it has returned", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const attempts = new Calls<{ retry: number; at: number }>();
  const events = new Calls<string>();
  daemon(KEX, { registry }, function flaky({ retry, patch }) {
    attempts.add({ retry, at: performance.now() });
    if (retry < 2) throw new TemporaryError("not yet", { delay: 0.2 });
    patch.status.note = "patched";
    return { done: retry };
  });
  on.event(KEX, { registry }, ({ body }) => {
    events.add(String(body.metadata.labels?.mark ?? ""));
  });
  const op = await startOperator(registry);
  try {
    cluster.create(kex("kex1"));
    const status = (b?: RawBody) => (b?.status ?? {}) as Record<string, unknown>;
    const body = await cluster.waitFor(KEX, "kex1", (b) => status(b).flaky !== undefined);
    assertEquals(status(body).flaky, { done: 2 }, "the result goes to status.<id>");
    assertEquals(status(body).note, "patched", "the patch is applied");
    assertEquals(attempts.list.map((a) => a.retry), [0, 1, 2]);
    for (let i = 1; i < attempts.list.length; i++) {
      const gap = attempts.list[i].at - attempts.list[i - 1].at;
      assert(gap >= 190, `retried after the error's delay, not sooner (${gap} ms)`);
    }
    // A new state of the object does not restart a daemon that has ended.
    cluster.patch(KEX, "kex1", { metadata: { labels: { mark: "later" } } });
    await events.until(1, (e) => e === "later");
    assertEquals(attempts.list.length, 3);
  } finally {
    await op.stop();
  }
});

Deno.test("a daemon stops when the labels stop matching, and starts again when they match", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  daemon(KEX, { registry, labels: { run: "yes" } }, async function selective({ stopped }) {
    calls.add("start");
    await stopped.wait();
    calls.add(`stop ${stopped.reason}`);
  });
  const op = await startOperator(registry);
  try {
    cluster.create(kex("kex1", {}, { metadata: { labels: { run: "yes" } } }));
    await calls.until(1, (c) => c === "start");
    await cluster.waitFor(
      KEX,
      "kex1",
      (b) => b?.metadata?.finalizers?.includes(FINALIZER) ?? false,
    );

    cluster.patch(KEX, "kex1", { metadata: { labels: { run: "no" } } });
    await calls.until(1, (c) => c === "stop filters-mismatch");
    // No daemon applies any more: nothing holds the object.
    await cluster.waitFor(KEX, "kex1", (b) => !(b?.metadata?.finalizers ?? []).includes(FINALIZER));

    cluster.patch(KEX, "kex1", { metadata: { labels: { run: "yes" } } });
    await calls.until(1, (c) => c === "start");
    await cluster.waitFor(
      KEX,
      "kex1",
      (b) => b?.metadata?.finalizers?.includes(FINALIZER) ?? false,
    );
    cluster.delete(KEX, "kex1");
    await calls.until(1, (c) => c === "stop resource-deleted");
    await cluster.waitFor(KEX, "kex1", (b) => b === undefined);
    assertEquals(calls.list, ["start", "stop filters-mismatch", "start", "stop resource-deleted"]);
  } finally {
    await op.stop();
  }
});

Deno.test("objects that no daemon applies to get no finalizer and no requests", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  const events = new Calls<string>();
  daemon(KEX, { registry, labels: { run: "yes" } }, async function selective({ stopped }) {
    calls.add("start");
    await stopped.wait();
  });
  on.event(KEX, { registry }, ({ name }) => events.add(String(name)));
  const op = await startOperator(registry);
  try {
    cluster.create(kex("other"));
    await events.until(1, (e) => e === "other");
    cluster.create(kex("mine", {}, { metadata: { labels: { run: "yes" } } }));
    await calls.until(1);
    await cluster.waitFor(
      KEX,
      "mine",
      (b) => b?.metadata?.finalizers?.includes(FINALIZER) ?? false,
    );
    assertEquals(cluster.get(KEX, "other")?.metadata?.finalizers, undefined);
    const patched = cluster.requests.filter((r) =>
      r.method === "PATCH" && r.path.endsWith("/other")
    );
    assertEquals(patched.length, 0);
  } finally {
    await op.stop();
  }
});

Deno.test("a daemon that ignores the stop-flag is abandoned after its cancellation timeout", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  let release!: () => void;
  const forever = new Promise<void>((resolve) => (release = resolve));
  daemon(
    KEX,
    { registry, cancellationBackoff: 0.1, cancellationTimeout: 0.2 },
    async function stubborn() {
      calls.add("start");
      await forever;
      calls.add("exit");
    },
  );
  const op = await startOperator(registry);
  try {
    cluster.create(kex("kex1"));
    await calls.until(1);
    await cluster.waitFor(
      KEX,
      "kex1",
      (b) => b?.metadata?.finalizers?.includes(FINALIZER) ?? false,
    );
    const deleted = performance.now();
    cluster.delete(KEX, "kex1");
    await cluster.waitFor(KEX, "kex1", (b) => b === undefined);
    const took = performance.now() - deleted;
    assert(took >= 290, `released after the backoff and the timeout (${took} ms)`);
    assertEquals(calls.list, ["start"], "released while the daemon still runs");
    assert(LOGS.some((l) => l.includes("Daemon 'stubborn' did not exit in time")));
  } finally {
    release();
    await op.stop();
  }
});

Deno.test("waiting for a deleted object's daemons does not hold the only worker's place", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  let release!: () => void;
  const slowExit = new Promise<void>((resolve) => (release = resolve));
  daemon(KEX, { registry, labels: { slow: "yes" } }, async function slow({ stopped }) {
    calls.add("start");
    await stopped.wait();
    calls.add("stopping");
    await slowExit; // exits only when the test says so
    calls.add("exit");
  });
  on.create(KEX, { registry }, ({ name }) => calls.add(`created ${name}`));
  const settings = testSettings({
    batching: { workerLimit: 1 },
    background: { cancellationPolling: 30 },
  });
  const op = await startOperator(registry, { settings });
  try {
    cluster.create(kex("slow", {}, { metadata: { labels: { slow: "yes" } } }));
    await calls.until(1, (c) => c === "start");
    await cluster.waitFor(
      KEX,
      "slow",
      (b) => b?.metadata?.finalizers?.includes(FINALIZER) ?? false,
    );
    cluster.delete(KEX, "slow");
    await calls.until(1, (c) => c === "stopping"); // the deletion's processing waits for it
    cluster.create(kex("other"));
    await calls.until(1, (c) => c === "created other", 5); // long before the 30 s polling
    assert(cluster.get(KEX, "slow") !== undefined, "still held while its daemon exits");
    release();
    await cluster.waitFor(KEX, "slow", (b) => b === undefined);
    assert(calls.list.includes("exit"));
  } finally {
    release();
    await op.stop();
  }
});

Deno.test("at the operator's exit, daemons are stopped and waited for within the exit timeout", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  let release!: () => void;
  const forever = new Promise<void>((resolve) => (release = resolve));
  daemon(KEX, { registry }, async function polite({ stopped }) {
    await stopped.wait();
    calls.add(`polite ${stopped.reason}`);
  });
  daemon(KEX, { registry }, async function deaf() {
    calls.add("deaf start");
    await forever;
  });
  const op = await startOperator(registry, {
    settings: testSettings({ batching: { exitTimeout: 0.3 } }),
  });
  cluster.create(kex("kex1"));
  await calls.until(1, (c) => c === "deaf start");
  const stopping = performance.now();
  await op.stop();
  const took = performance.now() - stopping;
  release();
  assert(calls.list.includes("polite operator-exiting"), "stopped with the exit's reason");
  assert(took < 2000, `the exit is not held by a daemon that ignores it (${took} ms)`);
  assert(LOGS.some((l) => l.includes("Daemon 'deaf' did not exit within")));
});
