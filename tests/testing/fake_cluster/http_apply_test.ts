/**
 * Server-side apply over HTTP: create on apply, conflicts and force, shared ownership,
 * removal of what an applier gave up, no-op re-applies, the status subresource, dry
 * runs, the managed fields of other writes, and bad requests, as kube-apiserver answers.
 */
import { FakeApiError, FakeCluster } from "../../../src/testing/mod.ts";
import { assert, assertEquals, assertStringIncludes, assertThrows } from "../../assert.ts";
import { call, exampleCrd } from "./helpers.ts";
import { quote } from "../../doc_quotes.ts";

const APPLY = { "content-type": "application/apply-patch+yaml" };
const PATH = "/api/v1/namespaces/default/configmaps/cm";

function apply(cluster: FakeCluster, path: string, body: unknown, query: string) {
  return call(cluster, "PATCH", `${path}?${query}`, body, APPLY);
}

// deno-lint-ignore no-explicit-any
function entries(object: any): Record<string, unknown>[] {
  return object.metadata.managedFields ?? [];
}

// deno-lint-ignore no-explicit-any
function entryOf(object: any, manager: string) {
  // deno-lint-ignore no-explicit-any
  return entries(object).find((e: any) => e.manager === manager) as any;
}

Deno.test("apply: creates a missing object (201) in the path's namespace, owned by its manager", async () => {
  await using cluster = await FakeCluster.start();
  const yaml =
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  labels: {app: x}\ndata:\n  a: '1'\n";
  const reply = await apply(cluster, PATH, yaml, "fieldManager=alice");
  assertEquals(reply.status, 201);
  assertEquals(reply.body.metadata.namespace, "default");
  assertEquals(reply.body.data, { a: "1" });
  const [entry] = entries(reply.body);
  assertEquals(Object.keys(entry), [
    "manager",
    "operation",
    "apiVersion",
    "time",
    "fieldsType",
    "fieldsV1",
  ]);
  assertEquals(entry.manager, "alice");
  assertEquals(entry.operation, "Apply");
  assertEquals(entry.fieldsType, "FieldsV1");
  assertEquals(entry.fieldsV1, {
    "f:data": { "f:a": {} },
    "f:metadata": { "f:labels": { "f:app": {} } },
  });
  assert(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(String(entry.time)));
  assertEquals(
    cluster.get("configmaps", "cm")?.metadata?.managedFields,
    reply.body.metadata.managedFields,
  );
});

Deno.test("apply: re-applying the same configuration changes nothing: no new resourceVersion", async () => {
  await using cluster = await FakeCluster.start();
  const body = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm" }, data: { a: "1" } };
  const first = await apply(cluster, PATH, body, "fieldManager=alice");
  const before = cluster.resourceVersion;
  const again = await apply(cluster, PATH, body, "fieldManager=alice");
  assertEquals(again.status, 200);
  assertEquals(again.body.metadata.resourceVersion, first.body.metadata.resourceVersion);
  assertEquals(again.body.metadata.managedFields, first.body.metadata.managedFields);
  assertEquals(cluster.resourceVersion, before);
});

Deno.test("apply: another manager's field with another value is a 409 as the API server words it; force takes it", async () => {
  await using cluster = await FakeCluster.start();
  const mine = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cm" },
    data: { a: "1", b: "2" },
  };
  await apply(cluster, PATH, mine, "fieldManager=alice");
  const theirs = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cm" },
    data: { a: "9" },
  };
  const refused = await apply(cluster, PATH, theirs, "fieldManager=bob");
  assertEquals(refused.status, 409);
  assertEquals(refused.body, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: await quote("testing.md", "Apply failed "), // as docs/testing.md quotes it
    reason: "Conflict",
    details: {
      causes: [{
        type: "FieldManagerConflict",
        message: 'conflict with "alice"',
        field: ".data.a",
      }],
    },
    code: 409,
  });
  const two = { ...theirs, data: { a: "9", b: "8" } };
  const many = await apply(cluster, PATH, two, "fieldManager=bob");
  assertEquals(
    many.body.message,
    'Apply failed with 2 conflicts: conflicts with "alice":\n- .data.a\n- .data.b',
  );
  const forced = await apply(cluster, PATH, theirs, "fieldManager=bob&force=true");
  assertEquals(forced.status, 200);
  assertEquals(forced.body.data, { a: "9", b: "2" });
  assertEquals(entryOf(forced.body, "alice").fieldsV1, { "f:data": { "f:b": {} } });
  assertEquals(entryOf(forced.body, "bob").fieldsV1, { "f:data": { "f:a": {} } });
});

Deno.test("apply: the same value is shared ownership, and a shared field outlives one owner giving it up", async () => {
  await using cluster = await FakeCluster.start();
  const cm = (data?: Record<string, string>) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cm" },
    ...(data ? { data } : {}),
  });
  await apply(cluster, PATH, cm({ a: "1", b: "2" }), "fieldManager=alice");
  const shared = await apply(cluster, PATH, cm({ a: "1" }), "fieldManager=bob");
  assertEquals(shared.status, 200);
  assertEquals(entryOf(shared.body, "bob").fieldsV1, { "f:data": { "f:a": {} } });
  // Alice gives up both: b goes, a stays (bob owns it too).
  const given = await apply(cluster, PATH, cm(), "fieldManager=alice");
  assertEquals(given.body.data, { a: "1" });
  assertEquals(entryOf(given.body, "alice"), undefined);
});

Deno.test("apply: custom resources merge by the CRD's list types; atomic lists conflict as a whole", async () => {
  await using cluster = await FakeCluster.start();
  // deno-lint-ignore no-explicit-any
  const crd = exampleCrd() as any;
  const spec = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec;
  spec.properties.servers = {
    type: "array",
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": ["name"],
    items: { type: "object", properties: { name: { type: "string" }, port: { type: "integer" } } },
  };
  spec.properties.args = { type: "array", items: { type: "string" } };
  cluster.create(crd);
  const path = "/apis/kopf.dev/v1/namespaces/default/kopfexamples/e";
  const example = (specValue: Record<string, unknown>) => ({
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name: "e" },
    spec: specValue,
  });
  const first = await apply(
    cluster,
    path,
    example({ servers: [{ name: "a", port: 1 }], args: ["x"] }),
    "fieldManager=alice",
  );
  assertEquals(first.status, 201);
  assertEquals(entryOf(first.body, "alice").fieldsV1, {
    "f:spec": {
      "f:args": {},
      "f:servers": { 'k:{"name":"a"}': { ".": {}, "f:name": {}, "f:port": {} } },
    },
  });
  const second = await apply(
    cluster,
    path,
    example({ servers: [{ name: "b", port: 2 }] }),
    "fieldManager=bob",
  );
  assertEquals(second.body.spec.servers, [{ name: "a", port: 1 }, { name: "b", port: 2 }]);
  const atomic = await apply(cluster, path, example({ args: ["y"] }), "fieldManager=bob");
  assertEquals(atomic.status, 409);
  assertEquals(atomic.body.details.causes[0].field, ".spec.args");
});

Deno.test("apply: the status subresource owns only status; the object's apply leaves status alone", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(exampleCrd());
  const path = "/apis/kopf.dev/v1/namespaces/default/kopfexamples/e";
  const missing = await apply(cluster, `${path}/status`, {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name: "e" },
    status: { a: 1 },
  }, "fieldManager=ctl");
  assertEquals(missing.status, 404);
  await apply(cluster, path, {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name: "e" },
    spec: { field: "x" },
    status: { ignored: true },
  }, "fieldManager=alice");
  const status = await apply(cluster, `${path}/status`, {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name: "e" },
    spec: { field: "changed" },
    status: { phase: "Ready" },
  }, "fieldManager=ctl");
  assertEquals(status.status, 200);
  assertEquals(status.body.spec.field, "x");
  assertEquals(status.body.status, { phase: "Ready" });
  const entry = entryOf(status.body, "ctl");
  assertEquals([entry.subresource, entry.fieldsV1], ["status", { "f:status": { "f:phase": {} } }]);
  assertEquals(entryOf(status.body, "alice").fieldsV1, { "f:spec": { "f:field": {} } });
  const clash = await apply(cluster, `${path}/status`, {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name: "e" },
    status: { phase: "Gone" },
  }, "fieldManager=other");
  assertEquals(
    clash.body.message,
    'Apply failed with 1 conflict: conflict with "ctl" with subresource "status": .status.phase',
  );
  // A status applier named as docs/testing.md quotes it (of a manager "m").
  const named = await quote("testing.md", '"m" with ');
  assertStringIncludes(clash.body.message, named.replace('"m"', '"ctl"'));
});

/** A Deployment's applied configuration, with `metadata` of its own. */
function deploymentConfig(metadata: Record<string, unknown>, status?: unknown) {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "d", ...metadata },
    spec: {
      selector: { matchLabels: { app: "d" } },
      template: {
        metadata: { labels: { app: "d" } },
        spec: { containers: [{ name: "c", image: "i" }] },
      },
    },
    ...(status ? { status } : {}),
  };
}

Deno.test("apply: a configuration with a uid creates no missing object: 409 uid mismatch", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(exampleCrd());
  const body = (uid: string) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cm", uid },
    data: { a: "1" },
  });
  const refused = await apply(cluster, PATH, body("gone-uid"), "fieldManager=alice");
  assertEquals(refused.body, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message:
      'Operation cannot be fulfilled on configmaps "cm": uid mismatch: the provided object specified uid gone-uid, and no existing object was found',
    reason: "Conflict",
    details: { name: "cm", kind: "configmaps" },
    code: 409,
  });
  assertEquals(cluster.get("configmaps", "cm"), undefined);
  const example = await apply(cluster, "/apis/kopf.dev/v1/namespaces/default/kopfexamples/e", {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name: "e", uid: "u1" },
  }, "fieldManager=alice");
  assertEquals([example.status, example.body.message], [
    409,
    'Operation cannot be fulfilled on kopfexamples.kopf.dev "e": uid mismatch: the provided object specified uid u1, and no existing object was found',
  ]);
  // The words docs/testing.md quotes.
  assertStringIncludes(example.body.message, `: ${await quote("testing.md", "uid mis")}: `);
  const dry = await apply(cluster, PATH, body("gone-uid"), "fieldManager=alice&dryRun=All");
  assertEquals(dry.status, 409);
  const error = assertThrows(
    () => cluster.apply(body("gone-uid"), { fieldManager: "alice" }),
    FakeApiError,
    "uid mismatch",
  );
  assertEquals([error.code, error.reason], [409, "Conflict"]);
  // Without a uid (or with an empty one) the apply creates the object, as before.
  const created = await apply(cluster, PATH, body(""), "fieldManager=alice");
  assertEquals(created.status, 201);
  assert(created.body.metadata.uid, "the server gives the new object its uid");
});

Deno.test("apply: another uid than the stored one is 422 field is immutable; the stored uid passes, unlisted in the managed fields", async () => {
  await using cluster = await FakeCluster.start();
  const path = "/apis/apps/v1/namespaces/default/deployments/d";
  const created = await apply(cluster, path, deploymentConfig({}), "fieldManager=alice");
  const uid = created.body.metadata.uid;
  const refused = await apply(cluster, path, deploymentConfig({ uid: "other" }), "fieldManager=a");
  assertEquals(refused.body, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message:
      'Deployment.apps "d" is invalid: metadata.uid: Invalid value: "other": field is immutable',
    reason: "Invalid",
    details: {
      name: "d",
      group: "apps",
      kind: "Deployment",
      causes: [{
        reason: "FieldValueInvalid",
        message: 'Invalid value: "other": field is immutable',
        field: "metadata.uid",
      }],
    },
    code: 422,
  });
  const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm" }, data: { a: "1" } };
  const made = cluster.apply(cm, { fieldManager: "alice" });
  const again = { ...cm, metadata: { name: "cm", uid: "other" } };
  const error = assertThrows(() => cluster.apply(again, { fieldManager: "alice" }), FakeApiError);
  assertEquals([error.code, error.message], [
    422,
    'ConfigMap "cm" is invalid: metadata.uid: Invalid value: "other": field is immutable',
  ]);
  assertEquals(
    cluster.get("configmaps", "cm")?.metadata?.resourceVersion,
    made.metadata?.resourceVersion,
  );
  // The stored uid is fine, and no manager ever owns it.
  const same = await apply(
    cluster,
    path,
    deploymentConfig({ uid, labels: { x: "1" } }),
    "fieldManager=alice",
  );
  assertEquals([same.status, same.body.metadata.uid, same.body.metadata.labels], [
    200,
    uid,
    { x: "1" },
  ]);
  assertEquals(entryOf(same.body, "alice").fieldsV1["f:metadata"], { "f:labels": { "f:x": {} } });
  assert(!JSON.stringify(same.body.metadata.managedFields).includes("f:uid"));
});

Deno.test("apply: the status of a built-in with another uid is 422; a custom resource's status keeps the stored uid", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(exampleCrd());
  const path = "/apis/apps/v1/namespaces/default/deployments/d";
  const missing = await apply(
    cluster,
    `${path}/status`,
    deploymentConfig({ uid: "other" }, { replicas: 1 }),
    "fieldManager=ctl",
  );
  assertEquals(missing.status, 404);
  const created = await apply(cluster, path, deploymentConfig({}), "fieldManager=alice");
  const status = { observedGeneration: 1 };
  const refused = await apply(
    cluster,
    `${path}/status`,
    deploymentConfig({ uid: "other" }, status),
    "fieldManager=ctl",
  );
  assertEquals([refused.status, refused.body.message], [
    422,
    'Deployment.apps "d" is invalid: metadata.uid: Invalid value: "other": field is immutable',
  ]);
  const same = await apply(
    cluster,
    `${path}/status`,
    deploymentConfig({ uid: created.body.metadata.uid }, status),
    "fieldManager=ctl",
  );
  assertEquals([same.status, same.body.status.observedGeneration], [200, 1]);
  // The status strategy of custom resources copies the stored object but its status.
  const examples = "/apis/kopf.dev/v1/namespaces/default/kopfexamples/e";
  const example = { apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: { name: "e" } };
  const made = await apply(cluster, examples, example, "fieldManager=alice");
  const kept = await apply(cluster, `${examples}/status`, {
    ...example,
    metadata: { name: "e", uid: "other" },
    status: { phase: "Ready" },
  }, "fieldManager=ctl");
  assertEquals([kept.status, kept.body.metadata.uid, kept.body.status], [
    200,
    made.body.metadata.uid,
    { phase: "Ready" },
  ]);
});

Deno.test("apply: dryRun=All answers with the result and stores nothing", async () => {
  await using cluster = await FakeCluster.start();
  const body = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm" }, data: { a: "1" } };
  const dry = await apply(cluster, PATH, body, "fieldManager=alice&dryRun=All");
  assertEquals(dry.status, 201);
  assertEquals(dry.body.data, { a: "1" });
  assertEquals(cluster.get("configmaps", "cm"), undefined);
});

Deno.test("apply: bad requests are refused as the API server refuses them", async () => {
  await using cluster = await FakeCluster.start();
  const body = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm" } };
  const noManager = await apply(cluster, PATH, body, "");
  assertEquals(noManager.status, 422);
  // As docs/testing.md quotes it.
  assertEquals(noManager.body.message, await quote("testing.md", "PatchOptions."));
  const withFields = await apply(cluster, PATH, {
    ...body,
    metadata: { name: "cm", managedFields: [] },
  }, "fieldManager=a");
  assertEquals([withFields.status, withFields.body.message], [
    400,
    "metadata.managedFields must be nil",
  ]);
  const wrongKind = await apply(cluster, PATH, { ...body, kind: "Secret" }, "fieldManager=a");
  assertEquals([wrongKind.status, wrongKind.body.message], [
    400,
    "invalid object type: /v1, Kind=Secret",
  ]);
  const wrongName = await apply(
    cluster,
    PATH,
    { ...body, metadata: { name: "other" } },
    "fieldManager=a",
  );
  assertEquals(wrongName.status, 400);
  assertStringIncludes(wrongName.body.message, "does not match the name on the URL (cm)");
  const force = await call(cluster, "PATCH", `${PATH}?force=true`, { data: {} }, {
    "content-type": "application/merge-patch+json",
  });
  assertEquals(force.status, 422);
  assertStringIncludes(
    force.body.message,
    "force: Forbidden: may not be specified for non-apply patch",
  );
});

Deno.test("managed fields: creates and patches are Update entries of their manager or user agent", async () => {
  await using cluster = await FakeCluster.start();
  const created = await call(cluster, "POST", "/apis/apps/v1/namespaces/default/deployments", {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "d", labels: { app: "d" } },
    spec: {
      selector: { matchLabels: { app: "d" } },
      template: {
        metadata: { labels: { app: "d" } },
        spec: { containers: [{ name: "c", image: "i" }] },
      },
    },
  }, { "user-agent": "kubectl/v1.32.4 (linux/amd64) kubernetes/abc" });
  assertEquals(created.status, 201);
  const [entry] = entries(created.body);
  assertEquals([entry.manager, entry.operation, entry.apiVersion], [
    "kubectl",
    "Update",
    "apps/v1",
  ]);
  // As on a real server: added maps and items carry `.`, structs that always exist do not;
  // the scheme's defaults are the creator's.
  assertEquals(entry.fieldsV1, {
    "f:metadata": { "f:labels": { ".": {}, "f:app": {} } },
    "f:spec": {
      "f:progressDeadlineSeconds": {},
      "f:replicas": {},
      "f:revisionHistoryLimit": {},
      "f:selector": {},
      "f:strategy": {
        "f:rollingUpdate": { ".": {}, "f:maxSurge": {}, "f:maxUnavailable": {} },
        "f:type": {},
      },
      "f:template": {
        "f:metadata": { "f:creationTimestamp": {}, "f:labels": { ".": {}, "f:app": {} } },
        "f:spec": {
          "f:containers": {
            'k:{"name":"c"}': {
              ".": {},
              "f:image": {},
              "f:imagePullPolicy": {},
              "f:name": {},
              "f:resources": {},
              "f:terminationMessagePath": {},
              "f:terminationMessagePolicy": {},
            },
          },
          "f:dnsPolicy": {},
          "f:restartPolicy": {},
          "f:schedulerName": {},
          "f:securityContext": {},
          "f:terminationGracePeriodSeconds": {},
        },
      },
    },
  });
  const patched = await call(
    cluster,
    "PATCH",
    "/apis/apps/v1/namespaces/default/deployments/d?fieldManager=scaler",
    {
      spec: { replicas: 5 },
      metadata: { labels: { app: "d" } },
    },
    { "content-type": "application/merge-patch+json" },
  );
  assertEquals(entryOf(patched.body, "scaler").fieldsV1, { "f:spec": { "f:replicas": {} } });
  // An unchanged label is not taken from its owner.
  assertEquals(entryOf(patched.body, "kubectl").fieldsV1["f:metadata"], {
    "f:labels": { ".": {}, "f:app": {} },
  });
  // An apply of another value now conflicts with the updater, named with its version.
  const clash = await apply(cluster, "/apis/apps/v1/namespaces/default/deployments/d", {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "d" },
    spec: { replicas: 1 },
  }, "fieldManager=gitops");
  assertEquals(
    clash.body.message,
    'Apply failed with 1 conflict: conflict with "scaler" using apps/v1: .spec.replicas',
  );
  // An updater named as docs/testing.md quotes it (of a manager "m").
  const named = await quote("testing.md", '"m" using ');
  assertStringIncludes(clash.body.message, named.replace('"m"', '"scaler"'));
});

Deno.test("managed fields: an object without them gains none by updates, and its first apply names what it held", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cm" },
    data: { a: "1" },
  });
  const patched = await call(cluster, "PATCH", `${PATH}?fieldManager=x`, { data: { b: "2" } }, {
    "content-type": "application/merge-patch+json",
  });
  assertEquals(patched.body.metadata.managedFields, undefined);
  const applied = await apply(cluster, PATH, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cm" },
    data: { c: "3" },
  }, "fieldManager=alice");
  assertEquals(entryOf(applied.body, "before-first-apply").fieldsV1, {
    "f:data": { ".": {}, "f:a": {}, "f:b": {} },
  });
  assertEquals(entryOf(applied.body, "alice").fieldsV1, { "f:data": { "f:c": {} } });
  // The direct API writes with a manager of its own, or leaves the entries as they are.
  const direct = cluster.patch("configmaps", "cm", { data: { a: "9" } }, { fieldManager: "test" });
  assertEquals(entryOf(direct, "test").fieldsV1, { "f:data": { "f:a": {} } });
  assertEquals(entryOf(direct, "before-first-apply").fieldsV1, {
    "f:data": { ".": {}, "f:b": {} },
  });
});

Deno.test("apply: kubectl's server-side apply takes over what its client-side apply set, without force", async () => {
  await using cluster = await FakeCluster.start();
  const config = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cm" },
    data: { a: "1" },
  };
  const annotation = JSON.stringify(config);
  await call(
    cluster,
    "POST",
    "/api/v1/namespaces/default/configmaps?fieldManager=kubectl-client-side-apply",
    {
      ...config,
      metadata: {
        name: "cm",
        annotations: { "kubectl.kubernetes.io/last-applied-configuration": annotation },
      },
    },
  );
  const next = { ...config, data: { a: "2" } };
  const other = await apply(cluster, PATH, next, "fieldManager=someone");
  assertEquals(other.status, 409);
  const kubectl = await apply(cluster, PATH, next, "fieldManager=kubectl");
  assertEquals(kubectl.status, 200);
  assertEquals(kubectl.body.data, { a: "2" });
  const last = JSON.parse(
    kubectl.body.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"],
  );
  assertEquals(last.data, { a: "2" });
});

Deno.test("apply: the direct API's apply, with its conflicts as FakeApiError", async () => {
  await using cluster = await FakeCluster.start();
  const body = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm" }, data: { a: "1" } };
  const created = cluster.apply(body, { fieldManager: "alice" });
  assertEquals(entryOf(created, "alice").operation, "Apply");
  let error: unknown;
  try {
    cluster.apply({ ...body, data: { a: "2" } }, { fieldManager: "bob" });
  } catch (e) {
    error = e;
  }
  assertEquals([(error as { code?: number }).code, (error as { reason?: string }).reason], [
    409,
    "Conflict",
  ]);
  const forced = cluster.apply({ ...body, data: { a: "2" } }, { fieldManager: "bob", force: true });
  assertEquals(forced.data, { a: "2" });
});

Deno.test("apply: with RBAC, an apply that creates needs the right to create as well as to patch", async () => {
  await using cluster = await FakeCluster.start({ rbac: true });
  cluster.create({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "Role",
    metadata: { name: "patcher", namespace: "default" },
    rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["patch"] }],
  });
  cluster.create({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: { name: "patcher", namespace: "default" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "patcher" },
    subjects: [{ kind: "User", name: "op" }],
  });
  const op = { ...APPLY, authorization: `Bearer ${cluster.tokenFor({ user: "op" })}` };
  const body = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm" }, data: { a: "1" } };
  const refused = await fetch(`${cluster.url}${PATH}?fieldManager=op`, {
    method: "PATCH",
    headers: op,
    body: JSON.stringify(body),
  });
  assertEquals(refused.status, 403);
  assertStringIncludes(
    (await refused.json()).message,
    'User "op" cannot create resource "configmaps" in API group "" in the namespace "default"',
  );
  cluster.create(body);
  const allowed = await fetch(`${cluster.url}${PATH}?fieldManager=op`, {
    method: "PATCH",
    headers: op,
    body: JSON.stringify({ ...body, data: { a: "1", b: "2" } }),
  });
  assertEquals(allowed.status, 200);
  await allowed.body?.cancel();
});
