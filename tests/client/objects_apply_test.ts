/**
 * `applyObject()` against the fake cluster over HTTP: the name and namespace from the body,
 * apiVersion and kind from the resource where the body has none, the field manager, force
 * and dry runs as query parameters, and the bad calls refused before any request.
 */
import { assertEquals, assertRejects } from "../assert.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { ApiClient } from "../../src/client/api.ts";
import { Vault } from "../../src/client/vault.ts";
import { applyObject, type ApplyObjectOptions } from "../../src/client/objects.ts";
import { APIConflictError } from "../../src/client/api_errors.ts";
import { UsageError } from "../../src/structs/errors.ts";
import { configmaps, namespaces } from "../fixtures/discovered.ts";

function client(cluster: FakeCluster): ApiClient {
  const vault = new Vault({ relogin: () => Promise.resolve({ fake: cluster.connectionInfo }) });
  return new ApiClient(vault);
}

function applies(cluster: FakeCluster) {
  return cluster.requests.filter((r) => r.verb === "patch").map((r) => ({
    path: r.path,
    query: Object.fromEntries(new URLSearchParams(r.query)),
    status: r.status,
  }));
}

Deno.test("applyObject creates the object where its body says, then updates it; unchanged, nothing", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "ns1" } });
  await using api = client(cluster);
  const options: ApplyObjectOptions = { fieldManager: "op" };
  const made = await applyObject(api, configmaps, {
    metadata: { name: "cm", namespace: "ns1" },
    data: { a: "1" },
  }, options);
  assertEquals([made.kind, made.apiVersion, made.metadata?.namespace], ["ConfigMap", "v1", "ns1"]);
  const changed = await applyObject(api, configmaps, {
    metadata: { name: "cm", namespace: "ns1" },
    data: { a: "2" },
  }, options);
  assertEquals(changed.data, { a: "2" });
  const again = await applyObject(api, configmaps, {
    metadata: { name: "cm", namespace: "ns1" },
    data: { a: "2" },
  }, options);
  assertEquals(again.metadata?.resourceVersion, changed.metadata?.resourceVersion);
  const managers = again.metadata?.managedFields as { manager: string; operation: string }[];
  assertEquals(managers.map((e) => [e.manager, e.operation]), [["op", "Apply"]]);
  assertEquals(applies(cluster), [
    { path: "/api/v1/namespaces/ns1/configmaps/cm", query: { fieldManager: "op" }, status: 201 },
    { path: "/api/v1/namespaces/ns1/configmaps/cm", query: { fieldManager: "op" }, status: 200 },
    { path: "/api/v1/namespaces/ns1/configmaps/cm", query: { fieldManager: "op" }, status: 200 },
  ]);
});

Deno.test("applyObject: another manager's field is a conflict unless forced; a dry run stores nothing", async () => {
  await using cluster = await FakeCluster.start();
  cluster.apply({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cm", namespace: "default" },
    data: { a: "theirs" },
  }, { fieldManager: "other" });
  await using api = client(cluster);
  const mine = { metadata: { name: "cm", namespace: "default" }, data: { a: "mine" } };
  const error = await assertRejects(
    () => applyObject(api, configmaps, mine, { fieldManager: "op", force: false }),
    APIConflictError,
  );
  assertEquals(error.statusMessage, 'Apply failed with 1 conflict: conflict with "other": .data.a');
  const tried = await applyObject(api, configmaps, mine, {
    fieldManager: "op",
    force: true,
    dryRun: true,
  });
  assertEquals(tried.data, { a: "mine" });
  assertEquals(cluster.get("configmaps", "cm", { namespace: "default" })?.data, { a: "theirs" });
  const taken = await applyObject(api, configmaps, mine, { fieldManager: "op", force: true });
  assertEquals(taken.data, { a: "mine" });
  assertEquals(applies(cluster).map((a) => [a.query, a.status]), [
    [{ fieldManager: "op", force: "false" }, 409],
    [{ dryRun: "All", fieldManager: "op", force: "true" }, 200],
    [{ fieldManager: "op", force: "true" }, 200],
  ]);
});

Deno.test("applyObject: the default namespace for namespaced objects, none for cluster-scoped ones", async () => {
  await using cluster = await FakeCluster.start();
  await using api = client(cluster);
  await applyObject(api, configmaps, { metadata: { name: "cm" } }, { fieldManager: "op" });
  await applyObject(api, namespaces, { metadata: { name: "ns2" } }, { fieldManager: "op" });
  assertEquals(applies(cluster).map((a) => a.path), [
    "/api/v1/namespaces/default/configmaps/cm",
    "/api/v1/namespaces/ns2",
  ]);
});

Deno.test("applyObject refuses a body without a name, and a call without a field manager", async () => {
  await using cluster = await FakeCluster.start();
  await using api = client(cluster);
  await assertRejects(
    () =>
      applyObject(api, configmaps, { metadata: { generateName: "cm-" } }, { fieldManager: "op" }),
    UsageError,
    "Applying an object of configmaps needs metadata.name in the body",
  );
  await assertRejects(
    () => applyObject(api, configmaps, { metadata: { name: "cm" } }, { fieldManager: "" }),
    UsageError,
    "Server-side apply needs a fieldManager.",
  );
  assertEquals(applies(cluster), []);
});
