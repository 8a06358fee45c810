/**
 * The fake API server over real HTTP: objects, errors, patches, the status subresource,
 * deletion with finalizers, cascades, CRDs, discovery, tables.
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../../assert.ts";
import { call, configMap, exampleCrd } from "./helpers.ts";

// deno-lint-ignore no-explicit-any
type Body = any;

const CMS = "/api/v1/namespaces/default/configmaps";
const KEX = "/apis/kopf.dev/v1/namespaces/default/kopfexamples";

Deno.test("create fills in uid, timestamps, resourceVersion; get returns the same object", async () => {
  await using cluster = await FakeCluster.start();
  const created = await call(cluster, "POST", CMS, configMap("a", { k: "v" }));
  assertEquals(created.status, 201);
  const meta = created.body.metadata;
  assertMatch(meta.uid, /^[0-9a-f-]{36}$/);
  assertMatch(meta.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assertEquals(meta.namespace, "default");
  const got = await call(cluster, "GET", `${CMS}/a`);
  assertEquals(got.body, created.body);
  assertEquals(got.body.data, { k: "v" });
});

Deno.test("generateName gets a random suffix; a missing name or namespace is refused", async () => {
  await using cluster = await FakeCluster.start();
  const a = await call(cluster, "POST", CMS, configMap("", {}, { generateName: "gen-" }));
  assertMatch(a.body.metadata.name, /^gen-[a-z0-9]{5}$/);
  const noName = await call(cluster, "POST", CMS, { metadata: {} });
  assertEquals([noName.status, noName.body.reason], [422, "Invalid"]);
  assertStringIncludes(noName.body.message, "metadata.name");
  const noNs = await call(cluster, "POST", "/api/v1/namespaces/nope/configmaps", configMap("x"));
  assertEquals([noNs.status, noNs.body.kind, noNs.body.reason], [404, "Status", "NotFound"]);
  assertEquals(noNs.body.message, 'namespaces "nope" not found');
});

Deno.test("a second create is 409 AlreadyExists; a stale PUT is 409 Conflict", async () => {
  await using cluster = await FakeCluster.start();
  const first = await call(cluster, "POST", CMS, configMap("a"));
  const again = await call(cluster, "POST", CMS, configMap("a"));
  assertEquals([again.status, again.body.reason], [409, "AlreadyExists"]);
  assertEquals(again.body.details, { name: "a", kind: "configmaps" });
  const updated = await call(cluster, "PUT", `${CMS}/a`, { ...first.body, data: { x: "1" } });
  assertEquals(updated.status, 200);
  assert(
    Number(updated.body.metadata.resourceVersion) > Number(first.body.metadata.resourceVersion),
  );
  const stale = await call(cluster, "PUT", `${CMS}/a`, { ...first.body, data: { x: "2" } });
  assertEquals([stale.status, stale.body.reason], [409, "Conflict"]);
  const unconditional = await call(cluster, "PUT", `${CMS}/a`, {
    ...configMap("a", { x: "3" }),
  });
  assertEquals(unconditional.body.data, { x: "3" });
});

Deno.test("a write that changes nothing keeps the resourceVersion", async () => {
  await using cluster = await FakeCluster.start();
  const first = await call(cluster, "POST", CMS, configMap("a", { k: "v" }));
  const same = await call(cluster, "PATCH", `${CMS}/a`, { data: { k: "v" } }, {
    "content-type": "application/merge-patch+json",
  });
  assertEquals(same.body.metadata.resourceVersion, first.body.metadata.resourceVersion);
});

Deno.test("merge, JSON and strategic patches; a failing JSON-patch test is 422", async () => {
  await using cluster = await FakeCluster.start();
  await call(cluster, "POST", "/apis/apps/v1/namespaces/default/deployments", {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "d", finalizers: ["a/b"] },
    spec: {
      template: {
        spec: {
          containers: [
            { name: "main", image: "x:1", env: [{ name: "A", value: "1" }] },
            { name: "side", image: "y:1" },
          ],
        },
      },
    },
  });
  const path = "/apis/apps/v1/namespaces/default/deployments/d";
  const smp = await call(cluster, "PATCH", path, {
    metadata: { finalizers: ["c/d"] },
    spec: {
      template: {
        spec: {
          containers: [
            { name: "main", env: [{ name: "B", value: "2" }] },
            { name: "side", $patch: "delete" },
          ],
        },
      },
    },
  }, { "content-type": "application/strategic-merge-patch+json" });
  assertEquals(smp.status, 200);
  // Items new to a merged list come first, as in Kubernetes' strategic merge.
  assertEquals(smp.body.metadata.finalizers, ["c/d", "a/b"]);
  assertEquals(smp.body.spec.template.spec.containers, [
    {
      name: "main",
      image: "x:1",
      env: [{ name: "B", value: "2" }, { name: "A", value: "1" }],
      imagePullPolicy: "IfNotPresent",
      resources: {},
      terminationMessagePath: "/dev/termination-log",
      terminationMessagePolicy: "File",
    },
  ]);
  const merge = await call(cluster, "PATCH", path, { spec: { replicas: 3 } }, {
    "content-type": "application/merge-patch+json",
  });
  assertEquals(merge.body.spec.replicas, 3);
  const json = await call(cluster, "PATCH", path, [
    { op: "test", path: "/spec/replicas", value: 3 },
    { op: "replace", path: "/spec/replicas", value: 4 },
  ], { "content-type": "application/json-patch+json" });
  assertEquals(json.body.spec.replicas, 4);
  const failed = await call(cluster, "PATCH", path, [
    { op: "test", path: "/spec/replicas", value: 99 },
  ], { "content-type": "application/json-patch+json" });
  assertEquals([failed.status, failed.body.kind, failed.body.reason], [422, "Status", "Invalid"]);
  const apply = await call(cluster, "PATCH", path, "{}", {
    "content-type": "application/apply-patch+cbor",
  });
  assertEquals(apply.status, 415);
  assertStringIncludes(apply.body.message, "not CBOR");
});

Deno.test("custom resources: strategic merge is 415; unknown fields pruned; defaults applied; schema enforced", async () => {
  await using cluster = await FakeCluster.start();
  assertEquals(
    (await call(
      cluster,
      "POST",
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
      exampleCrd(),
    )).status,
    201,
  );
  const created = await call(cluster, "POST", KEX, {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name: "e" },
    spec: { field: "x", unknown: 1, free: { anything: [1, 2] } },
    extra: "dropped",
  });
  assertEquals(created.status, 201);
  assertEquals(created.body.spec, { field: "x", replicas: 1, free: { anything: [1, 2] } });
  assertEquals(created.body.extra, undefined);
  const smp = await call(cluster, "PATCH", `${KEX}/e`, { spec: { field: "y" } }, {
    "content-type": "application/strategic-merge-patch+json",
  });
  assertEquals([smp.status, smp.body.reason], [415, "UnsupportedMediaType"]);
  const bad = await call(cluster, "PATCH", `${KEX}/e`, { spec: { replicas: "many" } }, {
    "content-type": "application/merge-patch+json",
  });
  assertEquals([bad.status, bad.body.reason], [422, "Invalid"]);
  assertStringIncludes(bad.body.message, "spec.replicas");
  assertEquals(bad.body.details.causes[0].field, "spec.replicas");
});

Deno.test("the status subresource: the main endpoint ignores status, /status ignores the rest; generation follows spec", async () => {
  await using cluster = await FakeCluster.start();
  await call(
    cluster,
    "POST",
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    exampleCrd(),
  );
  const merge = { "content-type": "application/merge-patch+json" };
  const created = await call(cluster, "POST", KEX, {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name: "e" },
    spec: { field: "a" },
    status: { ignored: true },
  });
  assertEquals(created.body.status, undefined);
  assertEquals(created.body.metadata.generation, 1);
  const main = await call(cluster, "PATCH", `${KEX}/e`, {
    status: { x: 1 },
    metadata: { labels: { l: "1" } },
  }, merge);
  assertEquals(main.body.status, undefined);
  assertEquals(main.body.metadata.labels, { l: "1" });
  assertEquals(main.body.metadata.generation, 1, "metadata changes do not bump generation");
  const status = await call(cluster, "PATCH", `${KEX}/e/status`, {
    status: { x: 1 },
    spec: { field: "b" },
  }, merge);
  assertEquals(status.body.status, { x: 1 });
  assertEquals(status.body.spec.field, "a");
  assertEquals(status.body.metadata.generation, 1, "status changes do not bump generation");
  const spec = await call(cluster, "PATCH", `${KEX}/e`, { spec: { field: "c" } }, merge);
  assertEquals(spec.body.metadata.generation, 2);
  assertEquals(spec.body.status, { x: 1 });
});

Deno.test("without a status subresource, a change of the status is a new generation (as the API server counts)", async () => {
  await using cluster = await FakeCluster.start();
  const crd = exampleCrd();
  delete (crd.spec.versions[0] as { subresources?: unknown }).subresources;
  await call(cluster, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd);
  const merge = { "content-type": "application/merge-patch+json" };
  const created = await call(cluster, "POST", KEX, {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name: "e" },
    spec: { field: "a" },
    status: { kept: true },
  });
  assertEquals([created.body.status, created.body.metadata.generation], [{ kept: true }, 1]);
  const meta = await call(
    cluster,
    "PATCH",
    `${KEX}/e`,
    { metadata: { labels: { l: "1" } } },
    merge,
  );
  assertEquals(meta.body.metadata.generation, 1, "metadata changes do not bump generation");
  const status = await call(cluster, "PATCH", `${KEX}/e`, { status: { x: 1 } }, merge);
  assertEquals(status.body.status, { kept: true, x: 1 });
  assertEquals(status.body.metadata.generation, 2, "status changes bump generation");
  const same = await call(cluster, "PATCH", `${KEX}/e`, { status: { x: 1 } }, merge);
  assertEquals(same.body.metadata.generation, 2, "a write that changes nothing is no generation");
});

Deno.test("deletion waits for finalizers; new finalizers are refused while deleting", async () => {
  await using cluster = await FakeCluster.start();
  const merge = { "content-type": "application/merge-patch+json" };
  await call(cluster, "POST", CMS, configMap("a", {}, { finalizers: ["x/y"] }));
  const deleted = await call(cluster, "DELETE", `${CMS}/a`);
  assertEquals(deleted.status, 200);
  assertEquals(deleted.body.kind, "ConfigMap");
  assert(deleted.body.metadata.deletionTimestamp, "the object is marked, not gone");
  const added = await call(cluster, "PATCH", `${CMS}/a`, {
    metadata: { finalizers: ["x/y", "new/one"] },
  }, merge);
  assertEquals(added.status, 422);
  assertStringIncludes(added.body.message, "no new finalizers");
  const released = await call(
    cluster,
    "PATCH",
    `${CMS}/a`,
    { metadata: { finalizers: null } },
    merge,
  );
  assertEquals(released.status, 200);
  assertEquals((await call(cluster, "GET", `${CMS}/a`)).status, 404);
  await call(cluster, "POST", CMS, configMap("b"));
  const immediate = await call(cluster, "DELETE", `${CMS}/b`);
  assertEquals([immediate.body.kind, immediate.body.status], ["Status", "Success"]);
  assertEquals(immediate.body.details.name, "b");
});

Deno.test("dryRun=All validates and answers, but changes nothing", async () => {
  await using cluster = await FakeCluster.start();
  const created = await call(cluster, "POST", `${CMS}?dryRun=All`, configMap("a", { k: "v" }));
  assertEquals(created.status, 201);
  assertEquals(created.body.data, { k: "v" });
  assertEquals((await call(cluster, "GET", `${CMS}/a`)).status, 404);
  await call(cluster, "POST", CMS, configMap("b", { k: "v" }));
  const rv = cluster.resourceVersion;
  const patched = await call(cluster, "PATCH", `${CMS}/b?dryRun=All`, { data: { k: "w" } }, {
    "content-type": "application/merge-patch+json",
  });
  assertEquals(patched.body.data, { k: "w" });
  const deleted = await call(cluster, "DELETE", `${CMS}/b?dryRun=All`);
  assertEquals(deleted.status, 200);
  assertEquals((await call(cluster, "GET", `${CMS}/b`)).body.data, { k: "v" });
  assertEquals(cluster.resourceVersion, rv);
  const bad = await call(cluster, "POST", `${CMS}?dryRun=Some`, configMap("c"));
  assertEquals(bad.status, 400);
});

Deno.test("list pages are one snapshot: later changes stay out, every page has its version", async () => {
  await using cluster = await FakeCluster.start();
  for (const name of ["a", "b", "c", "d", "e"]) await call(cluster, "POST", CMS, configMap(name));
  const page1 = await call(cluster, "GET", `${CMS}?limit=2`);
  const rv = page1.body.metadata.resourceVersion;
  // After the first page: one object deleted, one changed, one created.
  await call(cluster, "DELETE", `${CMS}/c`);
  await call(cluster, "PATCH", `${CMS}/d`, { data: { x: "1" } }, {
    "content-type": "application/merge-patch+json",
  });
  await call(cluster, "POST", CMS, configMap("bb"));
  const names: string[] = page1.body.items.map((o: Body) => o.metadata.name);
  let token = page1.body.metadata.continue;
  while (token) {
    const page = await call(cluster, "GET", `${CMS}?limit=2&continue=${encodeURIComponent(token)}`);
    assertEquals(page.status, 200);
    assertEquals(page.body.metadata.resourceVersion, rv);
    assert(page.body.items.length <= 2);
    names.push(...page.body.items.map((o: Body) => o.metadata.name));
    for (const o of page.body.items) {
      if (o.metadata.name === "d") assertEquals(o.data?.x, undefined);
    }
    token = page.body.metadata.continue;
  }
  assertEquals(names, ["a", "b", "c", "d", "e"]);
  const fresh = await call(cluster, "GET", CMS);
  assertEquals(fresh.body.items.map((o: Body) => o.metadata.name), ["a", "b", "bb", "d", "e"]);
});

Deno.test("a continuation whose version is compacted away is 410 Expired", async () => {
  await using cluster = await FakeCluster.start();
  for (const name of ["a", "b", "c"]) await call(cluster, "POST", CMS, configMap(name));
  const page1 = await call(cluster, "GET", `${CMS}?limit=1`);
  await call(cluster, "POST", CMS, configMap("d"));
  cluster.faults.compact();
  const expired = await call(
    cluster,
    "GET",
    `${CMS}?limit=1&continue=${encodeURIComponent(page1.body.metadata.continue)}`,
  );
  assertEquals([expired.status, expired.body.reason, expired.body.code], [410, "Expired", 410]);
  const garbage = await call(cluster, "GET", `${CMS}?limit=1&continue=nonsense`);
  assertEquals(garbage.status, 400);
  // The request log tells how many objects each list answered.
  const lists = cluster.requests.filter((r) => r.verb === "list" && r.status === 200);
  assertEquals(lists.map((r) => r.items), [1]);
});

Deno.test("list: label selectors, field selectors, limit and continue", async () => {
  await using cluster = await FakeCluster.start();
  for (
    const [name, labels] of [["a", { app: "web", tier: "fe" }], ["b", { app: "web" }], ["c", {
      app: "db",
    }], ["d", {}]] as const
  ) {
    await call(cluster, "POST", CMS, configMap(name, {}, { labels }));
  }
  const names = async (query: string) =>
    (await call(cluster, "GET", `${CMS}?${query}`)).body.items.map((
      o: { metadata: { name: string } },
    ) => o.metadata.name);
  assertEquals(await names("labelSelector=app%3Dweb"), ["a", "b"]);
  assertEquals(await names("labelSelector=app!%3Dweb"), ["c", "d"]);
  assertEquals(await names("labelSelector=app%20in%20(db,web),!tier"), ["b", "c"]);
  assertEquals(await names("labelSelector=app%20notin%20(web)"), ["c", "d"]);
  assertEquals(await names("labelSelector=tier"), ["a"]);
  assertEquals(await names("fieldSelector=metadata.name%3Dc"), ["c"]);
  assertEquals(await names("fieldSelector=metadata.name!%3Dc,metadata.namespace%3Ddefault"), [
    "a",
    "b",
    "d",
  ]);
  const unsupported = await call(cluster, "GET", `${CMS}?fieldSelector=data.x%3D1`);
  assertEquals(unsupported.status, 400);
  const page1 = await call(cluster, "GET", `${CMS}?limit=3`);
  assertEquals(page1.body.items.length, 3);
  assertEquals(page1.body.metadata.remainingItemCount, 1);
  const page2 = await call(
    cluster,
    "GET",
    `${CMS}?limit=3&continue=${encodeURIComponent(page1.body.metadata.continue)}`,
  );
  assertEquals(page2.body.items.map((o: { metadata: { name: string } }) => o.metadata.name), ["d"]);
  assertEquals(page2.body.metadata.continue, undefined);
  const all = await call(cluster, "GET", "/api/v1/configmaps");
  assertEquals(all.body.kind, "ConfigMapList");
  assertEquals(all.body.items.length, 4);
});

Deno.test("owner references: background deletion collects dependents, orphan keeps them, foreground waits for blocking ones", async () => {
  await using cluster = await FakeCluster.start();
  const owner = await call(cluster, "POST", CMS, configMap("owner"));
  const ref = { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.body.metadata.uid };
  await call(cluster, "POST", CMS, configMap("child", {}, { ownerReferences: [ref] }));
  await call(cluster, "DELETE", `${CMS}/owner`);
  assertEquals((await call(cluster, "GET", `${CMS}/child`)).status, 404);

  const owner2 = await call(cluster, "POST", CMS, configMap("owner2"));
  const ref2 = { ...ref, name: "owner2", uid: owner2.body.metadata.uid };
  await call(cluster, "POST", CMS, configMap("kept", {}, { ownerReferences: [ref2] }));
  await call(cluster, "DELETE", `${CMS}/owner2`, { propagationPolicy: "Orphan" });
  assertEquals((await call(cluster, "GET", `${CMS}/owner2`)).status, 404);
  const kept = await call(cluster, "GET", `${CMS}/kept`);
  assertEquals(kept.status, 200);
  assertEquals(kept.body.metadata.ownerReferences, undefined);

  const owner3 = await call(cluster, "POST", CMS, configMap("owner3"));
  const ref3 = { ...ref, name: "owner3", uid: owner3.body.metadata.uid };
  await call(
    cluster,
    "POST",
    CMS,
    configMap("slow", {}, {
      ownerReferences: [{ ...ref3, blockOwnerDeletion: true }],
      finalizers: ["x/y"],
    }),
  );
  await call(cluster, "POST", CMS, configMap("quick", {}, { ownerReferences: [ref3] }));
  await call(cluster, "DELETE", `${CMS}/owner3?propagationPolicy=Foreground`);
  const waiting = await call(cluster, "GET", `${CMS}/owner3`);
  assertEquals(waiting.body.metadata.finalizers, ["foregroundDeletion"]);
  assert((await call(cluster, "GET", `${CMS}/slow`)).body.metadata.deletionTimestamp);
  assertEquals((await call(cluster, "GET", `${CMS}/quick`)).status, 404, "non-blocking: gone");
  await call(cluster, "PATCH", `${CMS}/slow`, { metadata: { finalizers: null } }, {
    "content-type": "application/merge-patch+json",
  });
  assertEquals((await call(cluster, "GET", `${CMS}/slow`)).status, 404);
  assertEquals((await call(cluster, "GET", `${CMS}/owner3`)).status, 404);
});

Deno.test("namespace deletion removes its objects, then the namespace; creating in it meanwhile is 403", async () => {
  await using cluster = await FakeCluster.start();
  await call(cluster, "POST", "/api/v1/namespaces", { metadata: { name: "ns1" } });
  const path = "/api/v1/namespaces/ns1/configmaps";
  await call(cluster, "POST", path, configMap("plain"));
  await call(cluster, "POST", path, configMap("held", {}, { finalizers: ["x/y"] }));
  const deleted = await call(cluster, "DELETE", "/api/v1/namespaces/ns1");
  assertEquals(deleted.body.status.phase, "Terminating");
  assertEquals((await call(cluster, "GET", `${path}/plain`)).status, 404);
  const refused = await call(cluster, "POST", path, configMap("late"));
  assertEquals([refused.status, refused.body.reason], [403, "Forbidden"]);
  assertEquals((await call(cluster, "GET", "/api/v1/namespaces/ns1")).status, 200);
  await call(cluster, "PATCH", `${path}/held`, { metadata: { finalizers: [] } }, {
    "content-type": "application/merge-patch+json",
  });
  assertEquals((await call(cluster, "GET", "/api/v1/namespaces/ns1")).status, 404);
});

Deno.test("CRDs: established, discoverable with names and categories, several versions, deletion removes objects", async () => {
  await using cluster = await FakeCluster.start();
  const v2 = {
    ...(exampleCrd().spec.versions[0] as Record<string, unknown>),
    name: "v2",
    storage: false,
  };
  const crd = await call(
    cluster,
    "POST",
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    exampleCrd([v2]),
  );
  assertEquals(crd.status, 201);
  const established = crd.body.status.conditions.find((c: { type: string }) =>
    c.type === "Established"
  );
  assertEquals(established.status, "True");
  const group = await call(cluster, "GET", "/apis/kopf.dev");
  assertEquals(group.body.preferredVersion, { groupVersion: "kopf.dev/v2", version: "v2" });
  const list = await call(cluster, "GET", "/apis/kopf.dev/v1");
  const kex = list.body.resources.find((r: { name: string }) => r.name === "kopfexamples");
  assertEquals(kex.kind, "KopfExample");
  assertEquals(kex.shortNames, ["kex"]);
  assertEquals(kex.categories, ["all", "kopf"]);
  assertEquals(kex.namespaced, true);
  assert(list.body.resources.some((r: { name: string }) => r.name === "kopfexamples/status"));
  await call(cluster, "POST", KEX, {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name: "e" },
    spec: {},
  });
  const asV2 = await call(cluster, "GET", "/apis/kopf.dev/v2/namespaces/default/kopfexamples/e");
  assertEquals(asV2.body.apiVersion, "kopf.dev/v2");
  const deleted = await call(
    cluster,
    "DELETE",
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/kopfexamples.kopf.dev",
  );
  assertEquals(deleted.status, 200);
  assertEquals((await call(cluster, "GET", "/apis/kopf.dev/v1")).status, 404);
  assertEquals(cluster.list("customresourcedefinitions").length, 0);
  const recreated = await call(
    cluster,
    "POST",
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    exampleCrd(),
  );
  assertEquals(recreated.status, 201);
  assertEquals((await call(cluster, "GET", KEX)).body.items, [], "old objects do not come back");
});

Deno.test("an invalid CRD is 422 with the reasons", async () => {
  await using cluster = await FakeCluster.start();
  const crd = exampleCrd();
  crd.metadata.name = "wrong.kopf.dev";
  const reply = await call(
    cluster,
    "POST",
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    crd,
  );
  assertEquals([reply.status, reply.body.reason], [422, "Invalid"]);
  assertStringIncludes(reply.body.message, "metadata.name");
});

Deno.test("discovery lists the built-ins with kinds, scopes, short names and verbs", async () => {
  await using cluster = await FakeCluster.start();
  const version = await call(cluster, "GET", "/version");
  assertEquals([version.body.major, version.body.minor], ["1", "32"]);
  assertEquals((await call(cluster, "GET", "/api")).body.versions, ["v1"]);
  const core = await call(cluster, "GET", "/api/v1");
  const byName = (name: string) =>
    core.body.resources.find((r: { name: string }) => r.name === name);
  for (
    const name of [
      "namespaces",
      "pods",
      "services",
      "configmaps",
      "secrets",
      "serviceaccounts",
      "persistentvolumeclaims",
      "events",
    ]
  ) {
    assert(byName(name), `${name} is served`);
  }
  assertEquals(byName("namespaces").namespaced, false);
  assertEquals(byName("pods").shortNames, ["po"]);
  assertEquals(byName("pods").verbs.includes("watch"), true);
  const groups = (await call(cluster, "GET", "/apis")).body.groups.map((g: { name: string }) =>
    g.name
  );
  for (
    const g of [
      "apps",
      "batch",
      "coordination.k8s.io",
      "events.k8s.io",
      "apiextensions.k8s.io",
      "admissionregistration.k8s.io",
      "rbac.authorization.k8s.io",
    ]
  ) {
    assert(groups.includes(g), `${g} is served`);
  }
  const ns = (await call(cluster, "GET", "/api/v1/namespaces")).body.items.map((
    o: { metadata: { name: string } },
  ) => o.metadata.name);
  assertEquals(ns, ["default", "kube-public", "kube-system"]);
  const unknown = await call(cluster, "GET", "/apis/nope.dev/v1/things");
  assertEquals([unknown.status, unknown.body.kind], [404, "Status"]);
});

Deno.test("Table and metadata-only renderings for kubectl and metadata clients", async () => {
  await using cluster = await FakeCluster.start();
  await call(cluster, "POST", CMS, configMap("a", { x: "1", y: "2" }));
  const table = await call(cluster, "GET", CMS, undefined, {
    accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
  });
  assertEquals(table.body.kind, "Table");
  assertEquals(table.body.columnDefinitions.map((c: { name: string }) => c.name), [
    "Name",
    "Data",
    "Age",
  ]);
  assertEquals(table.body.rows[0].cells.slice(0, 2), ["a", 2]);
  assertEquals(table.body.rows[0].object.kind, "PartialObjectMetadata");
  const meta = await call(cluster, "GET", `${CMS}/a`, undefined, {
    accept: "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io",
  });
  assertEquals(meta.body.kind, "PartialObjectMetadata");
  assertEquals(meta.body.data, undefined);
  assertEquals(meta.body.metadata.name, "a");
});

Deno.test("a bearer token is required when set; errors are Status objects", async () => {
  await using cluster = await FakeCluster.start({ token: "sekret" });
  const anonymous = await fetch(`${cluster.url}/api/v1/namespaces`);
  assertEquals(anonymous.status, 401);
  assertEquals((await anonymous.json()).reason, "Unauthorized");
  const ok = await call(cluster, "GET", "/api/v1/namespaces");
  assertEquals(ok.status, 200);
  assertEquals(cluster.connectionInfo.token, "sekret");
});

Deno.test("bad bodies are 400 with a clear message; YAML bodies are accepted", async () => {
  await using cluster = await FakeCluster.start();
  const broken = await call(cluster, "POST", CMS, "{not json");
  assertEquals([broken.status, broken.body.reason], [400, "BadRequest"]);
  assertStringIncludes(broken.body.message, "not valid JSON");
  const yaml = await call(
    cluster,
    "POST",
    CMS,
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: y}\ndata: {a: b}\n",
    {
      "content-type": "application/yaml",
    },
  );
  assertEquals(yaml.status, 201);
  const wrongKind = await call(cluster, "POST", CMS, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "s" },
  });
  assertEquals(wrongKind.status, 400);
  const badLabel = await call(
    cluster,
    "POST",
    CMS,
    configMap("l", {}, { labels: { "bad key!": "v" } }),
  );
  assertEquals(badLabel.status, 422);
});

Deno.test("fieldValidation: Strict refuses unknown fields of custom resources, Warn warns, Ignore drops", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(exampleCrd());
  const body = (name: string) => ({
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name },
    spec: { field: "x", typo: 1 },
  });
  const strict = await call(cluster, "POST", `${KEX}?fieldValidation=Strict`, body("s"));
  assertEquals([strict.status, strict.body.reason], [400, "BadRequest"]);
  assertStringIncludes(strict.body.message, 'unknown field "spec.typo"');
  const warned = await call(cluster, "POST", `${KEX}?fieldValidation=Warn`, body("w"));
  assertEquals(warned.status, 201);
  assertStringIncludes(warned.headers.get("warning") ?? "", "spec.typo");
  const ignored = await call(cluster, "POST", `${KEX}?fieldValidation=Ignore`, body("i"));
  assertEquals([ignored.status, ignored.headers.get("warning")], [201, null]);
  assertEquals(ignored.body.spec, { field: "x", replicas: 1 });
  const bad = await call(cluster, "POST", `${KEX}?fieldValidation=Loose`, body("b"));
  assertEquals(bad.status, 400);
});

Deno.test("services get a type and distinct cluster IPs; ports get their defaults", async () => {
  await using cluster = await FakeCluster.start();
  const service = (name: string) => ({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name },
    spec: { ports: [{ port: 80 }] },
  });
  const a = cluster.create(service("a")).spec as Record<string, unknown>;
  const b = cluster.create(service("b")).spec as Record<string, unknown>;
  assertEquals(a.type, "ClusterIP");
  // Within kubeadm's service CIDR, 10.96.0.0/12.
  assertMatch(String(a.clusterIP), /^10\.(9[6-9]|10\d|11[01])\.\d+\.\d+$/);
  assert(a.clusterIP !== b.clusterIP, "each service has its own IP");
  assertEquals(a.ports, [{ protocol: "TCP", targetPort: 80, port: 80 }]);
});

Deno.test("a badly encoded path is 400, not a server error", async () => {
  await using cluster = await FakeCluster.start();
  const reply = await call(cluster, "GET", "/api/v1/namespaces/%E0%A4%A/configmaps");
  assertEquals([reply.status, reply.body.reason], [400, "BadRequest"]);
});

Deno.test("the scale subresource of built-in workloads and of CRDs that declare it", async () => {
  await using cluster = await FakeCluster.start();
  const path = "/apis/apps/v1/namespaces/default/deployments";
  await call(cluster, "POST", path, {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "d" },
    spec: { replicas: 1, selector: { matchLabels: { app: "d" } }, template: {} },
  });
  const scale = await call(cluster, "GET", `${path}/d/scale`);
  assertEquals([scale.body.kind, scale.body.apiVersion], ["Scale", "autoscaling/v1"]);
  assertEquals([scale.body.spec.replicas, scale.body.status.selector], [1, "app=d"]);
  const patched = await call(cluster, "PATCH", `${path}/d/scale`, { spec: { replicas: 4 } }, {
    "content-type": "application/merge-patch+json",
  });
  assertEquals(patched.body.spec.replicas, 4);
  const deployment = cluster.get("deployments.apps", "d")!;
  assertEquals([
    (deployment.spec as { replicas: number }).replicas,
    deployment.metadata?.generation,
  ], [4, 2]);
  const negative = await call(cluster, "PUT", `${path}/d/scale`, { spec: { replicas: -1 } });
  assertEquals(negative.status, 422);

  const crd = exampleCrd();
  (crd.spec.versions[0].subresources as Record<string, unknown>).scale = {
    specReplicasPath: ".spec.replicas",
    statusReplicasPath: ".status.replicas",
  };
  cluster.create(crd);
  const apis = await call(cluster, "GET", "/apis/kopf.dev/v1");
  assert(apis.body.resources.some((r: { name: string }) => r.name === "kopfexamples/scale"));
  cluster.create({
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name: "e" },
    spec: {},
  });
  const put = await call(cluster, "PUT", `${KEX}/e/scale`, { spec: { replicas: 7 } });
  assertEquals(put.body.spec.replicas, 7);
  assertEquals((cluster.get("kex", "e")!.spec as { replicas: number }).replicas, 7);
  assertEquals(
    (await call(cluster, "GET", `${CMS}/x/scale`)).status,
    404,
    "configmaps have no scale",
  );
});

Deno.test("a PUT of a custom resource must carry its resourceVersion; built-ins may update unconditionally", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(exampleCrd());
  const body = {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name: "e" },
    spec: {},
  };
  await call(cluster, "POST", KEX, body);
  const blind = await call(cluster, "PUT", `${KEX}/e`, { ...body, spec: { field: "x" } });
  assertEquals([blind.status, blind.body.reason], [422, "Invalid"]);
  assertStringIncludes(blind.body.message, "metadata.resourceVersion");
  const rv = cluster.get("kex", "e")?.metadata?.resourceVersion;
  const ok = await call(cluster, "PUT", `${KEX}/e`, {
    ...body,
    metadata: { name: "e", resourceVersion: rv },
    spec: { field: "x" },
  });
  assertEquals(ok.status, 200);
});

Deno.test("deletecollection deletes what the selectors match; finalizers still hold; dryRun deletes nothing", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(configMap("a", {}, { labels: { app: "x" } }));
  cluster.create(configMap("b", {}, { labels: { app: "x" }, finalizers: ["x/y"] }));
  cluster.create(configMap("c", {}, { labels: { app: "other" } }));
  const dry = await call(cluster, "DELETE", `${CMS}?labelSelector=app%3Dx&dryRun=All`);
  assertEquals(dry.status, 200);
  assertEquals(cluster.list("configmaps").length, 3);
  const reply = await call(cluster, "DELETE", `${CMS}?labelSelector=app%3Dx`);
  assertEquals(reply.body.kind, "ConfigMapList");
  assertEquals(reply.body.items.map((o: { metadata: { name: string } }) => o.metadata.name), [
    "a",
    "b",
  ]);
  assertEquals(cluster.list("configmaps").map((o) => o.metadata?.name), ["b", "c"]);
  assert(cluster.get("configmaps", "b")?.metadata?.deletionTimestamp);
});
