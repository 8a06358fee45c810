/**
 * Watches with selectors, as kube-apiserver's cacher sends them (cacher/cache_watcher.go,
 * `convertToWatchEvent`): an object that starts to match is `ADDED`, one that stops matching
 * is `DELETED` with its previous content at the new resourceVersion, one that matches before
 * and after is `MODIFIED`, a real deletion is `DELETED` — over HTTP, for label and field
 * selectors, metadata-only and Table watches, live and replayed alike.
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import type { RawBody } from "../../../src/structs/bodies.ts";
import { assert, assertEquals } from "../../assert.ts";
import { configMap, watch } from "./helpers.ts";

const CMS = "/api/v1/namespaces/default/configmaps";
const PODS = "/api/v1/namespaces/default/pods";
const METADATA = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
const TABLE = "application/json;as=Table;g=meta.k8s.io;v=v1";

/** Every touch changes something (a patch that changes nothing sends no event). */
let touches = 0;

/** One way to make an object stop matching, match again, and change while it matches. */
interface Case {
  readonly path: string;
  readonly make: (cluster: FakeCluster) => RawBody;
  readonly leave: (cluster: FakeCluster) => RawBody;
  readonly enter: (cluster: FakeCluster) => RawBody;
  readonly touch: (cluster: FakeCluster) => RawBody;
  /** What shows, in a delivered object, that it is the matching content. */
  readonly matching: (object: RawBody) => boolean;
  readonly resource: "configmaps" | "pods";
}

const BY_LABEL: Case = {
  resource: "configmaps",
  path: `${CMS}?watch=true&labelSelector=app%3Ddemo`,
  make: (c) => c.create(configMap("x", { k: "1" }, { labels: { app: "demo" } })),
  leave: (c) => c.patch("configmaps", "x", { metadata: { labels: { app: null } } }),
  enter: (c) => c.patch("configmaps", "x", { metadata: { labels: { app: "demo" } } }),
  touch: (c) => c.patch("configmaps", "x", { data: { k: String(++touches) } }),
  matching: (o) => o.metadata?.labels?.app === "demo",
};

const phase = (value: string) => ({ status: { phase: value } });
const BY_FIELD: Case = {
  resource: "pods",
  path: `${PODS}?watch=true&fieldSelector=status.phase%3DPending`,
  make: (c) => {
    c.create({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "x" },
      spec: { containers: [{ name: "main", image: "busybox" }] },
    });
    return c.patch("pods", "x", phase("Pending"), { subresource: "status" });
  },
  leave: (c) => c.patch("pods", "x", phase("Running"), { subresource: "status" }),
  enter: (c) => c.patch("pods", "x", phase("Pending"), { subresource: "status" }),
  touch: (c) => c.patch("pods", "x", { metadata: { labels: { touched: String(++touches) } } }),
  matching: (o) => (o as { status?: { phase?: string } }).status?.phase === "Pending",
};

/** The object of an event, whatever the watch renders it as (a Table's row holds it). */
function objectOf(event: { object: RawBody & { rows?: { object: RawBody }[] } }): RawBody {
  return event.object.kind === "Table" ? event.object.rows![0].object : event.object;
}

/**
 * Leave, touch outside, come back, touch inside, delete: the events and their versions.
 * `replay` watches from before the changes instead of live.
 */
async function leaving(test: Case, accept?: string, replay = false): Promise<void> {
  await using cluster = await FakeCluster.start();
  const made = test.make(cluster);
  const since = made.metadata!.resourceVersion!;
  const headers: Record<string, string> = accept === undefined ? {} : { accept };
  const open = () => watch(cluster, `${test.path}&resourceVersion=${since}`, headers);
  let stream = replay ? undefined : await open();
  const left = test.leave(cluster);
  test.touch(cluster); // outside the selection: nothing
  const back = test.enter(cluster);
  const touched = test.touch(cluster);
  const last = cluster.delete(test.resource, "x");
  assertEquals(last, undefined, "deleted at once");
  stream ??= await open();
  const events = await stream.take(4);
  await stream.close();
  const objects = events.map(objectOf);
  assertEquals(events.map((e) => e.type), ["DELETED", "ADDED", "MODIFIED", "DELETED"]);
  // The previous content, which still matches, stamped with the change's version.
  // (A Pod's phase is not in its metadata: metadata-only events show versions only.)
  const shows = accept !== METADATA || test.resource === "configmaps";
  if (shows) assert(test.matching(objects[0]), "a leaving's DELETED has the previous content");
  assertEquals(objects[0].metadata?.resourceVersion, left.metadata?.resourceVersion);
  assertEquals(objects[0].metadata?.uid, made.metadata?.uid);
  assertEquals(objects[1].metadata?.resourceVersion, back.metadata?.resourceVersion);
  assertEquals(objects[2].metadata?.resourceVersion, touched.metadata?.resourceVersion);
  if (shows) assert(test.matching(objects[3]));
  assert(Number(objects[3].metadata?.resourceVersion) > Number(touched.metadata?.resourceVersion));
  if (accept === METADATA) {
    for (const event of events) assertEquals(event.object.kind, "PartialObjectMetadata");
  }
  if (accept === TABLE) { for (const event of events) assertEquals(event.object.kind, "Table"); }
}

Deno.test("label selector: leaving is DELETED with the previous content; back is ADDED; inside is MODIFIED", async () => {
  await leaving(BY_LABEL);
});

Deno.test("field selector: the same, a Pod leaving and re-entering status.phase=Pending", async () => {
  await leaving(BY_FIELD);
});

Deno.test("metadata-only watches (as=PartialObjectMetadata) get the same events", async () => {
  await leaving(BY_LABEL, METADATA);
  await leaving(BY_FIELD, METADATA);
});

Deno.test("Table watches get the same events, the row holding the previous content", async () => {
  await leaving(BY_LABEL, TABLE);
});

Deno.test("a replay from an older resourceVersion gives the same events as live", async () => {
  await leaving(BY_LABEL, undefined, true);
  await leaving(BY_FIELD, METADATA, true);
});

Deno.test("the stored object is not changed by the DELETED sent for its previous state", async () => {
  await using cluster = await FakeCluster.start();
  const made = BY_LABEL.make(cluster);
  const stream = await watch(
    cluster,
    `${BY_LABEL.path}&resourceVersion=${made.metadata!.resourceVersion}`,
  );
  const left = BY_LABEL.leave(cluster);
  const [event] = await stream.take(1);
  await stream.close();
  assertEquals(event.object.metadata.labels, { app: "demo" });
  const now = cluster.get("configmaps", "x")!;
  assertEquals(now.metadata?.labels, undefined);
  assertEquals(now.metadata?.resourceVersion, left.metadata?.resourceVersion);
  // A later watch from before the change replays the same previous content.
  const again = await watch(
    cluster,
    `${BY_LABEL.path}&resourceVersion=${made.metadata!.resourceVersion}`,
  );
  const [replayed] = await again.take(1);
  await again.close();
  assertEquals(replayed, event);
});
