/**
 * Metadata-only renderings of the fake API server, as kube-apiserver sends them: the
 * negotiation of `Accept` (order, `q`, the group and version a transformation needs),
 * `PartialObjectMetadataList` lists with their list metadata across pages, single objects,
 * and watches of `PartialObjectMetadata` — from a version, streamed with the annotated end
 * bookmark, with selectors that objects leave and enter — and the 406s for a list's
 * rendering of one object and the other way round.
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import { negotiateRendering } from "../../../src/testing/fake_cluster/renderings.ts";
import { ApiError } from "../../../src/testing/fake_cluster/errors.ts";
import { Store } from "../../../src/testing/fake_cluster/store.ts";
import { WatchHub } from "../../../src/testing/fake_cluster/watch.ts";
import { EVERYTHING } from "../../../src/testing/fake_cluster/selectors.ts";
import { builtinTypes } from "../../../src/catalog/builtin_types.ts";
import { typeKey } from "../../../src/catalog/resource_types.ts";
import { assert, assertEquals, assertThrows } from "../../assert.ts";
import { call, configMap, watch } from "./helpers.ts";

const CMS = "/api/v1/namespaces/default/configmaps";
/** What client-go's metadata client sends, protobuf first. */
const GO_LIST =
  "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1," +
  "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
const GO_OBJECT =
  "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1," +
  "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";
const META = { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1" };

Deno.test("Accept negotiation: the first served media type by preference; transformations need meta.k8s.io v1", () => {
  const of = (accept: string | null) => negotiateRendering(accept, true);
  assertEquals(of(null).rendering, "object");
  assertEquals(of("*/*").rendering, "object");
  assertEquals(of(GO_LIST).rendering, "PartialObjectMetadataList");
  assertEquals(of(GO_OBJECT), {
    rendering: "PartialObjectMetadata",
    metaApiVersion: "meta.k8s.io/v1",
  });
  // Plain JSON first wins; a lower q loses to a plain one.
  assertEquals(of(`application/json,${GO_OBJECT}`).rendering, "object");
  assertEquals(
    of("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1;q=0.5,application/json")
      .rendering,
    "object",
  );
  assertEquals(
    of("application/json;q=0.5,application/json;as=Table;g=meta.k8s.io;v=v1").rendering,
    "Table",
  );
  // Without the group and version, a transformation is skipped, as the server skips it.
  assertEquals(
    of("application/json;as=PartialObjectMetadata,application/json").rendering,
    "object",
  );
  assertEquals(
    of("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1"),
    { rendering: "PartialObjectMetadata", metaApiVersion: "meta.k8s.io/v1beta1" },
  );
  const refused = assertThrows(() => of("application/json;as=PartialObjectMetadata"), ApiError);
  assertEquals([refused.code, refused.reason], [406, "NotAcceptable"]);
  assertThrows(() => of("application/json;as=Pod;g=meta.k8s.io;v=v1"), ApiError);
  // Media types the fake cluster does not write get JSON, as before.
  assertEquals(of("application/yaml").rendering, "object");
});

Deno.test("PartialObjectMetadataList: list metadata (resourceVersion, continue, remainingItemCount) on every page", async () => {
  await using cluster = await FakeCluster.start();
  for (const name of ["a", "b", "c", "d", "e"]) {
    cluster.create(configMap(name, { secret: "x" }, { labels: { app: "web" } }));
  }
  const accept = { accept: GO_LIST };
  const first = await call(cluster, "GET", `${CMS}?limit=2`, undefined, accept);
  assertEquals(first.status, 200);
  assertEquals([first.body.kind, first.body.apiVersion], [
    "PartialObjectMetadataList",
    "meta.k8s.io/v1",
  ]);
  const rv = first.body.metadata.resourceVersion;
  assert(rv);
  assertEquals(first.body.metadata.remainingItemCount, 3);
  assert(first.body.metadata.continue);
  assertEquals(first.body.items.map((i: { kind: string }) => i.kind), [META.kind, META.kind]);
  for (const item of first.body.items) {
    assertEquals(Object.keys(item).sort(), ["apiVersion", "kind", "metadata"]);
    assertEquals(item.metadata.labels, { app: "web" });
    assert(item.metadata.uid && item.metadata.resourceVersion && item.metadata.creationTimestamp);
  }
  cluster.create(configMap("later"));
  const token = encodeURIComponent(first.body.metadata.continue);
  const second = await call(cluster, "GET", `${CMS}?limit=2&continue=${token}`, undefined, accept);
  assertEquals(second.body.kind, "PartialObjectMetadataList");
  assertEquals(second.body.metadata.resourceVersion, rv);
  assertEquals(second.body.items.map((i: { metadata: { name: string } }) => i.metadata.name), [
    "c",
    "d",
  ]);
  const token2 = encodeURIComponent(second.body.metadata.continue);
  const last = await call(cluster, "GET", `${CMS}?limit=2&continue=${token2}`, undefined, accept);
  assertEquals(last.body.items.map((i: { metadata: { name: string } }) => i.metadata.name), ["e"]);
  assertEquals(last.body.metadata.continue, undefined);
  assertEquals(last.body.metadata.resourceVersion, rv);
  const beta = await call(cluster, "GET", CMS, undefined, {
    accept: "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1",
  });
  assertEquals(beta.body.apiVersion, "meta.k8s.io/v1beta1");
  assertEquals(beta.body.items[0].apiVersion, "meta.k8s.io/v1beta1");
});

Deno.test("a list's rendering of one object and one object's rendering of a list are 406", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(configMap("a"));
  const list = await call(cluster, "GET", CMS, undefined, { accept: GO_OBJECT });
  assertEquals([list.status, list.body.reason], [406, "NotAcceptable"]);
  assert(list.body.message.includes("is a list"));
  const one = await call(cluster, "GET", `${CMS}/a`, undefined, { accept: GO_LIST });
  assertEquals([one.status, one.body.reason], [406, "NotAcceptable"]);
  const watched = await call(cluster, "GET", `${CMS}?watch=true`, undefined, { accept: GO_LIST });
  assertEquals(watched.status, 406);
  const got = await call(cluster, "GET", `${CMS}/a`, undefined, { accept: GO_OBJECT });
  assertEquals([got.status, got.body.kind, got.body.data], [200, META.kind, undefined]);
  const unknown = await call(cluster, "GET", CMS, undefined, {
    accept: "application/json;as=PartialObjectMetadataList",
  });
  assertEquals([unknown.status, unknown.body.reason], [406, "NotAcceptable"]);
});

Deno.test("a metadata watch from a version: every event and bookmark is PartialObjectMetadata", async () => {
  await using cluster = await FakeCluster.start({ bookmarkInterval: 0.05 });
  cluster.create(configMap("a", { secret: "x" }));
  const from = cluster.resourceVersion;
  cluster.patch("configmaps", "a", { data: { secret: "y" } });
  const stream = await watch(
    cluster,
    `${CMS}?watch=true&resourceVersion=${from}&allowWatchBookmarks=true`,
    { accept: GO_OBJECT },
  );
  const [replayed] = await stream.take(1);
  assertEquals(replayed.type, "MODIFIED");
  assertEquals({ kind: replayed.object.kind, apiVersion: replayed.object.apiVersion }, META);
  assertEquals(Object.keys(replayed.object).sort(), ["apiVersion", "kind", "metadata"]);
  cluster.delete("configmaps", "a");
  const [deleted] = await stream.take(1);
  assertEquals([deleted.type, deleted.object.kind, deleted.object.metadata.name], [
    "DELETED",
    META.kind,
    "a",
  ]);
  let bookmark = await stream.next();
  while (bookmark?.type !== "BOOKMARK") bookmark = await stream.next();
  assertEquals({ kind: bookmark.object.kind, apiVersion: bookmark.object.apiVersion }, META);
  assertEquals(bookmark.object.metadata.resourceVersion, cluster.resourceVersion);
  await stream.close();
});

Deno.test("a streamed metadata listing: ADDED metadata, the annotated end bookmark as PartialObjectMetadata, live events", async () => {
  await using cluster = await FakeCluster.start();
  for (const name of ["a", "b"]) cluster.create(configMap(name, { secret: "x" }));
  const rv = cluster.resourceVersion;
  const stream = await watch(
    cluster,
    `${CMS}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
    { accept: GO_OBJECT },
  );
  const [a, b, end] = await stream.take(3);
  assertEquals([a.type, a.object.kind, a.object.metadata.name], ["ADDED", META.kind, "a"]);
  assertEquals([b.type, b.object.data], ["ADDED", undefined]);
  assertEquals(end.type, "BOOKMARK");
  assertEquals(end.object, {
    ...META,
    metadata: { resourceVersion: rv, annotations: { "k8s.io/initial-events-end": "true" } },
  });
  cluster.create(configMap("c"));
  const [live] = await stream.take(1);
  assertEquals([live.type, live.object.kind, live.object.metadata.name], ["ADDED", META.kind, "c"]);
  await stream.close();
});

Deno.test("a metadata watch with selectors: objects leaving are DELETED, entering are ADDED, as metadata", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(configMap("a", {}, { labels: { app: "web" } }));
  cluster.create(configMap("b", {}, { labels: { app: "db" } }));
  const stream = await watch(
    cluster,
    `${CMS}?watch=true&resourceVersion=${cluster.resourceVersion}&labelSelector=app%3Dweb` +
      "&fieldSelector=metadata.namespace%3Ddefault",
    { accept: GO_OBJECT },
  );
  cluster.patch("configmaps", "a", { metadata: { labels: { app: "gone" } } });
  cluster.patch("configmaps", "b", { metadata: { labels: { app: "web" } } });
  cluster.patch("configmaps", "b", { data: { more: "x" } });
  const events = await stream.take(3);
  assertEquals(events.map((e) => `${e.type}/${e.object.metadata.name}`), [
    "DELETED/a",
    "ADDED/b",
    "MODIFIED/b",
  ]);
  for (const event of events) {
    assertEquals({ kind: event.object.kind, apiVersion: event.object.apiVersion }, META);
    assertEquals(event.object.data, undefined);
  }
  // As kube-apiserver's cacher sends it: the previous content, at the change's version.
  assertEquals(events[0].object.metadata.labels, { app: "web" });
  const next = Number(events[1].object.metadata.resourceVersion);
  assertEquals(events[0].object.metadata.resourceVersion, String(next - 1), "a's change's version");
  await stream.close();
});

Deno.test("metadata watchers share one serialised line per change, cached beside the plain one", async () => {
  const store = new Store({ historySize: 10 });
  const hub = new WatchHub(store, 60);
  const type = builtinTypes().find((t) => t.plural === "configmaps")!;
  const request = {
    type,
    version: type.versions[0],
    labelSelector: EVERYTHING,
    fieldSelector: EVERYTHING,
    resourceVersion: String(store.resourceVersion),
    allowBookmarks: false,
  };
  const streams = [
    hub.open({ ...request, metadataOnly: "meta.k8s.io/v1" }, () => []),
    hub.open({ ...request, metadataOnly: "meta.k8s.io/v1" }, () => []),
    hub.open(request, () => []),
  ];
  const change = store.put(typeKey("", "configmaps"), {
    ...configMap("a", { big: "x".repeat(100) }),
    metadata: { name: "a", namespace: "default", resourceVersion: "2" },
  });
  assertEquals([...change.lines!.keys()], ["meta.k8s.io/v1 PartialObjectMetadata", "v1"]);
  const texts = await Promise.all(streams.map(async (stream) => {
    const reader = stream.getReader();
    const { value } = await reader.read();
    await reader.cancel();
    return new TextDecoder().decode(value);
  }));
  assertEquals(texts[0], texts[1]);
  assertEquals(JSON.parse(texts[0]).object.kind, "PartialObjectMetadata");
  assertEquals(JSON.parse(texts[2]).object.data, { big: "x".repeat(100) });
  hub.closeAll();
});
