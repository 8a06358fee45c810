/**
 * Timers in a real operator against the fake cluster over HTTP: the interval, results and
 * patches, idling until the object is quiet, the initial delay, errors that do not break
 * the schedule, permanent failures that end it, and deletion together with delete handlers.
 */
import { assert, assertEquals } from "../assert.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { PermanentError } from "../../src/structs/errors.ts";
import { daemon, on, timer } from "../../src/intents/registration.ts";
import { Calls, clusterRegistry, FINALIZER, kex, startCluster, startOperator } from "./harness.ts";

const KEX = "kopfexamples";

const status = (b?: RawBody) => (b?.status ?? {}) as Record<string, unknown>;

Deno.test("a timer runs at its interval, stores its results, applies its patch, ends on deletion", async () => {
  await using cluster = await startCluster({ status: true });
  const registry = clusterRegistry(cluster);
  const ticks = new Calls<number>();
  timer(KEX, { registry, interval: 0.1 }, function tick({ patch, spec }) {
    ticks.add(performance.now());
    patch.status.field = spec.field;
    return ticks.list.length;
  });
  const op = await startOperator(registry);
  try {
    cluster.create(kex("kex1"));
    await ticks.until(4);
    for (let i = 1; i < ticks.list.length; i++) {
      const gap = ticks.list[i] - ticks.list[i - 1];
      assert(gap >= 95, `the interval passes between runs (${gap} ms)`);
    }
    const body = await cluster.waitFor(KEX, "kex1", (b) => Number(status(b).tick) >= 4);
    assertEquals(status(body).field, "value");
    assert(body?.metadata?.finalizers?.includes(FINALIZER), "the timer holds the object");

    cluster.delete(KEX, "kex1");
    await cluster.waitFor(KEX, "kex1", (b) => b === undefined);
    const count = ticks.list.length;
    await new Promise((resolve) => setTimeout(resolve, 250));
    assertEquals(ticks.list.length, count, "no runs after the object is gone");
  } finally {
    await op.stop();
  }
});

Deno.test("an idling timer waits until the object has been quiet for its idle time", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const runs = new Calls<{ at: number; field: unknown }>();
  timer(KEX, { registry, idle: 0.3 }, function quiet({ spec }) {
    runs.add({ at: performance.now(), field: spec.field });
  });
  const op = await startOperator(registry);
  try {
    const changed: Record<string, number> = { value: performance.now() };
    cluster.create(kex("kex1"));
    for (let i = 0; i < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      changed[`v${i}`] = performance.now();
      cluster.patch(KEX, "kex1", { spec: { field: `v${i}` } });
    }
    await runs.until(1);
    // Whatever state it saw, it ran only after that state had been quiet for the idle time
    // (had changes not restarted the quiet period, it would have run among the patches).
    const first = runs.list[0];
    const quiet = first.at - changed[String(first.field)];
    assert(quiet >= 290, `ran ${quiet} ms after the change to ${first.field}`);
    // Without an interval: once per quiet period; a change starts another one.
    await new Promise((resolve) => setTimeout(resolve, 400));
    assertEquals(runs.list.length, 1);
    cluster.patch(KEX, "kex1", { spec: { field: "again" } });
    await runs.until(2);
    assertEquals(runs.list[1].field, "again");
  } finally {
    await op.stop();
  }
});

Deno.test("a timer's initial delay postpones its first run only", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const runs = new Calls<number>();
  timer(KEX, { registry, interval: 0.05, initialDelay: 0.4 }, function late() {
    runs.add(performance.now());
  });
  const op = await startOperator(registry);
  try {
    const created = performance.now();
    cluster.create(kex("kex1"));
    await runs.until(3);
    assert(runs.list[0] - created >= 390, `first run after ${runs.list[0] - created} ms`);
    assert(runs.list[2] - runs.list[0] < 780, "later runs keep to the interval");
  } finally {
    await op.stop();
  }
});

Deno.test("errors do not break a timer's schedule; a permanent failure ends it", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const flaky = new Calls<number>();
  const broken = new Calls<number>();
  timer(KEX, { registry, interval: 0.1, backoff: 0.05 }, function unstable({ retry }) {
    flaky.add(retry);
    if (retry === 0) throw new Error("every first attempt fails");
  });
  timer(KEX, { registry, interval: 0.05 }, function fatal({ retry }) {
    broken.add(retry);
    throw new PermanentError("never again");
  });
  const op = await startOperator(registry);
  try {
    cluster.create(kex("kex1"));
    await flaky.until(6);
    assertEquals(flaky.list.slice(0, 6), [0, 1, 0, 1, 0, 1]);
    assertEquals(broken.list, [0]);
  } finally {
    await op.stop();
  }
});

Deno.test("with delete handlers, they run after the daemons and timers have exited", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create(KEX, { registry }, () => calls.add("create"));
  on.delete(KEX, { registry }, () => calls.add("delete"));
  daemon(KEX, { registry }, async function watcher({ stopped }) {
    await stopped.wait();
    await new Promise((resolve) => setTimeout(resolve, 100));
    calls.add("daemon exited");
  });
  timer(KEX, { registry, interval: 0.05 }, () => {});
  const op = await startOperator(registry);
  try {
    cluster.create(kex("kex1"));
    await calls.until(1, (c) => c === "create");
    await cluster.waitFor(
      KEX,
      "kex1",
      (b) => b?.metadata?.finalizers?.includes(FINALIZER) ?? false,
    );
    cluster.delete(KEX, "kex1");
    await cluster.waitFor(KEX, "kex1", (b) => b === undefined);
    assertEquals(calls.list, ["create", "daemon exited", "delete"]);
  } finally {
    await op.stop();
  }
});
