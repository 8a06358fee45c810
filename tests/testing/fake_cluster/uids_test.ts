/**
 * `metadata.uid` in writes over HTTP and through the direct API, as kube-apiserver
 * treats it: a patch may not change it (422), a PUT's uid is a precondition (409), as a
 * deletion's is; the stored uid passes. Applies are in http_apply_test.ts.
 */
import { FakeApiError, FakeCluster } from "../../../src/testing/mod.ts";
import { assertEquals, assertThrows } from "../../assert.ts";
import { call, configMap, exampleCrd } from "./helpers.ts";
import { quote } from "../../doc_quotes.ts";

/** The words docs/testing.md quotes for a changed uid and for a failed uid precondition. */
const IMMUTABLE = await quote("testing.md", "field is ");
const PRECONDITION = await quote("testing.md", "Precondition ");

const CM = "/api/v1/namespaces/default/configmaps/cm";
const DEPLOYMENT = "/apis/apps/v1/namespaces/default/deployments/d";
const EXAMPLE = "/apis/kopf.dev/v1/namespaces/default/kopfexamples/e";
const TYPES = {
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
  strategic: "application/strategic-merge-patch+json",
};

function patch(cluster: FakeCluster, path: string, type: keyof typeof TYPES, body: unknown) {
  return call(cluster, "PATCH", path, body, { "content-type": TYPES[type] });
}

function immutable(kind: string, name: string, uid: string): string {
  return `${kind} "${name}" is invalid: metadata.uid: Invalid value: "${uid}": ${IMMUTABLE}`;
}

function deployment() {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "d" },
    spec: {
      selector: { matchLabels: { app: "d" } },
      template: {
        metadata: { labels: { app: "d" } },
        spec: { containers: [{ name: "c", image: "i" }] },
      },
    },
  };
}

Deno.test("uid: a merge, JSON or strategic patch to another uid is 422 field is immutable; the stored uid passes", async () => {
  await using cluster = await FakeCluster.start();
  const created = cluster.create(configMap("cm", { a: "1" }));
  const uid = created.metadata!.uid as string;
  const merged = await patch(cluster, CM, "merge", { metadata: { uid: "other" } });
  assertEquals(merged.body, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: immutable("ConfigMap", "cm", "other"),
    reason: "Invalid",
    details: {
      name: "cm",
      kind: "ConfigMap",
      causes: [{
        reason: "FieldValueInvalid",
        message: 'Invalid value: "other": field is immutable',
        field: "metadata.uid",
      }],
    },
    code: 422,
  });
  const replaced = [{ op: "replace", path: "/metadata/uid", value: "other" }];
  const json = await patch(cluster, CM, "json", replaced);
  assertEquals([json.status, json.body.message], [422, immutable("ConfigMap", "cm", "other")]);
  const strategic = await patch(cluster, CM, "strategic", { metadata: { uid: "other" } });
  assertEquals(strategic.status, 422);
  const error = assertThrows(
    () => cluster.patch("configmaps", "cm", { metadata: { uid: "other" } }),
    FakeApiError,
  );
  assertEquals([error.code, error.message], [422, immutable("ConfigMap", "cm", "other")]);
  assertEquals(cluster.get("configmaps", "cm"), created);
  const same = await patch(cluster, CM, "merge", { metadata: { uid }, data: { a: "2" } });
  assertEquals([same.status, same.body.metadata.uid, same.body.data], [200, uid, { a: "2" }]);
});

Deno.test("uid: a patch of a grouped kind names it Kind.group; a built-in's status refuses another uid, a custom resource's keeps its own", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(exampleCrd());
  cluster.create(deployment());
  const main = await patch(cluster, DEPLOYMENT, "strategic", { metadata: { uid: "other" } });
  assertEquals([main.status, main.body.message], [422, immutable("Deployment.apps", "d", "other")]);
  assertEquals([main.body.details.kind, main.body.details.group], ["Deployment", "apps"]);
  const status = await patch(cluster, `${DEPLOYMENT}/status`, "merge", {
    metadata: { uid: "other" },
    status: { observedGeneration: 1 },
  });
  assertEquals([status.status, status.body.message], [
    422,
    immutable("Deployment.apps", "d", "other"),
  ]);
  const example = cluster.create({
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name: "e" },
  });
  const refused = await patch(cluster, EXAMPLE, "merge", { metadata: { uid: "other" } });
  assertEquals([refused.status, refused.body.message], [
    422,
    immutable("KopfExample.kopf.dev", "e", "other"),
  ]);
  // The status strategy of custom resources copies the stored object, all but its status.
  const kept = await patch(cluster, `${EXAMPLE}/status`, "merge", {
    metadata: { uid: "other" },
    status: { phase: "Ready" },
  });
  assertEquals([kept.status, kept.body.metadata.uid, kept.body.status], [
    200,
    example.metadata!.uid,
    { phase: "Ready" },
  ]);
});

Deno.test("uid: a PUT with another uid fails its precondition (409), before its resourceVersion; to /status too", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(exampleCrd());
  const created = cluster.create(configMap("cm", { a: "1" }));
  const uid = created.metadata!.uid as string;
  const precondition = (resource: string, name: string, stored: string) =>
    `Operation cannot be fulfilled on ${resource} "${name}": ${PRECONDITION}: UID in precondition: other, UID in object meta: ${stored}`;
  const put = await call(cluster, "PUT", CM, {
    ...created,
    metadata: { ...created.metadata, uid: "other", resourceVersion: "1" },
    data: { a: "2" },
  });
  assertEquals(put.body, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: precondition("configmaps", "cm", uid),
    reason: "Conflict",
    details: { name: "cm", kind: "configmaps" },
    code: 409,
  });
  const error = assertThrows(
    () => cluster.replace({ ...created, metadata: { ...created.metadata, uid: "other" } }),
    FakeApiError,
  );
  assertEquals([error.code, error.reason, error.message], [
    409,
    "Conflict",
    precondition("configmaps", "cm", uid),
  ]);
  assertEquals(cluster.get("configmaps", "cm"), created);
  const same = await call(cluster, "PUT", CM, { ...created, data: { a: "2" } });
  assertEquals([same.status, same.body.data], [200, { a: "2" }]);

  const example = cluster.create({
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name: "e" },
  });
  const other = { ...example, metadata: { ...example.metadata, uid: "other" } };
  const status = await call(cluster, "PUT", `${EXAMPLE}/status`, { ...other, status: { a: 1 } });
  assertEquals([status.status, status.body.message], [
    409,
    precondition("kopfexamples.kopf.dev", "e", example.metadata!.uid as string),
  ]);
  const kept = await call(cluster, "PUT", `${EXAMPLE}/status`, { ...example, status: { a: 1 } });
  assertEquals([kept.status, kept.body.status], [200, { a: 1 }]);
});

Deno.test("uid: a deletion's uid precondition is the same 409", async () => {
  await using cluster = await FakeCluster.start();
  const created = cluster.create(configMap("cm"));
  const refused = await call(cluster, "DELETE", CM, { preconditions: { uid: "other" } });
  assertEquals([refused.status, refused.body.message], [
    409,
    `Operation cannot be fulfilled on configmaps "cm": Precondition failed: UID in precondition: other, UID in object meta: ${
      created.metadata!.uid
    }`,
  ]);
  const deleted = await call(cluster, "DELETE", CM, {
    preconditions: { uid: created.metadata!.uid },
  });
  assertEquals(deleted.status, 200);
  assertEquals(cluster.get("configmaps", "cm"), undefined);
});
