/**
 * A minimal OpenAPI v3 discovery: enough for kubectl to learn that every resource
 * validates fields on the server (`fieldValidation`), so `kubectl apply/create/replace`
 * work with their default `--validate=strict`, plus the schemas of custom resources.
 * Built-in types carry no schemas (kubectl falls back to its compiled-in ones).
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import { apiVersionOf, type Catalog } from "./catalog.ts";

const QUERY_PARAMS = ["dryRun", "fieldManager", "fieldValidation", "force", "pretty"];

function hashOf(text: string): string {
  // FNV-1a, 2×32 bits: only a cache key for clients, not security.
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x811c9dc5) >>> 0;
  }
  return (a.toString(16).padStart(8, "0") + b.toString(16).padStart(8, "0")).toUpperCase();
}

/** The OpenAPI v3 document of one group version, or undefined when it is not served. */
export function openApiDocument(
  catalog: Catalog,
  group: string,
  version: string,
): JsonObject | undefined {
  const paths: JsonObject = {};
  const schemas: JsonObject = {};
  let any = false;
  for (const type of catalog.all()) {
    const served = type.versions.find((v) => v.name === version);
    if (type.group !== group || !served) continue;
    any = true;
    const gvk = { group, version, kind: type.kind };
    const base = group ? `/apis/${group}/${version}` : `/api/${version}`;
    const path = `${base}${type.namespaced ? "/namespaces/{namespace}" : ""}/${type.plural}/{name}`;
    const parameters = QUERY_PARAMS.map((name) => ({
      name,
      in: "query",
      schema: { type: "string" },
    }));
    const ref = `${
      group ? group.split(".").reverse().join(".") : "io.k8s.api.core"
    }.${version}.${type.kind}`;
    const operation = (action: string): JsonObject => ({
      operationId: `${action}${type.kind}`,
      parameters,
      responses: { "200": { description: "OK" } },
      "x-kubernetes-action": action,
      "x-kubernetes-group-version-kind": gvk,
    });
    paths[path] = {
      get: operation("get"),
      put: operation("put"),
      patch: operation("patch"),
      delete: operation("delete"),
    };
    if (served.schema) {
      schemas[ref] = { ...served.schema, "x-kubernetes-group-version-kind": [gvk] };
    }
  }
  if (!any) return undefined;
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes", version: "v1.32.0" },
    paths,
    components: { schemas },
  };
}

/** The OpenAPI v3 root: where each group version's document is. */
export function openApiRoot(catalog: Catalog): JsonObject {
  const paths: JsonObject = {};
  const versions = new Set<string>();
  for (const type of catalog.all()) {
    for (const v of type.versions) versions.add(apiVersionOf(type.group, v.name));
  }
  for (const gv of [...versions].sort()) {
    const [group, version] = gv.includes("/") ? gv.split("/") : ["", gv];
    const path = group ? `apis/${group}/${version}` : `api/${version}`;
    const doc = openApiDocument(catalog, group, version);
    paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${hashOf(JSON.stringify(doc))}` };
  }
  return { paths };
}
