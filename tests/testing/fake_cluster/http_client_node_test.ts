/**
 * FakeCluster against `@kubernetes/client-node`: list, create, patch, delete, watch and
 * an informer, through a client nobody here wrote. It insists on HTTPS, so TLS is on.
 */
import * as k8s from "@kubernetes/client-node";
import { FakeCluster } from "../../../src/testing/mod.ts";
import { assert, assertEquals, assertRejects } from "../../assert.ts";
import { exampleCrd } from "./helpers.ts";

function configFor(cluster: FakeCluster): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromString(cluster.kubeconfig);
  return kc;
}

Deno.test("client-node: create, list, patch (merge and JSON), replace and delete ConfigMaps", async () => {
  await using cluster = await FakeCluster.start({ tls: true });
  const core = configFor(cluster).makeApiClient(k8s.CoreV1Api);
  await core.createNamespacedConfigMap({
    namespace: "default",
    body: { metadata: { name: "a", labels: { app: "x" } }, data: { k: "v" } },
  });
  const list = await core.listNamespacedConfigMap({ namespace: "default", labelSelector: "app=x" });
  assertEquals(list.items.map((o) => o.metadata?.name), ["a"]);
  assert(list.metadata?.resourceVersion);
  await core.patchNamespacedConfigMap(
    { name: "a", namespace: "default", body: { data: { k: "merged" } } },
    k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
  );
  assertEquals(cluster.get("configmaps", "a")?.data, { k: "merged" });
  await core.patchNamespacedConfigMap(
    { name: "a", namespace: "default", body: [{ op: "add", path: "/data/j", value: "json" }] },
    k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.JsonPatch),
  );
  assertEquals(cluster.get("configmaps", "a")?.data, { k: "merged", j: "json" });
  const current = await core.readNamespacedConfigMap({ name: "a", namespace: "default" });
  current.data = { replaced: "yes" };
  await core.replaceNamespacedConfigMap({ name: "a", namespace: "default", body: current });
  assertEquals(cluster.get("configmaps", "a")?.data, { replaced: "yes" });
  await core.deleteNamespacedConfigMap({ name: "a", namespace: "default" });
  assertEquals(cluster.get("configmaps", "a"), undefined);
  const error = await assertRejects(() =>
    core.readNamespacedConfigMap({ name: "a", namespace: "default" })
  );
  assertEquals((error as { code?: number }).code, 404);
});

Deno.test("client-node: custom objects and the status subresource", async () => {
  await using cluster = await FakeCluster.start({ tls: true });
  const kc = configFor(cluster);
  // The CRD goes in directly: client-node's models would rename x-kubernetes-* keys.
  cluster.create(exampleCrd());
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const where = { group: "kopf.dev", version: "v1", namespace: "default", plural: "kopfexamples" };
  await custom.createNamespacedCustomObject({
    ...where,
    body: {
      apiVersion: "kopf.dev/v1",
      kind: "KopfExample",
      metadata: { name: "e" },
      spec: { field: "x" },
    },
  });
  await custom.patchNamespacedCustomObjectStatus(
    { ...where, name: "e", body: { status: { done: true } } },
    k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
  );
  const list = await custom.listNamespacedCustomObject(where);
  assertEquals(list.items.length, 1);
  assertEquals(list.items[0].status, { done: true });
  assertEquals(list.items[0].spec, { field: "x", replicas: 1 });
});

Deno.test("client-node: Watch delivers ADDED, MODIFIED and DELETED", async () => {
  await using cluster = await FakeCluster.start({ tls: true });
  const kc = configFor(cluster);
  const events: string[] = [];
  let done!: () => void;
  const allSeen = new Promise<void>((resolve) => (done = resolve));
  const watcher = new k8s.Watch(kc);
  const request = await watcher.watch(
    "/api/v1/namespaces/default/configmaps",
    { resourceVersion: cluster.resourceVersion },
    (type, object) => {
      events.push(`${type}/${object.metadata.name}`);
      if (type === "DELETED") done();
    },
    () => {},
  );
  await cluster.waitForRequest((r) => r.verb === "watch");
  cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "w" } });
  cluster.patch("configmaps", "w", { data: { a: "1" } });
  cluster.delete("configmaps", "w");
  await allSeen;
  request.abort();
  assertEquals(events, ["ADDED/w", "MODIFIED/w", "DELETED/w"]);
});

Deno.test("client-node: an informer lists, then follows changes", async () => {
  await using cluster = await FakeCluster.start({ tls: true });
  const kc = configFor(cluster);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "before" } });
  const informer = k8s.makeInformer(
    kc,
    "/api/v1/namespaces/default/configmaps",
    () => core.listNamespacedConfigMap({ namespace: "default" }),
  );
  const added: string[] = [];
  let sawAfter!: () => void;
  const after = new Promise<void>((resolve) => (sawAfter = resolve));
  informer.on("add", (object) => {
    added.push(object.metadata!.name!);
    if (object.metadata?.name === "after") sawAfter();
  });
  await informer.start();
  await cluster.waitForRequest((r) => r.verb === "watch");
  cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "after" } });
  await after;
  await informer.stop();
  assertEquals(added, ["before", "after"]);
  assertEquals(informer.list().map((o) => o.metadata?.name).sort(), ["after", "before"]);
});

/** A kubeconfig whose watches (client-node's `Watch`) ask for metadata only. */
class MetadataWatchConfig extends k8s.KubeConfig {
  override async applyToFetchOptions(
    opts: Parameters<k8s.KubeConfig["applyToFetchOptions"]>[0],
  ): ReturnType<k8s.KubeConfig["applyToFetchOptions"]> {
    const options = await super.applyToFetchOptions(opts);
    (options.headers as unknown as Headers).set(
      "Accept",
      "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json",
    );
    return options;
  }
}

Deno.test("client-node: a metadata-only informer (PartialObjectMetadataList, then PartialObjectMetadata events)", async () => {
  await using cluster = await FakeCluster.start({ tls: true });
  const kc = new MetadataWatchConfig();
  kc.loadFromString(cluster.kubeconfig);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const metadataList = k8s.setHeaderOptions(
    "Accept",
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json",
  );
  cluster.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "before", labels: { app: "x" } },
    data: { secret: "s" },
  });
  const listed = await core.listNamespacedConfigMap({ namespace: "default" }, metadataList);
  assertEquals(listed.items.map((o) => [o.kind, o.metadata?.name, o.data]), [
    ["PartialObjectMetadata", "before", undefined],
  ]);
  const informer = k8s.makeInformer(
    kc,
    "/api/v1/namespaces/default/configmaps",
    () => core.listNamespacedConfigMap({ namespace: "default" }, metadataList),
  );
  const seen: string[] = [];
  let sawDeleted!: () => void;
  const deleted = new Promise<void>((resolve) => (sawDeleted = resolve));
  for (const event of ["add", "update", "delete"] as const) {
    informer.on(event, (object) => {
      seen.push(`${event} ${object.kind} ${object.metadata?.name} ${JSON.stringify(object.data)}`);
      if (event === "delete") sawDeleted();
    });
  }
  await informer.start();
  await cluster.waitForRequest((r) => r.verb === "watch");
  cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "after" }, data: {} });
  cluster.patch("configmaps", "after", { metadata: { labels: { app: "y" } } });
  cluster.delete("configmaps", "after");
  await deleted;
  await informer.stop();
  assertEquals(seen, [
    "add PartialObjectMetadata before undefined",
    "add PartialObjectMetadata after undefined",
    "update PartialObjectMetadata after undefined",
    "delete PartialObjectMetadata after undefined",
  ]);
  assertEquals(informer.list().map((o) => o.metadata?.name), ["before"]);
});
