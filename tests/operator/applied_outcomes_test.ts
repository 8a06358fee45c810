/**
 * The framework's own writes by server-side apply (`settings.applying.outcomes`): a whole
 * lifecycle written under the operator's field manager as `Apply` entries only — results,
 * progress, diff-base, finalizer, conditions — with nothing left behind; objects handled
 * before by merge patches taken over without a stuck finalizer or a stale annotation.
 */
import { assert, assertEquals } from "../assert.ts";
import { on } from "../../src/intents/registration.ts";
import { TemporaryError } from "../../src/structs/errors.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import type { FakeCluster } from "../../src/testing/mod.ts";
import {
  Calls,
  clusterRegistry,
  DIFFBASE,
  FINALIZER,
  kex,
  startCluster,
  testSettings,
  whileRunning,
} from "./harness.ts";

interface Entry {
  manager: string;
  operation: string;
  subresource?: string;
  fieldsV1: Record<string, unknown>;
}

function entriesOf(body: RawBody | undefined): Entry[] {
  return (body?.metadata?.managedFields ?? []) as unknown as Entry[];
}

function applying(manager = "kopf") {
  return testSettings({ applying: { outcomes: true, fieldManager: manager } });
}

function get(cluster: FakeCluster, name: string): RawBody | undefined {
  return cluster.get("kopfexamples", name, { namespace: "default" });
}

function readyOf(body: RawBody | undefined): unknown {
  const conditions = (body?.status as { conditions?: { type: string; status: string }[] })
    ?.conditions;
  return conditions?.find((c) => c.type === "Ready")?.status;
}

Deno.test("outcomes by apply: a lifecycle is written as the operator's Apply entries only, and leaves nothing behind", async () => {
  await using cluster = await startCluster({ status: true });
  const registry = clusterRegistry(cluster);
  const calls = new Calls();
  let attempts = 0;
  on.create("kopfexamples", { registry }, function first() {
    calls.add("first");
    return { n: 1 };
  });
  on.create("kopfexamples", { registry }, function second() {
    calls.add("second");
    if (attempts++ === 0) throw new TemporaryError("not yet", { delay: 0.1 });
    return { n: 2 };
  });
  on.update("kopfexamples", { registry }, function changed() {
    calls.add("changed");
    return { n: 3 };
  });
  on.delete("kopfexamples", { registry }, function gone() {
    calls.add("gone");
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("a"));
    await cluster.waitFor(
      "kopfexamples",
      "a",
      (o) => o?.metadata?.annotations?.[DIFFBASE] !== undefined && readyOf(o) === "True",
    );
    let body = get(cluster, "a")!;
    assertEquals(body.metadata?.finalizers, [FINALIZER]);
    assertEquals((body.status as Record<string, unknown>).first, { n: 1 });
    assertEquals((body.status as Record<string, unknown>).second, { n: 2 });
    // The progress in the status is gone as well, and nothing else is left there.
    assertEquals(Object.keys(body.status ?? {}).sort(), [
      "conditions",
      "first",
      "observedGeneration",
      "second",
    ]);
    // No progress is left: the annotations were removed by leaving them out of the apply.
    assertEquals(Object.keys(body.metadata?.annotations ?? {}), [DIFFBASE]);
    const ours = entriesOf(body).filter((e) => e.manager === "kopf");
    assertEquals(ours.map((e) => [e.operation, e.subresource ?? ""]).sort(), [["Apply", ""], [
      "Apply",
      "status",
    ]]);
    const main = ours.find((e) => !e.subresource)!.fieldsV1;
    assertEquals(main, {
      "f:metadata": {
        "f:annotations": { [`f:${DIFFBASE}`]: {} },
        "f:finalizers": { [`v:"${FINALIZER}"`]: {} },
      },
    });
    const status = ours.find((e) => e.subresource === "status")!.fieldsV1["f:status"] as Record<
      string,
      unknown
    >;
    assert(
      "f:first" in status && "f:second" in status && "f:conditions" in status &&
        "f:observedGeneration" in status,
      JSON.stringify(status),
    );

    cluster.patch("kopfexamples", "a", { spec: { field: "new" } }, { namespace: "default" });
    await calls.until(1, (c) => c === "changed");
    await cluster.waitFor(
      "kopfexamples",
      "a",
      (o) =>
        (o?.status as Record<string, unknown>)?.changed !== undefined && readyOf(o) === "True" &&
        JSON.parse(String(o?.metadata?.annotations?.[DIFFBASE])).spec.field === "new",
    );
    body = get(cluster, "a")!;
    // Results of earlier cycles are restated, not lost.
    assertEquals((body.status as Record<string, unknown>).first, { n: 1 });
    assertEquals((body.status as Record<string, unknown>).changed, { n: 3 });

    cluster.delete("kopfexamples", "a", { namespace: "default" });
    await calls.until(1, (c) => c === "gone");
    await cluster.waitFor("kopfexamples", "a", (o) => o === undefined);
  }, { settings: applying() });
  // Every write of the operator to the object was an apply: no Update entry of it.
  const patches = cluster.requests.filter((r) =>
    r.method === "PATCH" && r.path.includes("/kopfexamples/a")
  );
  assert(
    patches.every((r) => r.query.includes("fieldManager=kopf") && r.query.includes("force=true")),
    JSON.stringify(patches.map((r) => r.query)),
  );
});

Deno.test("outcomes by apply: an object handled before by merge patches is taken over; its finalizer and progress still go", async () => {
  await using cluster = await startCluster({ status: true });
  const registry = clusterRegistry(cluster);
  const calls = new Calls();
  let fail = true;
  on.create("kopfexamples", { registry }, function slow() {
    calls.add("slow");
    if (fail) throw new TemporaryError("later", { delay: 0.2 });
    return { n: 1 };
  });
  on.delete("kopfexamples", { registry }, function gone() {
    calls.add("gone");
  });
  // Merge patches first: the finalizer (a JSON Patch) and the progress annotation.
  await whileRunning(registry, async () => {
    cluster.create(kex("m"));
    await cluster.waitFor(
      "kopfexamples",
      "m",
      (o) => o?.metadata?.annotations?.["kopf.zalando.org/slow"] !== undefined,
    );
  });
  const before = get(cluster, "m")!;
  assertEquals(before.metadata?.finalizers, [FINALIZER]);
  assert(entriesOf(before).every((e) => e.operation !== "Apply"));
  fail = false;
  await whileRunning(registry, async () => {
    // The progress written by a merge patch is gone too: removed apart, by a merge patch,
    // after the apply that stored the diff-base (so that a stop in between re-runs nothing).
    await cluster.waitFor(
      "kopfexamples",
      "m",
      (o) => Object.keys(o?.metadata?.annotations ?? {}).join() === DIFFBASE,
    );
    assertEquals(readyOf(get(cluster, "m")), "True");
    cluster.delete("kopfexamples", "m", { namespace: "default" });
    await calls.until(1, (c) => c === "gone");
    // The finalizer, added by a JSON Patch, is removed though the apply does not own it.
    await cluster.waitFor("kopfexamples", "m", (o) => o === undefined);
  }, { settings: applying() });
});

Deno.test("outcomes by apply: a timer's patch is merged under the field manager, and the cycles' applies keep it", async () => {
  await using cluster = await startCluster({ status: true });
  const registry = clusterRegistry(cluster);
  const calls = new Calls();
  let ticks = 0;
  on.timer("kopfexamples", { registry, id: "tick", interval: 0.05 }, ({ patch }) => {
    patch.status.ticks = ++ticks;
    calls.add("tick");
  });
  on.update("kopfexamples", { registry, id: "changed" }, () => {
    calls.add("changed");
    return { n: 1 };
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("t"));
    await cluster.waitFor(
      "kopfexamples",
      "t",
      (o) =>
        typeof (o?.status as Record<string, unknown>)?.ticks === "number" &&
        o?.metadata?.annotations?.[DIFFBASE] !== undefined,
    );
    cluster.patch("kopfexamples", "t", { spec: { field: "new" } }, { namespace: "default" });
    await calls.until(1, (c) => c === "changed");
    await cluster.waitFor(
      "kopfexamples",
      "t",
      (o) => (o?.status as Record<string, unknown>)?.changed !== undefined,
    );
    // More ticks, merged beside the cycles' applies.
    const seen = ticks;
    await cluster.waitFor(
      "kopfexamples",
      "t",
      (o) => Number((o?.status as Record<string, unknown>)?.ticks) > seen + 1,
    );
  }, { settings: applying() });
  const body = get(cluster, "t")!;
  const status = body.status as Record<string, unknown>;
  assert(typeof status.ticks === "number" && status.changed !== undefined, "both kept");
  const update = entriesOf(body).find((e) =>
    e.manager === "kopf" && e.operation === "Update" && e.subresource === "status"
  );
  assert(update !== undefined, JSON.stringify(entriesOf(body)));
  assert("f:ticks" in (update.fieldsV1["f:status"] as Record<string, unknown>));
});
