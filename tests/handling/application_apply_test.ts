/**
 * Applying a cycle's outcome by server-side apply (`serverSideApply`), against the fake
 * cluster: an object deleted meanwhile is not made anew, nor is a namesake written; an
 * object watched as metadata only is read whole when the apply must restate its status.
 */
import { assertEquals } from "../assert.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { applyChanges } from "../../src/handling/application.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { ApiClient } from "../../src/client/api.ts";
import { Vault } from "../../src/client/vault.ts";
import { Discovery } from "../../src/client/discovery.ts";
import type { Resource } from "../../src/structs/resources.ts";
import { asResourceObject } from "../../src/structs/metadata_only_bodies.ts";
import { Patch } from "../../src/structs/patches.ts";

const F = "kopf.zalando.org/KopfFinalizerMarker";

/** The options of an apply of the operator's writes, by "kopf", with our finalizer. */
function byApply(api: ApiClient, resource: Resource) {
  return { api, resource, finalizer: F, fieldManager: "kopf", serverSideApply: true } as const;
}

async function connect(cluster: FakeCluster): Promise<[ApiClient, Resource]> {
  const vault = new Vault();
  vault.populate({ fake: cluster.connectionInfo });
  const api = new ApiClient(vault);
  const configmaps = (await new Discovery(api).resources())
    .find((r) => r.group === "" && r.plural === "configmaps")!;
  return [api, configmaps];
}

function configMap(name: string): RawBody {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default" } };
}

function annotated(): Patch {
  const patch = new Patch();
  patch.metadata.annotations = { "kopf.zalando.org/x": "1" };
  return patch;
}

Deno.test("by apply: an object deleted meanwhile is gone, not made anew by the apply", async () => {
  await using cluster = await FakeCluster.start();
  const [api, configmaps] = await connect(cluster);
  await using _ = api;
  const seen = cluster.create(configMap("cm"));
  cluster.delete("configmaps", "cm", { namespace: "default" });
  const result = await applyChanges({
    ...byApply(api, configmaps),
    body: seen,
    patch: annotated(),
  });
  assertEquals(result.gone, true);
  assertEquals(cluster.get("configmaps", "cm", { namespace: "default" }), undefined);
});

Deno.test("by apply: a namesake made since is gone for us, and left as it is", async () => {
  await using cluster = await FakeCluster.start();
  const [api, configmaps] = await connect(cluster);
  await using _ = api;
  const seen = cluster.create(configMap("cm"));
  cluster.delete("configmaps", "cm", { namespace: "default" });
  const namesake = cluster.create(configMap("cm"));
  const result = await applyChanges({
    ...byApply(api, configmaps),
    body: seen,
    patch: annotated(),
    finalizerChange: "add",
  });
  assertEquals(result.gone, true);
  const now = cluster.get("configmaps", "cm", { namespace: "default" })!;
  assertEquals(now.metadata?.resourceVersion, namesake.metadata?.resourceVersion);
  assertEquals(now.metadata?.finalizers, undefined);
});

Deno.test("by apply: a metadata-only object is read whole when the apply restates fields beyond its metadata", async () => {
  await using cluster = await FakeCluster.start();
  const [api, configmaps] = await connect(cluster);
  await using _ = api;
  cluster.create({ ...configMap("cm"), data: { big: "x".repeat(1000) } });
  const first = new Patch();
  first.root.data = { mine: "1" };
  const options = byApply(api, configmaps);
  const source = { read: () => Promise.reject(new Error("not read here")) };
  const partialOf = (body: RawBody): RawBody => {
    const meta = { apiVersion: "meta.k8s.io/v1", kind: "PartialObjectMetadata" };
    const partial: RawBody = { ...meta, metadata: body.metadata };
    asResourceObject(partial, "v1", "ConfigMap");
    return partial;
  };
  const stored = cluster.get("configmaps", "cm", { namespace: "default" })!;
  // Nothing owned yet beyond the metadata: no read, one apply.
  const one = await applyChanges({ ...options, body: partialOf(stored), source, patch: first });
  const reads = () =>
    cluster.requests.filter((r) =>
      r.method === "GET" && r.path === "/api/v1/namespaces/default/configmaps/cm"
    ).length;
  assertEquals(one.requests, 1);
  assertEquals(reads(), 0);
  assertEquals(one.body?.data, undefined, "the answer carries the metadata only");
  // Now `data.mine` is ours: the next apply must state it again, so the object is read.
  const owned = cluster.get("configmaps", "cm", { namespace: "default" })!;
  const two = await applyChanges({
    ...options,
    body: partialOf(owned),
    source,
    patch: annotated(),
  });
  assertEquals(two.requests, 1, "one write; the read is not a write");
  assertEquals(reads(), 1, "the object was read whole, once");
  const now = cluster.get("configmaps", "cm", { namespace: "default" })!;
  assertEquals(now.data, { big: "x".repeat(1000), mine: "1" }, "our field kept, theirs too");
  assertEquals(now.metadata?.annotations?.["kopf.zalando.org/x"], "1");
});
