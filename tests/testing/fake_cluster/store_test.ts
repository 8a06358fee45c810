/**
 * What the fake API server's indexes must not change: cascading deletion through owner
 * references (background, foreground, orphan; owners gone before their dependents came;
 * references changed after creation; objects loaded from a state file or dropped with
 * their CRD), namespaces emptying before they go, watches offered only the changes of
 * their type and namespace, and single-object watches and lists (`metadata.name=x`).
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import { assert, assertEquals } from "../../assert.ts";
import { call, configMap, exampleCrd, watch, type WatchReader } from "./helpers.ts";

const CMS = "/api/v1/namespaces/default/configmaps";
const merge = { "content-type": "application/merge-patch+json" };

// deno-lint-ignore no-explicit-any
type Body = any;

/** An owner reference to the object. */
function refTo(object: Body, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    name: object.metadata.name,
    uid: object.metadata.uid,
    ...extra,
  };
}

function secret(name: string, metadata: Record<string, unknown> = {}) {
  return { apiVersion: "v1", kind: "Secret", metadata: { name, ...metadata } };
}

function names(cluster: FakeCluster, resource: string, namespace = "default"): string[] {
  return cluster.list(resource, { namespace }).map((o) => String(o.metadata?.name));
}

/** The `type/namespace/name` of the events until (and without) the sentinel ConfigMap. */
async function until(stream: WatchReader, sentinel: string): Promise<string[]> {
  const seen: string[] = [];
  while (true) {
    const event = await stream.next();
    if (!event) throw new Error(`the watch ended before ${sentinel}`);
    const m = event.object.metadata;
    if (m.name === sentinel) return seen;
    seen.push(`${event.type}/${m.namespace ?? ""}/${m.name}`);
  }
}

Deno.test("background deletion collects dependents of every type and their own dependents, and only them", async () => {
  await using cluster = await FakeCluster.start();
  const owner = cluster.create(configMap("owner"));
  const other = cluster.create(configMap("other-owner"));
  const child = cluster.create(configMap("child", {}, { ownerReferences: [refTo(owner)] }));
  cluster.create(secret("child-secret", { ownerReferences: [refTo(owner)] }));
  cluster.create(configMap("grandchild", {}, { ownerReferences: [refTo(child)] }));
  cluster.create(configMap("unrelated", {}, { ownerReferences: [refTo(other)] }));
  cluster.create(configMap("plain"));
  assertEquals(cluster.delete("configmaps", "owner"), undefined);
  assertEquals(
    names(cluster, "configmaps"),
    ["other-owner", "plain", "unrelated"],
  );
  assertEquals(cluster.get("configmaps", "child"), undefined);
  assertEquals(cluster.get("configmaps", "grandchild"), undefined);
  assertEquals(cluster.get("secrets", "child-secret"), undefined);
  assert(cluster.get("configmaps", "unrelated"), "another owner's dependent stays");
  assert(cluster.get("configmaps", "plain"));
  cluster.delete("configmaps", "other-owner");
  assertEquals(cluster.get("configmaps", "unrelated"), undefined);
});

Deno.test("2,000 dependents of one owner all go with it; dependents held by a finalizer are marked", async () => {
  await using cluster = await FakeCluster.start();
  const owner = cluster.create(configMap("owner"));
  for (let i = 0; i < 2_000; i++) {
    cluster.create(configMap(`cm-${i}`, {}, { ownerReferences: [refTo(owner)] }));
  }
  cluster.create(configMap("held", {}, { ownerReferences: [refTo(owner)], finalizers: ["x/y"] }));
  cluster.delete("configmaps", "owner");
  const left = cluster.list("configmaps").filter((o) => o.metadata?.ownerReferences);
  assertEquals(left.map((o) => o.metadata?.name), ["held"]);
  assert(left[0].metadata?.deletionTimestamp, "held: marked for deletion");
  cluster.patch("configmaps", "held", { metadata: { finalizers: null } });
  assertEquals(cluster.get("configmaps", "held"), undefined);
});

Deno.test("foreground deletion waits for the blocking dependents only; theirs go after them", async () => {
  await using cluster = await FakeCluster.start();
  const owner = cluster.create(configMap("owner"));
  const slow = cluster.create(
    configMap("slow", {}, {
      ownerReferences: [refTo(owner, { blockOwnerDeletion: true })],
      finalizers: ["x/y"],
    }),
  );
  cluster.create(configMap("grandchild", {}, { ownerReferences: [refTo(slow)] }));
  cluster.create(
    configMap("held", {}, { ownerReferences: [refTo(owner)], finalizers: ["x/y"] }),
  );
  cluster.create(configMap("quick", {}, { ownerReferences: [refTo(owner)] }));
  const waiting = cluster.delete("configmaps", "owner", { propagationPolicy: "Foreground" });
  assertEquals(waiting?.metadata?.finalizers, ["foregroundDeletion"]);
  assertEquals(cluster.get("configmaps", "quick"), undefined, "non-blocking: gone at once");
  assert(cluster.get("configmaps", "slow")?.metadata?.deletionTimestamp, "slow: marked");
  assert(cluster.get("configmaps", "held")?.metadata?.deletionTimestamp, "held: marked");
  assert(cluster.get("configmaps", "owner"), "the owner waits for slow");
  cluster.patch("configmaps", "slow", { metadata: { finalizers: null } });
  assertEquals(cluster.get("configmaps", "slow"), undefined);
  assertEquals(cluster.get("configmaps", "grandchild"), undefined);
  assertEquals(cluster.get("configmaps", "owner"), undefined, "held does not block the owner");
  assert(cluster.get("configmaps", "held"), "held waits for its own finalizer");
});

Deno.test("orphan deletion keeps the dependents and drops only the reference to the owner", async () => {
  await using cluster = await FakeCluster.start();
  const owner = cluster.create(configMap("owner"));
  const second = cluster.create(configMap("second"));
  cluster.create(configMap("only", {}, { ownerReferences: [refTo(owner)] }));
  cluster.create(configMap("both", {}, { ownerReferences: [refTo(owner), refTo(second)] }));
  assertEquals(cluster.delete("configmaps", "owner", { propagationPolicy: "Orphan" }), undefined);
  assertEquals(cluster.get("configmaps", "only")?.metadata?.ownerReferences, undefined);
  assertEquals(
    cluster.get("configmaps", "both")?.metadata?.ownerReferences?.map((r) => r.name),
    ["second"],
  );
  // The orphans are nobody's dependents any more; the second owner still has its own.
  cluster.delete("configmaps", "second");
  assert(cluster.get("configmaps", "only"));
  assertEquals(cluster.get("configmaps", "both"), undefined);
});

Deno.test("an orphaning owner held by a finalizer keeps its orphan finalizer until it is done", async () => {
  await using cluster = await FakeCluster.start();
  const owner = cluster.create(configMap("owner", {}, { finalizers: ["x/y"] }));
  cluster.create(configMap("dep", {}, { ownerReferences: [refTo(owner)] }));
  const marked = cluster.delete("configmaps", "owner", { propagationPolicy: "Orphan" });
  assertEquals(marked?.metadata?.finalizers, ["x/y"], "orphan is done: its finalizer goes");
  assertEquals(cluster.get("configmaps", "dep")?.metadata?.ownerReferences, undefined);
  cluster.patch("configmaps", "owner", { metadata: { finalizers: null } });
  assertEquals(cluster.get("configmaps", "owner"), undefined);
  assert(cluster.get("configmaps", "dep"));
});

Deno.test("a dependent whose owner is already gone is collected; another live owner keeps it", async () => {
  await using cluster = await FakeCluster.start();
  const owner = cluster.create(configMap("owner"));
  const live = cluster.create(configMap("live"));
  cluster.delete("configmaps", "owner");
  const created = await call(
    cluster,
    "POST",
    CMS,
    configMap("late", {}, { ownerReferences: [refTo(owner)] }),
  );
  assertEquals(created.status, 201, "the create itself succeeds");
  assertEquals(cluster.get("configmaps", "late"), undefined, "then the collector removes it");
  cluster.create(configMap("mixed", {}, { ownerReferences: [refTo(owner), refTo(live)] }));
  assertEquals(
    cluster.get("configmaps", "mixed")?.metadata?.ownerReferences?.map((r) => r.name),
    ["live"],
    "the dangling reference is dropped",
  );
  cluster.create(
    configMap("never", {}, {
      ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "x", uid: "no-such-uid" }],
    }),
  );
  assertEquals(cluster.get("configmaps", "never"), undefined);
});

Deno.test("owner references changed after creation: the collector follows the new ones", async () => {
  await using cluster = await FakeCluster.start();
  const first = cluster.create(configMap("first"));
  const second = cluster.create(configMap("second"));
  cluster.create(configMap("moved", {}, { ownerReferences: [refTo(first)] }));
  cluster.create(configMap("freed", {}, { ownerReferences: [refTo(first)] }));
  cluster.create(configMap("adopted"));
  cluster.patch("configmaps", "moved", { metadata: { ownerReferences: [refTo(second)] } });
  cluster.patch("configmaps", "freed", { metadata: { ownerReferences: null } });
  cluster.patch("configmaps", "adopted", { metadata: { ownerReferences: [refTo(first)] } });
  cluster.delete("configmaps", "first");
  assert(cluster.get("configmaps", "moved"));
  assert(cluster.get("configmaps", "freed"));
  assertEquals(cluster.get("configmaps", "adopted"), undefined);
  cluster.delete("configmaps", "second");
  assertEquals(cluster.get("configmaps", "moved"), undefined);
  assert(cluster.get("configmaps", "freed"));
});

Deno.test("owners and dependents loaded from a state file are collected as before the restart", async () => {
  const dir = await Deno.makeTempDir();
  const state = `${dir}/state.json`;
  try {
    const first = await FakeCluster.start({ state });
    const owner = first.create(configMap("owner"));
    first.create(configMap("dep", {}, { ownerReferences: [refTo(owner)] }));
    first.create(configMap("other"));
    await first.stop();
    await using second = await FakeCluster.start({ state });
    assert(second.get("configmaps", "dep"));
    second.delete("configmaps", "owner");
    assertEquals(second.get("configmaps", "dep"), undefined);
    assert(second.get("configmaps", "other"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("dependents of custom objects that vanish with their CRD are collected", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(exampleCrd());
  const kex = cluster.create({
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name: "e", finalizers: ["x/y"] },
  });
  cluster.create(configMap("dep", {}, { ownerReferences: [refTo(kex)] }));
  cluster.delete("customresourcedefinitions", "kopfexamples.kopf.dev");
  assert(cluster.get("configmaps", "dep"), "the custom object is held by its finalizer");
  // Forcing the CRD away drops its objects at once, finalizers or not.
  cluster.patch("customresourcedefinitions", "kopfexamples.kopf.dev", {
    metadata: { finalizers: null },
  });
  assertEquals(cluster.get("customresourcedefinitions", "kopfexamples.kopf.dev"), undefined);
  assertEquals(cluster.get("configmaps", "dep"), undefined);
});

Deno.test("namespace deletion empties the namespace of every type, then removes it; others stay", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(exampleCrd());
  cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "doomed" } });
  cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "doomed-not" } });
  for (const namespace of ["doomed", "doomed-not", "default"]) {
    for (let i = 0; i < 50; i++) cluster.create(configMap(`cm-${i}`, {}, { namespace }));
    cluster.create(secret("s", { namespace }));
    cluster.create({
      apiVersion: "kopf.dev/v1",
      kind: "KopfExample",
      metadata: { name: "e", namespace, finalizers: ["x/y"] },
    });
  }
  const marked: Body = cluster.delete("namespaces", "doomed");
  assertEquals(marked?.status?.phase, "Terminating");
  assertEquals(names(cluster, "configmaps", "doomed"), []);
  assertEquals(names(cluster, "secrets", "doomed"), []);
  assert(
    cluster.get("kopfexamples.kopf.dev", "e", { namespace: "doomed" })?.metadata
      ?.deletionTimestamp,
  );
  for (const namespace of ["doomed-not", "default"]) {
    assertEquals(
      names(cluster, "configmaps", namespace).filter((n) => n.startsWith("cm-")).length,
      50,
    );
    assert(cluster.get("secrets", "s", { namespace }));
    assertEquals(
      cluster.get("kopfexamples.kopf.dev", "e", { namespace })?.metadata?.deletionTimestamp,
      undefined,
    );
  }
  cluster.patch("kopfexamples.kopf.dev", "e", { metadata: { finalizers: null } }, {
    namespace: "doomed",
  });
  assertEquals(cluster.get("namespaces", "doomed"), undefined, "empty: the namespace goes");
  // A namespace of the same name starts empty.
  cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "doomed" } });
  assertEquals(cluster.list("configmaps", { namespace: "doomed" }), []);
  cluster.create(configMap("fresh", {}, { namespace: "doomed" }));
  assertEquals(names(cluster, "configmaps", "doomed"), ["fresh"]);
});

Deno.test("lists keep etcd's order of namespace/name keys across namespaces", async () => {
  await using cluster = await FakeCluster.start();
  for (const name of ["b", "b-x", "a", "bb"]) {
    cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
    cluster.create(configMap("z", {}, { namespace: name }));
    cluster.create(configMap("y", {}, { namespace: name }));
  }
  const keys = cluster.list("configmaps", { allNamespaces: true })
    .map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`);
  assertEquals(keys, [...keys].sort());
  assertEquals(keys.slice(0, 6), ["a/y", "a/z", "b-x/y", "b-x/z", "b/y", "b/z"]);
});

Deno.test("watches get only the changes of their type and namespace, also with many open", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "other" } });
  const rv = cluster.resourceVersion;
  const open = (path: string) => watch(cluster, `${path}?watch=true&resourceVersion=${rv}`);
  const everywhere = await open("/api/v1/configmaps");
  const here = await open(CMS);
  const here2 = await open(CMS);
  const there = await open("/api/v1/namespaces/other/configmaps");
  const secrets = await open("/api/v1/secrets");
  const namespaces = await open("/api/v1/namespaces");
  assertEquals(cluster.openWatches, 6);
  await here2.close();
  cluster.create(configMap("a"));
  cluster.create(configMap("b", {}, { namespace: "other" }));
  cluster.create(secret("s"));
  cluster.create(secret("t", { namespace: "other" }));
  cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "third" } });
  cluster.patch("configmaps", "a", { data: { x: "1" } });
  cluster.delete("configmaps", "b", { namespace: "other" });
  // The sentinels: one per watch, created last.
  cluster.create(configMap("end"));
  cluster.create(configMap("end", {}, { namespace: "other" }));
  cluster.create(secret("end"));
  cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "end" } });
  assertEquals(await until(everywhere, "end"), [
    "ADDED/default/a",
    "ADDED/other/b",
    "MODIFIED/default/a",
    "DELETED/other/b",
  ]);
  assertEquals(await until(here, "end"), ["ADDED/default/a", "MODIFIED/default/a"]);
  assertEquals(await until(there, "end"), ["ADDED/other/b", "DELETED/other/b"]);
  assertEquals(await until(secrets, "end"), ["ADDED/default/s", "ADDED/other/t"]);
  assertEquals(await until(namespaces, "end"), ["ADDED//third"]);
  for (const stream of [everywhere, here, there, secrets, namespaces]) await stream.close();
  // Closed watches leave the index: new ones of the same type and namespace still work.
  const again = await open(CMS);
  cluster.create(configMap("again"));
  assertEquals(await until(again, "again"), [
    "ADDED/default/a",
    "MODIFIED/default/a",
    "ADDED/default/end",
  ]);
  await again.close();
});

Deno.test("a single-object watch starts with that object alone, then gets only its changes", async () => {
  await using cluster = await FakeCluster.start();
  for (let i = 0; i < 100; i++) cluster.create(configMap(`cm-${i}`));
  cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "other" } });
  cluster.create(configMap("cm-7", { where: "other" }, { namespace: "other" }));
  const one = await watch(cluster, `${CMS}?watch=true&fieldSelector=metadata.name%3Dcm-7`);
  const [first] = await one.take(1);
  assertEquals([first.type, first.object.metadata.name], ["ADDED", "cm-7"]);
  assertEquals(first.object.metadata.namespace, "default");
  cluster.patch("configmaps", "cm-8", { data: { x: "1" } });
  cluster.patch("configmaps", "cm-7", { data: { x: "1" } }, { namespace: "other" });
  cluster.patch("configmaps", "cm-7", { data: { x: "2" } });
  cluster.delete("configmaps", "cm-7");
  const [modified, deleted] = await one.take(2);
  assertEquals([modified.type, modified.object.data.x], ["MODIFIED", "2"]);
  assertEquals([deleted.type, deleted.object.metadata.name], ["DELETED", "cm-7"]);
  cluster.create(configMap("cm-7"));
  assertEquals((await one.take(1))[0].type, "ADDED");
  await one.close();

  // Not there yet: no initial event; its creation is the first.
  const later = await watch(cluster, `${CMS}?watch=true&fieldSelector=metadata.name%3Dlater`);
  cluster.create(configMap("cm-100"));
  cluster.create(configMap("later"));
  const [added] = await later.take(1);
  assertEquals([added.type, added.object.metadata.name], ["ADDED", "later"]);
  await later.close();

  // Across namespaces: each namespace's object of that name, in namespace order.
  const everywhere = await watch(
    cluster,
    "/api/v1/configmaps?watch=true&fieldSelector=metadata.name%3Dcm-7",
  );
  assertEquals(
    (await everywhere.take(2)).map((e) => e.object.metadata.namespace),
    ["default", "other"],
  );
  await everywhere.close();

  // The object's own /watch/ URL with a field selector naming another: nothing matches.
  const none = await watch(
    cluster,
    "/api/v1/watch/namespaces/default/configmaps/cm-1?fieldSelector=metadata.name%3Dcm-2",
  );
  cluster.patch("configmaps", "cm-1", { data: { x: "1" } });
  cluster.patch("configmaps", "cm-2", { data: { x: "1" } });
  cluster.create(configMap("sentinel"));
  const own = await watch(cluster, "/api/v1/watch/namespaces/default/configmaps/cm-1");
  assertEquals((await own.take(1))[0].object.data, { x: "1" });
  await own.close();
  await none.close();
});

Deno.test("lists by name: one object, across namespaces, with other selectors and pages", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "other" } });
  for (const namespace of ["default", "other"]) {
    for (let i = 0; i < 20; i++) {
      cluster.create(configMap(`cm-${i}`, {}, { namespace, labels: { ns: namespace } }));
    }
  }
  const itemsOf = async (path: string) => {
    const reply = await call(cluster, "GET", path);
    assertEquals(reply.status, 200);
    return reply.body.items.map((o: Body) => `${o.metadata.namespace}/${o.metadata.name}`);
  };
  assertEquals(await itemsOf(`${CMS}?fieldSelector=metadata.name%3Dcm-3`), ["default/cm-3"]);
  assertEquals(await itemsOf(`${CMS}?fieldSelector=metadata.name%3Dnone`), []);
  assertEquals(await itemsOf("/api/v1/configmaps?fieldSelector=metadata.name%3Dcm-3"), [
    "default/cm-3",
    "other/cm-3",
  ]);
  assertEquals(
    await itemsOf(
      "/api/v1/configmaps?fieldSelector=metadata.name%3Dcm-3,metadata.namespace%3Dother",
    ),
    ["other/cm-3"],
  );
  assertEquals(
    await itemsOf("/api/v1/configmaps?fieldSelector=metadata.namespace%3Dother&limit=2"),
    ["other/cm-0", "other/cm-1"],
  );
  assertEquals(
    await itemsOf("/api/v1/configmaps?fieldSelector=metadata.name%3Dcm-3&labelSelector=ns%3Dother"),
    ["other/cm-3"],
  );
  assertEquals(
    await itemsOf(`${CMS}?fieldSelector=metadata.name%3Dcm-3,metadata.namespace%3Dother`),
    [],
  );
  assertEquals(
    await itemsOf(`${CMS}?fieldSelector=metadata.name!%3Dcm-3`).then((l) => l.length),
    19,
  );
  const page1 = await call(
    cluster,
    "GET",
    "/api/v1/configmaps?fieldSelector=metadata.name%3Dcm-3&limit=1",
  );
  // As on a real server, a listing with selectors does not count what remains.
  assertEquals(page1.body.metadata.remainingItemCount, undefined);
  assertEquals(typeof page1.body.metadata.continue, "string");
  const page2 = await call(
    cluster,
    "GET",
    `/api/v1/configmaps?fieldSelector=metadata.name%3Dcm-3&limit=1&continue=${
      encodeURIComponent(page1.body.metadata.continue)
    }`,
  );
  assertEquals(page2.body.items.map((o: Body) => o.metadata.namespace), ["other"]);
  await call(cluster, "PATCH", `${CMS}/cm-3`, { data: { a: "b" } }, merge);
});
