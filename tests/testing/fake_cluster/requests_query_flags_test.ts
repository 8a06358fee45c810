/**
 * Boolean query parameters, decoded as kube-apiserver decodes them: absent, `0` and
 * `false` (in any case) are false, anything else is true — Python's client writes `True`.
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import { assertEquals } from "../../assert.ts";
import { call, configMap, watch } from "./helpers.ts";

const CMS = "/api/v1/namespaces/default/configmaps";

Deno.test("watch=True (as Python's client sends it), watch= and watch=yes are watches", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(configMap("a"));
  for (const query of ["watch=True", "watch=", "watch", "watch=yes", "watch=TRUE"]) {
    const stream = await watch(cluster, `${CMS}?${query}`);
    const [added] = await stream.take(1);
    assertEquals([added.type, added.object.metadata.name], ["ADDED", "a"], query);
    cluster.patch("configmaps", "a", { data: { seen: query } });
    const [modified] = await stream.take(1);
    assertEquals([modified.type, modified.object.data], ["MODIFIED", { seen: query }], query);
    await stream.close();
  }
});

Deno.test("watch=False, watch=0 and watch=FALSE are lists", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(configMap("a"));
  for (const query of ["watch=False", "watch=0", "watch=FALSE", "watch=false"]) {
    const reply = await call(cluster, "GET", `${CMS}?${query}`);
    assertEquals([reply.status, reply.body.kind], [200, "ConfigMapList"], query);
  }
});

Deno.test("sendInitialEvents=True streams the list, with its bookmark if allowWatchBookmarks=True", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(configMap("a"));
  const stream = await watch(
    cluster,
    `${CMS}?watch=True&sendInitialEvents=True&allowWatchBookmarks=True&resourceVersionMatch=NotOlderThan`,
  );
  const [added, bookmark] = await stream.take(2);
  assertEquals([added.type, bookmark.type], ["ADDED", "BOOKMARK"]);
  assertEquals(bookmark.object.metadata.annotations, { "k8s.io/initial-events-end": "true" });
  await stream.close();
  // allowWatchBookmarks=False: the objects, and no bookmark to end them (cacher.go asks both).
  const plain = await watch(
    cluster,
    `${CMS}?watch=1&sendInitialEvents=True&allowWatchBookmarks=False&resourceVersionMatch=NotOlderThan`,
  );
  cluster.create(configMap("b"));
  const events = await plain.take(2);
  assertEquals(events.map((e) => `${e.type} ${e.object.metadata.name}`), ["ADDED a", "ADDED b"]);
  await plain.close();
});

Deno.test("sendInitialEvents=False starts from the resourceVersion without the current objects", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(configMap("a"));
  const rv = cluster.resourceVersion;
  const stream = await watch(
    cluster,
    `${CMS}?watch=True&sendInitialEvents=False&allowWatchBookmarks=1&resourceVersionMatch=NotOlderThan&resourceVersion=${rv}`,
  );
  cluster.create(configMap("b"));
  let added = await stream.next();
  while (added?.type === "BOOKMARK") added = await stream.next();
  assertEquals([added?.type, added?.object.metadata.name], ["ADDED", "b"]);
  await stream.close();
});

Deno.test("an apply with force=True takes the fields over; force=False leaves the conflict", async () => {
  await using cluster = await FakeCluster.start();
  const path = `${CMS}/cm`;
  const apply = (data: Record<string, string>, query: string) =>
    call(cluster, "PATCH", `${path}?${query}`, configMap("cm", data), {
      "content-type": "application/apply-patch+yaml",
    });
  assertEquals((await apply({ a: "1" }, "fieldManager=alice")).status, 201);
  assertEquals((await apply({ a: "2" }, "fieldManager=bob&force=False")).status, 409);
  const forced = await apply({ a: "2" }, "fieldManager=bob&force=True");
  assertEquals([forced.status, forced.body.data], [200, { a: "2" }]);
});

Deno.test("a delete with orphanDependents=True orphans the dependents", async () => {
  await using cluster = await FakeCluster.start();
  const owner = cluster.create(configMap("owner"));
  const ownerReferences = [{
    apiVersion: "v1",
    kind: "ConfigMap",
    name: "owner",
    uid: owner.metadata!.uid,
  }];
  cluster.create(configMap("child", {}, { ownerReferences }));
  const reply = await call(cluster, "DELETE", `${CMS}/owner?orphanDependents=True`);
  assertEquals(reply.status, 200);
  const child = await call(cluster, "GET", `${CMS}/child`);
  assertEquals([child.status, child.body.metadata.ownerReferences], [200, undefined]);
});
