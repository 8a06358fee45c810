/**
 * Events expire a TTL after their last write (`eventTtl`, as kube-apiserver's
 * `--event-ttl`): deleted for real, so that watchers see `DELETED` and a watch resumed from
 * before replays it; other objects never; the timer goes with the cluster.
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import { DEFAULT_EVENT_TTL, EventExpiry } from "../../../src/testing/fake_cluster/event_expiry.ts";
import { Store } from "../../../src/testing/fake_cluster/store.ts";
import { assert, assertEquals, assertRejects } from "../../assert.ts";
import { configMap, watch, type WatchEvent, type WatchReader } from "./helpers.ts";

const EVENTS = "/api/v1/namespaces/default/events";
const NEW_EVENTS = "/apis/events.k8s.io/v1/namespaces/default/events";

function coreEvent(name: string, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name, ...extra },
    involvedObject: { kind: "ConfigMap", name: "cm", namespace: "default" },
    reason: "Testing",
    message: `event ${name}`,
    type: "Normal",
  };
}

function newEvent(name: string) {
  return {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: { name },
    eventTime: new Date().toISOString(),
    reportingController: "kopf.dev/test",
    reportingInstance: "test",
    action: "Testing",
    reason: "Testing",
    regarding: { kind: "ConfigMap", name: "cm", namespace: "default" },
    type: "Normal",
  };
}

/** The next watch event, or a failure after `seconds` instead of a hang. */
async function nextWithin(reader: WatchReader, seconds = 10): Promise<WatchEvent> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no watch event within ${seconds} s`)),
      seconds * 1000,
    );
  });
  try {
    const event = await Promise.race([reader.next(), late]);
    if (event === undefined) throw new Error("the watch ended");
    return event;
  } finally {
    clearTimeout(timer);
  }
}

const rvOf = (event: WatchEvent) => Number(event.object.metadata.resourceVersion);

Deno.test("Events go a TTL after their last write: DELETED to watchers and in the history; other objects stay", async () => {
  await using cluster = await FakeCluster.start({ eventTtl: 0.3 });
  const core = await watch(cluster, `${EVENTS}?watch=true`);
  const modern = await watch(cluster, `${NEW_EVENTS}?watch=true`);
  try {
    cluster.create(configMap("cm"));
    // A finalizer does not hold it: etcd drops the key when the lease runs out.
    const created = performance.now();
    cluster.create(coreEvent("ev", { finalizers: ["example.com/keep"] }));
    cluster.create(newEvent("modern"));
    const from = cluster.resourceVersion; // after the creations: a resumed watch replays the rest

    const added = await nextWithin(core);
    assertEquals([added.type, added.object.metadata.name], ["ADDED", "ev"]);
    const deleted = await nextWithin(core);
    const lived = (performance.now() - created) / 1000;
    assertEquals([deleted.type, deleted.object.metadata.name], ["DELETED", "ev"]);
    assert(lived >= 0.3, `deleted after ${lived} s, before its TTL of 0.3 s`);
    assert(rvOf(deleted) > rvOf(added), "the deletion has a resourceVersion of its own");
    assertEquals(deleted.object.message, "event ev", "the last state");

    const modernEvents = [await nextWithin(modern), await nextWithin(modern)];
    assertEquals(modernEvents.map((e) => `${e.type} ${e.object.metadata.name}`), [
      "ADDED modern",
      "DELETED modern",
    ]);
    assertEquals(cluster.get("events", "ev"), undefined);
    assertEquals(cluster.list("events.events.k8s.io"), []);
    assertEquals(cluster.get("configmaps", "cm")?.metadata?.name, "cm");

    const resumed = await watch(cluster, `${EVENTS}?watch=true&resourceVersion=${from}`);
    try {
      const replayed = await nextWithin(resumed);
      assertEquals([replayed.type, rvOf(replayed)], ["DELETED", rvOf(deleted)]);
    } finally {
      await resumed.close();
    }
  } finally {
    await core.close();
    await modern.close();
  }
});

Deno.test("an updated Event lives a TTL from its last write, not from its creation", async () => {
  const ttl = 1;
  await using cluster = await FakeCluster.start({ eventTtl: ttl });
  const events = await watch(cluster, `${EVENTS}?watch=true`);
  try {
    cluster.create(coreEvent("updated")); // first: without the update, it would go first
    cluster.create(coreEvent("kept-as-is"));
    await nextWithin(events);
    await nextWithin(events);
    await new Promise((resolve) => setTimeout(resolve, ttl * 500));
    cluster.patch("events", "updated", { count: 2 });
    const updated = performance.now();
    const seen: string[] = [];
    while (seen.filter((s) => s.startsWith("DELETED")).length < 2) {
      const event = await nextWithin(events);
      seen.push(`${event.type} ${event.object.metadata.name}`);
    }
    const lived = (performance.now() - updated) / 1000;
    assertEquals(seen, ["MODIFIED updated", "DELETED kept-as-is", "DELETED updated"]);
    assert(lived >= ttl, `deleted ${lived} s after its update, before its TTL of ${ttl} s`);
  } finally {
    await events.close();
  }
});

Deno.test({
  name: "Events of a state file live a TTL from the start; the timer goes with the cluster",
  // On by name: a timer left by a stopped cluster fails the test.
  sanitizeOps: true,
  sanitizeResources: true,
}, async () => {
  const dir = await Deno.makeTempDir();
  try {
    const state = `${dir}/state.json`;
    {
      // The default TTL: the Event outlives this cluster, whose timer must not outlive it.
      await using first = await FakeCluster.start({ state });
      first.create(coreEvent("saved"));
    }
    await using second = await FakeCluster.start({ state, eventTtl: 0.2 });
    assertEquals(second.get("events", "saved")?.metadata?.name, "saved");
    assertEquals(await second.waitFor("events", "saved", (ev) => ev === undefined), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("eventTtl 0 keeps Events; a wrong one is refused with one line naming it", async () => {
  const store = new Store({ historySize: 10 });
  const kept = new EventExpiry(store, 0);
  const expiring = new EventExpiry(store, DEFAULT_EVENT_TTL);
  try {
    const event = { ...coreEvent("x"), metadata: { name: "x", namespace: "default" } };
    store.put("/events", event);
    store.put("/configmaps", configMap("cm"));
    assertEquals([kept.size, expiring.size], [0, 1]);
  } finally {
    kept.stop();
    expiring.stop();
  }
  for (const wrong of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
    await assertRejects(
      () => FakeCluster.start({ eventTtl: wrong }),
      Error,
      `FakeCluster's eventTtl must be a number of seconds, 0 or more (0: Events never expire), not ${wrong}.`,
    );
  }
});
