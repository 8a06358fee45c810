/**
 * Watch streams of the fake API server: initial state, replay from a resourceVersion,
 * 410 Gone after compaction, bookmarks, timeouts, selectors, drops.
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import { assert, assertEquals, assertRejects } from "../../assert.ts";
import { call, configMap, exampleCrd, watch } from "./helpers.ts";

const CMS = "/api/v1/namespaces/default/configmaps";
const merge = { "content-type": "application/merge-patch+json" };

Deno.test("a watch without a resourceVersion starts with the current objects as ADDED, then goes live", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(configMap("a"));
  const stream = await watch(cluster, `${CMS}?watch=true`);
  const [first] = await stream.take(1);
  assertEquals([first.type, first.object.metadata.name], ["ADDED", "a"]);
  cluster.patch("configmaps", "a", { data: { x: "1" } });
  cluster.delete("configmaps", "a");
  const [modified, deleted] = await stream.take(2);
  assertEquals([modified.type, modified.object.data], ["MODIFIED", { x: "1" }]);
  assertEquals(deleted.type, "DELETED");
  assert(
    Number(deleted.object.metadata.resourceVersion) >
      Number(modified.object.metadata.resourceVersion),
  );
  await stream.close();
});

Deno.test("a watch from a list's resourceVersion replays only later changes, in order", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(configMap("a"));
  const list = await call(cluster, "GET", CMS);
  cluster.create(configMap("b"));
  cluster.patch("configmaps", "a", { data: { v: "2" } });
  const stream = await watch(
    cluster,
    `${CMS}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`,
  );
  const events = await stream.take(2);
  assertEquals(events.map((e) => `${e.type}/${e.object.metadata.name}`), ["ADDED/b", "MODIFIED/a"]);
  await stream.close();
});

Deno.test("the /watch/ path prefix works per namespace, per object and cluster-wide", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(configMap("a"));
  cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "other" } });
  cluster.create(configMap("b", {}, { namespace: "other" }));
  const all = await watch(cluster, "/api/v1/watch/configmaps");
  const names = (await all.take(2)).map((e) =>
    `${e.object.metadata.namespace}/${e.object.metadata.name}`
  ).sort();
  assertEquals(names, ["default/a", "other/b"]);
  const one = await watch(cluster, "/api/v1/watch/namespaces/other/configmaps/b");
  assertEquals((await one.take(1))[0].object.metadata.name, "b");
  await all.close();
  await one.close();
});

Deno.test("a resourceVersion older than the history gets one ERROR event with 410 Expired, then the end", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(configMap("a"));
  const rv = Number(cluster.resourceVersion);
  cluster.patch("configmaps", "a", { data: { v: "1" } });
  cluster.faults.compact();
  const stream = await watch(cluster, `${CMS}?watch=true&resourceVersion=${rv}`);
  const [error] = await stream.take(1);
  assertEquals(error.type, "ERROR");
  assertEquals([error.object.kind, error.object.code, error.object.reason], [
    "Status",
    410,
    "Expired",
  ]);
  assertEquals(await stream.next(), undefined, "the stream ends after the error");
});

Deno.test("a small history ring forgets old changes by itself", async () => {
  await using cluster = await FakeCluster.start({ historySize: 3 });
  cluster.create(configMap("a"));
  const rv = cluster.resourceVersion;
  for (let i = 0; i < 5; i++) cluster.patch("configmaps", "a", { data: { i: String(i) } });
  const stream = await watch(cluster, `${CMS}?watch=true&resourceVersion=${rv}`);
  const [expired] = await stream.take(1);
  assertEquals(expired.object.code, 410);
  // The three newest changes are kept: the one before the oldest of them is named.
  const before = Number(cluster.resourceVersion) - 3;
  assertEquals(expired.object.message, `too old resource version: ${rv} (${before})`);
  await stream.close();
  const recent = await watch(
    cluster,
    `${CMS}?watch=true&resourceVersion=${Number(cluster.resourceVersion) - 1}`,
  );
  assertEquals((await recent.take(1))[0].object.data, { i: "4" });
  await recent.close();
});

Deno.test("selectors apply to watches; objects leaving the selector arrive as DELETED", async () => {
  await using cluster = await FakeCluster.start();
  const stream = await watch(cluster, `${CMS}?watch=true&labelSelector=app%3Dweb`);
  cluster.create(configMap("other"));
  cluster.create(configMap("a", {}, { labels: { app: "web" } }));
  assertEquals((await stream.take(1))[0].type, "ADDED");
  cluster.patch("configmaps", "a", { metadata: { labels: { app: "db" } } });
  const [left] = await stream.take(1);
  // As kube-apiserver's cacher sends it: the previous content, at the change's version.
  assertEquals([left.type, left.object.metadata.labels.app], ["DELETED", "web"]);
  assertEquals(left.object.metadata.resourceVersion, cluster.resourceVersion);
  cluster.patch("configmaps", "a", { metadata: { labels: { app: "web" } } });
  assertEquals((await stream.take(1))[0].type, "ADDED");
  await stream.close();
  const byName = await watch(cluster, `${CMS}?watch=true&fieldSelector=metadata.name%3Dother`);
  assertEquals((await byName.take(1))[0].object.metadata.name, "other");
  await byName.close();
});

Deno.test("bookmarks arrive when allowed; timeoutSeconds ends the stream cleanly", async () => {
  await using cluster = await FakeCluster.start({ bookmarkInterval: 0.05 });
  cluster.create(configMap("a"));
  const stream = await watch(
    cluster,
    `${CMS}?watch=true&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion=${cluster.resourceVersion}`,
  );
  const event = await stream.next();
  assertEquals(event?.type, "BOOKMARK");
  assertEquals(event?.object.metadata.resourceVersion, cluster.resourceVersion);
  while (await stream.next()); // more bookmarks, then the end after a second
  assertEquals(cluster.openWatches, 0);
});

Deno.test("sendInitialEvents ends the initial objects with a marked bookmark", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(configMap("a"));
  const stream = await watch(
    cluster,
    `${CMS}?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan`,
  );
  const [added, bookmark] = await stream.take(2);
  assertEquals(added.type, "ADDED");
  assertEquals(bookmark.type, "BOOKMARK");
  assertEquals(bookmark.object.metadata.annotations, { "k8s.io/initial-events-end": "true" });
  await stream.close();
});

Deno.test("sendInitialEvents without bookmarks: the objects and no bookmark; =false from now on", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(configMap("a"));
  // kube-apiserver asks for no bookmarks (validateWatchOptions); without them, no end marker.
  const plain = await watch(
    cluster,
    `${CMS}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`,
  );
  // sendInitialEvents=false without a resourceVersion: "from any version", so from now.
  const fromNow = await watch(
    cluster,
    `${CMS}?watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan` +
      "&allowWatchBookmarks=true",
  );
  cluster.create(configMap("b"));
  const events = await plain.take(2);
  assertEquals(events.map((e) => `${e.type} ${e.object.metadata.name}`), ["ADDED a", "ADDED b"]);
  const [first] = await fromNow.take(1);
  assertEquals(`${first.type} ${first.object.metadata.name}`, "ADDED b");
  await plain.close();
  await fromNow.close();
});

Deno.test("initial events go out as the client reads; changes meanwhile follow the bookmark", async () => {
  await using cluster = await FakeCluster.start({ historySize: 10 });
  const bulky = "x".repeat(10_000);
  for (let i = 0; i < 300; i++) {
    cluster.create(configMap(`cm-${String(i).padStart(3, "0")}`, { bulky }));
  }
  const rv = cluster.resourceVersion;
  const stream = await watch(
    cluster,
    `${CMS}?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan`,
  );
  const first = await stream.take(10);
  assertEquals(first.map((e) => e.type), Array(10).fill("ADDED"));
  cluster.create(configMap("late"));
  const rest = await stream.take(291);
  assertEquals(rest.slice(0, 290).every((e) => e.type === "ADDED"), true);
  assertEquals(rest[290].type, "BOOKMARK");
  assertEquals(rest[290].object.metadata.resourceVersion, rv);
  const [late] = await stream.take(1);
  assertEquals([late.type, late.object.metadata.name], ["ADDED", "late"]);
  await stream.close();
});

Deno.test("streaming lists: the options are validated; an older server refuses them with 422", async () => {
  const query = "watch=true&sendInitialEvents=true&allowWatchBookmarks=true";
  {
    await using cluster = await FakeCluster.start();
    const noMatch = (await call(cluster, "GET", `${CMS}?${query}`)).status;
    assertEquals(noMatch, 422);
    const matchOnly =
      (await call(cluster, "GET", `${CMS}?watch=true&resourceVersionMatch=NotOlderThan`)).status;
    assertEquals(matchOnly, 422);
  }
  {
    await using cluster = await FakeCluster.start({ streamingLists: false });
    const old =
      (await call(cluster, "GET", `${CMS}?${query}&resourceVersionMatch=NotOlderThan`)).status;
    assertEquals(old, 422);
  }
});

Deno.test("dropped watches break mid-stream; the client sees an error, not a clean end", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(configMap("a"));
  const stream = await watch(cluster, `${CMS}?watch=true`);
  await stream.take(1);
  assertEquals(cluster.openWatches, 1);
  cluster.faults.dropWatches();
  await assertRejects(() => stream.next());
  assertEquals(cluster.openWatches, 0);
});

Deno.test("stopping the cluster ends open watches", async () => {
  const cluster = await FakeCluster.start();
  const stream = await watch(cluster, `${CMS}?watch=true`);
  await cluster.stop();
  assertEquals(await stream.next(), undefined);
});

Deno.test("watch with a Table Accept header gets Table rows; column definitions come first only", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(configMap("a", { k: "v" }));
  const stream = await watch(cluster, `${CMS}?watch=true`, {
    accept: "application/json;as=Table;v=v1;g=meta.k8s.io",
  });
  const [first] = await stream.take(1);
  assertEquals(first.object.kind, "Table");
  assertEquals(first.object.rows[0].cells[0], "a");
  assert(first.object.columnDefinitions.length > 0);
  cluster.patch("configmaps", "a", { data: { k: "w" } }, {});
  const [second] = await stream.take(1);
  assertEquals(second.object.columnDefinitions, []);
  await stream.close();
});

Deno.test("watch events go to the right namespace and type only", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "other" } });
  const stream = await watch(
    cluster,
    `${CMS}?watch=true&resourceVersion=${cluster.resourceVersion}`,
  );
  cluster.create(configMap("x", {}, { namespace: "other" }));
  cluster.create({ apiVersion: "v1", kind: "Secret", metadata: { name: "s" } });
  cluster.create(configMap("mine"));
  assertEquals((await stream.take(1))[0].object.metadata.name, "mine");
  await stream.close();
  await call(cluster, "PATCH", `${CMS}/mine`, { data: { a: "b" } }, merge);
});

Deno.test("deleting a CRD ends the watches of its resource", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(exampleCrd());
  const stream = await watch(cluster, "/apis/kopf.dev/v1/kopfexamples?watch=true");
  const other = await watch(cluster, `${CMS}?watch=true`);
  cluster.delete("customresourcedefinitions", "kopfexamples.kopf.dev");
  assertEquals(await stream.next(), undefined, "the stream ends cleanly");
  assertEquals(cluster.openWatches, 1, "other watches stay");
  await other.close();
});
