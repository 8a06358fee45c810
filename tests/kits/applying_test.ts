/**
 * `kopf.apply()` against the fake cluster over HTTP, as from a handler of a running operator
 * (the object scope and the operator's client set as the operator sets them): a child
 * created adopted and owned by the operator's field manager, updated, left alone when
 * unchanged, conflicts with other managers forced or not, the client and the resource
 * found, and the bad calls refused with what to do.
 */
import { assertEquals, assertRejects } from "../assert.ts";
import { apply } from "../../src/kits/applying.ts";
import { runWithOperatorClient } from "../../src/engines/operator_client.ts";
import { createObjectLogger, runInObjectScope } from "../../src/handling/object_loggers.ts";
import { ApiClient } from "../../src/client/api.ts";
import { Discovery } from "../../src/client/discovery.ts";
import { Vault } from "../../src/client/vault.ts";
import { APIConflictError } from "../../src/client/api_errors.ts";
import { OperatorSettings } from "../../src/settings/operator_settings.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { UsageError } from "../../src/structs/errors.ts";
import { Resource } from "../../src/structs/resources.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { kex, kexCrd } from "../operator/harness.ts";
import { quote } from "../doc_quotes.ts";

const OWNER_KIND = "kopf.zalando.org/owner-kind";

/** A cluster with a parent KopfExample, and what a handler of that parent runs in. */
async function setUp(settings = new OperatorSettings()) {
  const cluster = await FakeCluster.start();
  cluster.create(kexCrd());
  const parent = cluster.create(kex("parent", {}, { metadata: { labels: { app: "demo" } } }));
  const vault = new Vault({ relogin: () => Promise.resolve({ fake: cluster.connectionInfo }) });
  const api = new ApiClient(vault);
  const operator = { api, discovery: new Discovery(api), settings };
  /** Run `fn` as a handler of the parent in a running operator. */
  const inHandler = <R>(fn: () => R): R =>
    runWithOperatorClient(
      operator,
      () => runInObjectScope({ body: parent, logger: createObjectLogger(parent) }, fn),
    );
  return {
    cluster,
    parent,
    api,
    inHandler,
    async [Symbol.asyncDispose]() {
      await api.close();
      await cluster.stop();
    },
  };
}

function configMap(data: Record<string, string>, name = "parent-config"): RawBody {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data };
}

function managersOf(body: RawBody | undefined): string[] {
  const entries = (body?.metadata?.managedFields ?? []) as { manager: string; operation: string }[];
  return entries.map((e) => `${e.manager} ${e.operation}`);
}

function patchesOf(cluster: FakeCluster): { path: string; query: string; status: number }[] {
  return cluster.requests.filter((r) => r.method === "PATCH").map((r) => ({
    path: r.path,
    query: r.query,
    status: r.status,
  }));
}

Deno.test("apply creates the child adopted: owned, in the parent's namespace, labelled, the operator's manager", async () => {
  await using env = await setUp();
  const child = configMap({ a: "1" });
  const applied = await env.inHandler(() => apply(child));
  const stored = env.cluster.get("configmaps", "parent-config", { namespace: "default" });
  assertEquals(stored?.data, { a: "1" });
  assertEquals(stored?.metadata?.namespace, "default");
  assertEquals(stored?.metadata?.labels, { app: "demo", [OWNER_KIND]: "KopfExample.kopf.dev" });
  assertEquals(stored?.metadata?.ownerReferences, [{
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    name: "parent",
    uid: String(env.parent.metadata?.uid),
    controller: true,
    blockOwnerDeletion: true,
  }]);
  assertEquals(managersOf(stored), ["kopf Apply"]);
  assertEquals(applied.metadata?.uid, stored?.metadata?.uid);
  assertEquals(child.metadata?.namespace, "default", "adopted in place, as by kopf.adopt()");
  assertEquals(patchesOf(env.cluster), [{
    path: "/api/v1/namespaces/default/configmaps/parent-config",
    query: "fieldManager=kopf&force=true",
    status: 201,
  }]);
});

Deno.test("apply updates a changed child, removes what it no longer applies, and leaves an unchanged one as it was", async () => {
  await using env = await setUp();
  await env.inHandler(() => apply(configMap({ a: "1", b: "2" })));
  const changed = await env.inHandler(() => apply(configMap({ a: "3" })));
  assertEquals(changed.data, { a: "3" });
  const version = changed.metadata?.resourceVersion;
  const clusterVersion = env.cluster.resourceVersion;
  const again = await env.inHandler(() => apply(configMap({ a: "3" })));
  assertEquals(again.metadata?.resourceVersion, version);
  assertEquals(env.cluster.resourceVersion, clusterVersion, "nothing stored");
  assertEquals(
    env.cluster.get("configmaps", "parent-config", { namespace: "default" })?.metadata
      ?.resourceVersion,
    version,
  );
  assertEquals(patchesOf(env.cluster).map((p) => p.status), [201, 200, 200]);
});

Deno.test("a field another manager owns: taken by default, an APIConflictError when not forced", async () => {
  await using env = await setUp();
  await env.inHandler(() => apply(configMap({ a: "mine", field: "mine" })));
  env.cluster.apply({
    ...configMap({ field: "theirs" }),
    metadata: { name: "parent-config", namespace: "default" },
  }, { fieldManager: "gitops", force: true });
  const error = await assertRejects(
    () => env.inHandler(() => apply(configMap({ a: "mine", field: "mine" }), { force: false })),
    APIConflictError,
  );
  // As docs/children.md quotes it.
  assertEquals(error.statusMessage, await quote("children.md", "Apply failed "));
  assertEquals(
    env.cluster.get("configmaps", "parent-config", { namespace: "default" })?.data,
    { a: "mine", field: "theirs" },
  );
  const taken = await env.inHandler(() => apply(configMap({ a: "mine", field: "mine" })));
  assertEquals(taken.data, { a: "mine", field: "mine" });
  assertEquals(managersOf(taken), ["kopf Apply"]);
});

Deno.test("settings.applying names the manager and the force; a call may name its own", async () => {
  const settings = new OperatorSettings({ applying: { fieldManager: "example-op", force: false } });
  await using env = await setUp(settings);
  await env.inHandler(() => apply(configMap({ a: "1" })));
  env.cluster.apply({
    ...configMap({ a: "2" }),
    metadata: { name: "parent-config", namespace: "default" },
  }, { fieldManager: "gitops", force: true });
  await assertRejects(
    () => env.inHandler(() => apply(configMap({ a: "1" }))),
    APIConflictError,
    'conflict with "gitops"',
  );
  settings.applying.force = true; // read at each call
  const taken = await env.inHandler(() => apply(configMap({ a: "1" })));
  assertEquals(managersOf(taken), ["example-op Apply"]);
  const other = await env.inHandler(() =>
    apply(configMap({ x: "1" }, "other"), { fieldManager: "per-call" })
  );
  assertEquals(managersOf(other), ["per-call Apply"]);
  assertEquals(patchesOf(env.cluster).map((p) => p.query), [
    "fieldManager=example-op&force=false",
    "fieldManager=example-op&force=false",
    "fieldManager=example-op&force=true",
    "fieldManager=per-call&force=true",
  ]);
});

Deno.test("an unnamed child is named as its parent; adopt: false applies the object as it is", async () => {
  await using env = await setUp();
  const unnamed = { apiVersion: "v1", kind: "ConfigMap", data: { a: "1" } };
  const named = await env.inHandler(() => apply(unnamed));
  assertEquals(named.metadata?.name, "parent");
  const plain = await env.inHandler(() =>
    apply({ ...configMap({ a: "1" }, "plain"), metadata: { name: "plain" } }, { adopt: false })
  );
  assertEquals(plain.metadata?.namespace, "default"); // the credentials' default namespace
  assertEquals([plain.metadata?.ownerReferences, plain.metadata?.labels], [undefined, undefined]);
});

Deno.test("the resource is found by discovery once per group-version, or given", async () => {
  await using env = await setUp();
  await env.inHandler(() => apply(configMap({ a: "1" }, "one")));
  await env.inHandler(() => apply(configMap({ a: "1" }, "two")));
  const configmaps = new Resource({
    group: "",
    version: "v1",
    plural: "configmaps",
    kind: "ConfigMap",
    namespaced: true,
  });
  const three = await env.inHandler(() =>
    apply({ metadata: { name: "three" }, data: { a: "1" } }, { resource: configmaps })
  );
  assertEquals([three.apiVersion, three.kind], ["v1", "ConfigMap"]);
  const discovery = env.cluster.requests.filter((r) => r.method === "GET").map((r) => r.path);
  assertEquals(discovery, ["/api/v1"]);
});

Deno.test("outside an operator, apply needs an api (and then uses the default settings)", async () => {
  await using env = await setUp();
  const owner = env.parent;
  await assertRejects(
    () => apply(configMap({ a: "1" }), { owner }),
    UsageError,
    "kopf.apply() needs an API client: call it from a handler of a running operator",
  );
  const applied = await apply(configMap({ a: "1" }), { owner, api: env.api });
  assertEquals(managersOf(applied), ["kopf Apply"]);
  assertEquals(applied.metadata?.ownerReferences?.[0]?.name, "parent");
});

Deno.test("bad calls are refused with what to do, before any request", async () => {
  await using env = await setUp();
  await assertRejects(
    () => env.inHandler(() => apply({ metadata: { name: "x" }, data: {} })),
    UsageError,
    'kopf.apply() needs the object\'s apiVersion and kind (e.g. "v1" and "ConfigMap"), or the ' +
      '{ resource } to apply it to; "x" in "default" has apiVersion undefined and kind undefined.',
  );
  await assertRejects(
    () => env.inHandler(() => apply(configMap({}), { fieldManager: "tab\there" })),
    UsageError,
    "kopf.apply(): the field manager must be a non-empty string of at most 128 printable",
  );
  await assertRejects(
    () => env.inHandler(() => apply([configMap({})])),
    UsageError,
    "kopf.apply() applies one object at a time",
  );
  assertEquals(patchesOf(env.cluster), []);
  await assertRejects(
    () => env.inHandler(() => apply({ ...configMap({}), kind: "ConfigMapp" })),
    UsageError,
    'kopf.apply(): the cluster serves no kind ConfigMapp in v1 (for "parent-config" in ' +
      '"default"); check the apiVersion and kind, or install its CRD.',
  );
  assertEquals(patchesOf(env.cluster), []);
});
