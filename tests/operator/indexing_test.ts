/**
 * Indices in a real operator against the fake cluster over HTTP: an index of pods by a
 * label, seen by the handlers of another resource; creations, changes and deletions of
 * pods reflected; the handlers waiting until the objects listed at start are indexed;
 * filters; the error modes of indexing functions; nothing written to indexed objects.
 */
import { assert, assertEquals } from "../assert.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { PermanentError, TemporaryError } from "../../src/structs/errors.ts";
import type { Index } from "../../src/structs/indices.ts";
import { index, on, timer } from "../../src/intents/registration.ts";
import {
  Calls,
  clusterRegistry,
  kex,
  startCluster,
  startOperator,
  testSettings,
} from "./harness.ts";

const KEX = "kopfexamples";

function pod(name: string, labels: Record<string, string> = {}): RawBody {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default", labels },
    spec: { containers: [{ name: "main", image: "busybox" }] },
  };
}

type ByApp = { podsByApp: Index<string, string> };

/** The index as plain data: key → sorted values. */
function snapshot(idx: Index): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [key, store] of idx) out[JSON.stringify(key)] = [...store].sort();
  return out;
}

/** An index's contents as `kopf.on.event` handlers saw them (after each indexing). */
type Snap = Record<string, unknown[]>;
const has = (expected: Snap) => (snap: Snap) => JSON.stringify(snap) === JSON.stringify(expected);

Deno.test("an index of pods by a label is seen by another resource's handlers and follows the pods", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const runs = new Calls<unknown>();
  index("v1", "pods", { registry }, function podsByApp({ labels, name }) {
    runs.add(name);
    return labels.app === undefined ? undefined : { [labels.app]: name };
  });
  const seen = new Calls<Record<string, unknown[]>>();
  on.create(KEX, { registry }, function create({ podsByApp }: ByApp) {
    seen.add(snapshot(podsByApp));
  });
  let live: Index | undefined;
  timer(KEX, { registry, interval: 60 }, function keep({ podsByApp }: ByApp) {
    live = podsByApp;
  });
  const after = new Calls<Snap>(); // event handlers of pods run after the pod is indexed
  on.event("v1", "pods", { registry }, function watch({ podsByApp }: ByApp) {
    after.add(snapshot(podsByApp));
  });
  const op = await startOperator(registry);
  try {
    cluster.create(pod("p1", { app: "web" }));
    cluster.create(pod("p2", { app: "web" }));
    cluster.create(pod("p3", { app: "db" }));
    cluster.create(pod("p4")); // no key: not indexed
    await runs.until(4);
    cluster.create(kex("kex1"));
    await seen.until(1);
    assertEquals(seen.list[0], { '"web"': ["p1", "p2"], '"db"': ["p3"] });

    // Changes and deletions are reflected.
    cluster.patch("pods", "p1", { metadata: { labels: { app: "db" } } }, { namespace: "default" });
    await after.until(1, has({ '"web"': ["p2"], '"db"': ["p1", "p3"] }));
    cluster.delete("pods", "p2", { namespace: "default" });
    await after.until(1, has({ '"db"': ["p1", "p3"] }));
    // The timer holds the very same index object, live.
    assert(live !== undefined && live.size === 1 && live.get("db")?.size === 2);
    assertEquals(live.has("web"), false);

    // Nothing is written to the indexed objects: no finalizers, no annotations, no status.
    const p3 = cluster.get("pods", "p3", { namespace: "default" });
    assertEquals(p3?.metadata?.finalizers, undefined);
    assertEquals(p3?.metadata?.annotations, undefined);
    assert(!cluster.requests.some((r) => r.method !== "GET" && r.path.includes("/pods")));
  } finally {
    await op.stop();
  }
});

Deno.test("handlers of the indexed resource see all objects listed at start already indexed", async () => {
  await using cluster = await startCluster();
  const names = Array.from({ length: 30 }, (_, i) => `kex${i}`);
  for (const name of names) cluster.create(kex(name, { group: name.length % 2 ? "a" : "b" }));
  const registry = clusterRegistry(cluster);
  index(KEX, { registry }, async function allKexes({ name }) {
    await new Promise((resolve) => setTimeout(resolve, 5)); // slower than the handling
    return name;
  });
  const sizes = new Calls<number>();
  on.event(KEX, { registry }, function watch({ allKexes }: { allKexes: Index<null, string> }) {
    sizes.add(allKexes.get(null)?.size ?? 0);
  });
  const op = await startOperator(registry);
  try {
    await sizes.until(names.length);
    assertEquals(new Set(sizes.list), new Set([names.length]));
  } finally {
    await op.stop();
  }
});

Deno.test("with one worker at a time, the objects waiting for the indices let the others in", async () => {
  await using cluster = await startCluster();
  for (let i = 0; i < 5; i++) cluster.create(kex(`kex${i}`));
  const registry = clusterRegistry(cluster);
  index(KEX, { registry }, function allKexes({ name }) {
    return name;
  });
  const sizes = new Calls<number>();
  on.event(KEX, { registry }, function watch({ allKexes }: { allKexes: Index<null, string> }) {
    sizes.add(allKexes.get(null)?.size ?? 0);
  });
  const settings = testSettings({ batching: { workerLimit: 1 } });
  const op = await startOperator(registry, { settings });
  try {
    await sizes.until(5);
    assertEquals(sizes.list, [5, 5, 5, 5, 5]);
  } finally {
    await op.stop();
  }
});

Deno.test("filters choose what is indexed; an object that stops matching leaves the index", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const runs = new Calls<unknown>();
  index(KEX, { registry, labels: { indexed: "yes" } }, function chosen({ name }) {
    runs.add(name);
    return { [String(name)]: true };
  });
  const after = new Calls<{ name: unknown; snap: Snap }>();
  on.event(KEX, { registry }, function watch({ chosen, name }: { chosen: Index; name?: string }) {
    after.add({ name, snap: snapshot(chosen) });
  });
  const op = await startOperator(registry);
  try {
    cluster.create(kex("kex1", {}, { metadata: { name: "kex1", labels: { indexed: "yes" } } }));
    await after.until(1, (a) => a.name === "kex1");
    cluster.create(kex("kex2"));
    await after.until(1, (a) => a.name === "kex2");
    assertEquals(after.list.at(-1)?.snap, { '"kex1"': [true] });
    cluster.patch(KEX, "kex1", { metadata: { labels: { indexed: "no" } } });
    await after.until(1, (a) => a.name === "kex1" && has({})(a.snap));
    assertEquals(runs.list, ["kex1"]);
  } finally {
    await op.stop();
  }
});

Deno.test("an ignored error keeps the stale values; a permanent one removes them for good", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const ignoredRuns = new Calls<unknown>();
  index(KEX, { registry }, function lenient({ spec }) {
    ignoredRuns.add(spec.field);
    if (spec.field === "bad") throw new Error("cannot index this");
    return spec.field;
  });
  const permanentRuns = new Calls<unknown>();
  index(KEX, { registry }, function strict({ spec }) {
    permanentRuns.add(spec.field);
    if (spec.field === "bad") throw new PermanentError("never again");
    return spec.field;
  });
  const after = new Calls<{ field: unknown; lenient: Snap; strict: Snap }>();
  on.event(KEX, { registry }, function watch(kw: { lenient: Index; strict: Index }) {
    const { spec } = kw as unknown as { spec: { field: unknown } };
    after.add({ field: spec.field, lenient: snapshot(kw.lenient), strict: snapshot(kw.strict) });
  });
  const op = await startOperator(registry);
  try {
    cluster.create(kex("kex1", { field: "good" }));
    await after.until(1, (a) => a.field === "good");
    assertEquals(after.list.at(-1), {
      field: "good",
      lenient: { null: ["good"] },
      strict: { null: ["good"] },
    });
    cluster.patch(KEX, "kex1", { spec: { field: "bad" } });
    await after.until(1, (a) => a.field === "bad");
    assertEquals(after.list.at(-1), {
      field: "bad",
      lenient: { null: ["good"] }, // the stale value stays
      strict: {}, // removed
    });
    cluster.patch(KEX, "kex1", { spec: { field: "fine" } });
    await after.until(1, (a) => a.field === "fine");
    assertEquals(after.list.at(-1), {
      field: "fine",
      lenient: { null: ["fine"] },
      strict: {}, // excluded for good
    });
    assertEquals(permanentRuns.list, ["good", "bad"], "never invoked again for the object");
    assertEquals(ignoredRuns.list, ["good", "bad", "fine"]);
  } finally {
    await op.stop();
  }
});

Deno.test("a temporary error removes the values and retries after its delay with the retry count", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const runs = new Calls<{ retry: number; field: unknown }>();
  index(KEX, { registry }, function flaky({ spec, retry }) {
    runs.add({ retry, field: spec.field });
    if (spec.field === "bad" && retry < 2) throw new TemporaryError("not yet", { delay: 0.1 });
    return spec.field;
  });
  const after = new Calls<Snap>();
  on.event(KEX, { registry }, function watch({ flaky }: { flaky: Index }) {
    after.add(snapshot(flaky));
  });
  const op = await startOperator(registry);
  try {
    cluster.create(kex("kex1", { field: "good" }));
    await after.until(1, has({ null: ["good"] }));
    cluster.patch(KEX, "kex1", { spec: { field: "bad" } });
    await after.until(1, has({})); // removed while excluded
    // Retried without any new event, after the delay, until it succeeds.
    await after.until(1, has({ null: ["bad"] }));
    assertEquals(runs.list.filter((r) => r.field === "bad").map((r) => r.retry), [0, 1, 2]);
  } finally {
    await op.stop();
  }
});
