/**
 * The finalizer's JSON Patch operations, and the application of changes to a metadata-only
 * object.
 */
import { assertEquals } from "../assert.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { applyChanges, finalizerOperations } from "../../src/handling/application.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { Discovery } from "../../src/client/discovery.ts";
import { asResourceObject } from "../../src/structs/metadata_only_bodies.ts";
import { Patch } from "../../src/structs/patches.ts";
import { apiClientOf } from "../operator/harness.ts";

const F = "kopf.zalando.org/KopfFinalizerMarker";

/** A fake cluster and a client of it, the ConfigMaps' resource discovered; both disposed of. */
async function configmapsClient() {
  const cluster = await FakeCluster.start();
  const api = apiClientOf(cluster);
  const configmaps = (await new Discovery(api).resources())
    .find((r) => r.group === "" && r.plural === "configmaps")!;
  return {
    cluster,
    api,
    configmaps,
    async [Symbol.asyncDispose]() {
      await api[Symbol.asyncDispose]();
      await cluster[Symbol.asyncDispose]();
    },
  };
}

Deno.test("finalizer operations keep other finalizers and guard the index", () => {
  const none: RawBody = { metadata: {} };
  const some: RawBody = { metadata: { finalizers: ["a/b"] } };
  const ours: RawBody = { metadata: { finalizers: ["a/b", F, "c/d"] } };
  assertEquals(finalizerOperations(none, F, "add"), [
    { op: "add", path: "/metadata/finalizers", value: [F] },
  ]);
  assertEquals(finalizerOperations(some, F, "add"), [
    { op: "add", path: "/metadata/finalizers/-", value: F },
  ]);
  assertEquals(finalizerOperations(ours, F, "add"), []);
  assertEquals(finalizerOperations(ours, F, "remove"), [
    { op: "test", path: "/metadata/finalizers/1", value: F },
    { op: "remove", path: "/metadata/finalizers/1" },
  ]);
  assertEquals(finalizerOperations(some, F, "remove"), []);
});

Deno.test("a metadata-only object: metadata-only answers; its other fields merged, not replaced", async () => {
  await using client = await configmapsClient();
  const { cluster, api, configmaps } = client;
  const stored = cluster.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cm", namespace: "default", finalizers: [F] },
    data: { big: "x".repeat(1000), a: "1", b: "2" },
  });
  // As a metadata-only watch delivers it: metadata alone, its event with its source.
  const partial: RawBody = {
    apiVersion: "meta.k8s.io/v1",
    kind: "PartialObjectMetadata",
    metadata: stored.metadata,
  };
  assertEquals(asResourceObject(partial, "v1", "ConfigMap"), true);
  const source = { read: () => Promise.resolve(stored) };
  const patch = new Patch();
  patch.root.data = { b: "3" }; // a ConfigMap's fields besides its metadata: no spec, no status
  patch.metadata.annotations = { note: "yes" };
  const result = await applyChanges({
    api,
    resource: configmaps,
    body: partial,
    source,
    patch,
    finalizer: F,
    finalizerChange: "remove",
  });
  const now = cluster.get("configmaps", "cm", { namespace: "default" })!;
  assertEquals(now.data, { big: "x".repeat(1000), a: "1", b: "3" }, "merged into, not replaced");
  assertEquals(now.metadata?.annotations?.note, "yes");
  assertEquals(now.metadata?.finalizers, undefined);
  assertEquals(result.body?.kind, "ConfigMap");
  assertEquals(result.body?.data, undefined, "the answer carries the metadata only");
});

Deno.test("a write that changes nothing of the state processed answers another writer's version: not ours", async () => {
  await using client = await configmapsClient();
  const { cluster, api, configmaps } = client;
  const processed = cluster.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cm", namespace: "default", annotations: { seen: "v3" } },
    data: { field: "v3" },
  });
  // Another writer's change after the state the handling read: a version of its own.
  const theirs = cluster.patch("configmaps", "cm", { data: { field: "v5" } }, {
    namespace: "default",
  });
  const write = async (annotation: string) => {
    const patch = new Patch();
    patch.metadata.annotations = { seen: annotation };
    return await applyChanges({ api, resource: configmaps, body: processed, patch, finalizer: F });
  };
  // What the state holds already: the server answers its version now, the other writer's.
  const same = await write("v3");
  assertEquals(same.body?.metadata?.resourceVersion, theirs.metadata?.resourceVersion);
  assertEquals(same.versions, [""], "no version of ours: its state is not an echo of ours");
  // A change: the version answered is the one it made.
  const changed = await write("v4");
  assertEquals(changed.versions, [String(changed.body?.metadata?.resourceVersion)]);
});
