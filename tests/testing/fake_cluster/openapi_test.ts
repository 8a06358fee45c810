/**
 * The OpenAPI documents: /openapi/v2 (JSON, and gnostic protobuf for kubectl) and the
 * /openapi/v3 group-version documents, with the built-in kinds' definitions (types and
 * strategic-merge keys) and the custom resources' schemas.
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import type { JsonObject, JsonValue } from "../../../src/structs/bodies.ts";
import { ProtobufReader } from "../../../src/testing/fake_cluster/protobuf_wire.ts";
import { assert, assertEquals } from "../../assert.ts";
import { call, exampleCrd } from "./helpers.ts";

/** Every `$ref` in the document points at a schema the document has. */
function danglingRefs(doc: JsonObject, prefix: string, schemas: JsonObject): string[] {
  const out: string[] = [];
  const walk = (value: JsonValue) => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") {
      const ref = value.$ref;
      if (typeof ref === "string" && !(ref.slice(prefix.length) in schemas)) out.push(ref);
      Object.values(value).forEach(walk);
    }
  };
  walk(doc);
  return out;
}

Deno.test("/openapi/v2 in JSON: paths with patch types, built-in definitions with merge keys, CRD schemas", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(exampleCrd());
  const reply = await call(cluster, "GET", "/openapi/v2");
  assertEquals(reply.status, 200);
  const doc = reply.body;
  assertEquals(doc.swagger, "2.0");
  const defs = doc.definitions;
  assertEquals(danglingRefs(doc, "#/definitions/", defs), []);

  const deployment = defs["io.k8s.api.apps.v1.Deployment"];
  assertEquals(deployment["x-kubernetes-group-version-kind"], [
    { group: "apps", version: "v1", kind: "Deployment" },
  ]);
  assertEquals(deployment.properties.spec, {
    $ref: "#/definitions/io.k8s.api.apps.v1.DeploymentSpec",
  });
  assertEquals(defs["io.k8s.api.apps.v1.DeploymentSpec"].properties.strategy, {
    $ref: "#/definitions/io.k8s.api.apps.v1.DeploymentStrategy",
    "x-kubernetes-patch-strategy": "retainKeys",
  });
  const podSpec = defs["io.k8s.api.core.v1.PodSpec"].properties;
  assertEquals(podSpec.containers, {
    type: "array",
    items: { $ref: "#/definitions/io.k8s.api.core.v1.Container" },
    "x-kubernetes-patch-merge-key": "name",
    "x-kubernetes-patch-strategy": "merge",
  });
  assertEquals(podSpec.volumes["x-kubernetes-patch-strategy"], "merge,retainKeys");
  assertEquals(podSpec.tolerations["x-kubernetes-patch-strategy"], undefined);
  assertEquals(
    defs["io.k8s.api.core.v1.Container"].properties.ports["x-kubernetes-patch-merge-key"],
    "containerPort",
  );
  assertEquals(defs["io.k8s.api.core.v1.Probe"].properties.httpGet, {
    $ref: "#/definitions/io.k8s.api.core.v1.HTTPGetAction",
  }, "inline messages lend their fields");
  assertEquals(defs["io.k8s.apimachinery.pkg.util.intstr.IntOrString"], {
    type: "string",
    format: "int-or-string",
  });

  const custom = defs["dev.kopf.v1.KopfExample"];
  assertEquals(custom["x-kubernetes-group-version-kind"], [
    { group: "kopf.dev", version: "v1", kind: "KopfExample" },
  ]);
  assertEquals(custom.properties.metadata, {
    $ref: "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
  });
  assertEquals(custom.properties.spec.properties.replicas, {
    type: "integer",
    default: 1,
    minimum: 0,
  });

  const patchOf = (path: string) => doc.paths[path].patch;
  const builtin = patchOf("/apis/apps/v1/namespaces/{namespace}/deployments/{name}");
  assertEquals(builtin["x-kubernetes-group-version-kind"], {
    group: "apps",
    version: "v1",
    kind: "Deployment",
  });
  assert(builtin.consumes.includes("application/strategic-merge-patch+json"));
  assert(builtin.parameters.some((p: JsonObject) => p.name === "fieldValidation"));
  const crdPatch = patchOf("/apis/kopf.dev/v1/namespaces/{namespace}/kopfexamples/{name}");
  assert(!crdPatch.consumes.includes("application/strategic-merge-patch+json"));
  assert(doc.paths["/api/v1/namespaces/{name}"], "cluster-scoped paths have no namespace");
});

Deno.test("/openapi/v3 documents hold the schemas of their kinds and of what those refer to", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(exampleCrd());
  const root = await call(cluster, "GET", "/openapi/v3");
  const apps = await call(cluster, "GET", root.body.paths["apis/apps/v1"].serverRelativeURL);
  const schemas = apps.body.components.schemas;
  assertEquals(danglingRefs(apps.body, "#/components/schemas/", schemas), []);
  assertEquals(schemas["io.k8s.api.apps.v1.StatefulSet"]["x-kubernetes-group-version-kind"], [
    { group: "apps", version: "v1", kind: "StatefulSet" },
  ]);
  assert(schemas["io.k8s.api.core.v1.PodSpec"], "the pod template's types come along");
  // A $ref with something beside it goes in allOf in v3, as kube-apiserver writes it.
  assertEquals(schemas["io.k8s.api.apps.v1.DeploymentSpec"].properties.strategy, {
    allOf: [{ $ref: "#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy" }],
    "x-kubernetes-patch-strategy": "retainKeys",
  });
  const kopf = await call(cluster, "GET", root.body.paths["apis/kopf.dev/v1"].serverRelativeURL);
  const crdSchemas = kopf.body.components.schemas;
  assertEquals(danglingRefs(kopf.body, "#/components/schemas/", crdSchemas), []);
  assert(crdSchemas["dev.kopf.v1.KopfExample"]);
  const patch =
    kopf.body.paths["/apis/kopf.dev/v1/namespaces/{namespace}/kopfexamples/{name}"].patch;
  assert(patch.parameters.some((p: JsonObject) => p.name === "fieldValidation"));
});

/** A protobuf message's fields: number → raw values (bytes of nested ones, or numbers). */
function fieldsOf(bytes: Uint8Array): Map<number, (Uint8Array | bigint)[]> {
  const out = new Map<number, (Uint8Array | bigint)[]>();
  const reader = new ProtobufReader(bytes);
  for (const [number, wireType] of reader.fields()) {
    const value = wireType === 2 ? reader.chunk() : wireType === 0 ? reader.uvarint() : undefined;
    if (value === undefined) {
      reader.skip(wireType);
      continue;
    }
    out.set(number, [...(out.get(number) ?? []), value]);
  }
  return out;
}
const text = (value: Uint8Array | bigint | undefined) =>
  value instanceof Uint8Array ? new TextDecoder().decode(value) : "";
const one = (bytes: Uint8Array | bigint | undefined, ...path: number[]) => {
  let cur = bytes;
  for (const n of path) cur = fieldsOf(cur as Uint8Array).get(n)?.[0];
  return cur;
};
/** Named entries (`name = 1`, `value = 2`) of a repeated field, by name. */
function named(bytes: Uint8Array, field: number): Map<string, Uint8Array> {
  const entries = fieldsOf(bytes).get(field) ?? [];
  return new Map(entries.map((e) => [text(one(e, 1)), one(e, 2) as Uint8Array]));
}

Deno.test("/openapi/v2 in protobuf, as kubectl asks for it: gnostic's Document", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(exampleCrd());
  const response = await fetch(`${cluster.url}/openapi/v2`, {
    headers: { accept: "application/com.github.proto-openapi.spec.v2@v1.0+protobuf" },
  });
  assertEquals(response.status, 200);
  // The dotted spelling: Go's MIME parser refuses the "@" of the requested type.
  assertEquals(
    response.headers.get("content-type"),
    "application/com.github.proto-openapi.spec.v2.v1.0+protobuf",
  );
  const doc = new Uint8Array(await response.arrayBuffer());
  assertEquals(text(one(doc, 1)), "2.0"); // swagger
  assertEquals(text(one(doc, 2, 2)), "v1.32.0"); // info.version

  const definitions = named(one(doc, 9) as Uint8Array, 1);
  const deployment = definitions.get("io.k8s.api.apps.v1.Deployment")!;
  assert(deployment, "the Deployment definition");
  assertEquals(text(one(deployment, 22, 1)), "object"); // type
  const extensions = named(deployment, 31);
  // Vendor extensions travel as YAML text; JSON is YAML.
  assertEquals(JSON.parse(text(one(extensions.get("x-kubernetes-group-version-kind"), 2))), [
    { group: "apps", version: "v1", kind: "Deployment" },
  ]);
  const properties = named(one(deployment, 25) as Uint8Array, 1);
  assertEquals(
    text(one(properties.get("spec"), 1)),
    "#/definitions/io.k8s.api.apps.v1.DeploymentSpec",
  );
  const podSpec = named(one(definitions.get("io.k8s.api.core.v1.PodSpec"), 25) as Uint8Array, 1);
  const containers = named(podSpec.get("containers")!, 31);
  assertEquals(JSON.parse(text(one(containers.get("x-kubernetes-patch-merge-key"), 2))), "name");

  const replicas = named(
    one(
      named(one(definitions.get("dev.kopf.v1.KopfExample"), 25) as Uint8Array, 1).get("spec"),
      25,
    ) as Uint8Array,
    1,
  ).get("replicas")!;
  assertEquals(JSON.parse(text(one(replicas, 5, 2))), 1); // default

  const paths = named(one(doc, 8) as Uint8Array, 2);
  const item = paths.get("/apis/apps/v1/namespaces/{namespace}/deployments/{name}")!;
  const consumes = (fieldsOf(one(item, 8) as Uint8Array).get(7) ?? []).map(text);
  assert(consumes.includes("application/strategic-merge-patch+json"), consumes.join());
  const json = await call(cluster, "GET", "/openapi/v2", undefined, { accept: "application/json" });
  assertEquals(json.body.swagger, "2.0");
});
