/**
 * The OpenAPI documents of the fake API server, as kube-apiserver serves them:
 * - `/openapi/v3`: a root naming one document per group version, each with the paths of
 *   its resources (their operations take `fieldValidation`, which tells kubectl to leave
 *   validation to the server) and the schemas of its kinds (`kubectl explain`);
 * - `/openapi/v2`: one swagger document of everything, whose PATCH operations list the
 *   patch types each kind accepts and whose definitions carry the strategic-merge keys:
 *   kubectl computes client-side `kubectl apply` patches from it and validates with it.
 *   kubectl asks for it in protobuf (`openapi_v2_protobuf.ts`); other clients get JSON.
 *
 * Built-in kinds get the definitions of `openapi_definitions.ts`, custom resources the
 * schemas of their CRDs.
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import {
  apiVersionOf,
  type ResourceType,
  type ServedVersion,
} from "../../catalog/resource_types.ts";
import type { Catalog } from "./catalog.ts";
import { kindMessage } from "./builtin_messages.ts";
import {
  builtinDefinitions,
  customDefinition,
  customDefinitionName,
  OBJECT_META,
  type OpenApiStyle,
} from "./openapi_definitions.ts";

const KUBERNETES_VERSION = "v1.32.0";
const QUERY_PARAMS = ["dryRun", "fieldManager", "fieldValidation", "force", "pretty"];
const PATCH_TYPES = ["application/json-patch+json", "application/merge-patch+json"];
const STRATEGIC = "application/strategic-merge-patch+json";

function hashOf(text: string): string {
  // FNV-1a, 2x32 bits: only a cache key for clients, not security.
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x811c9dc5) >>> 0;
  }
  return (a.toString(16).padStart(8, "0") + b.toString(16).padStart(8, "0")).toUpperCase();
}

/** One served version of a type, with what its documents need to say about it. */
interface Served {
  type: ResourceType;
  version: ServedVersion;
  apiVersion: string;
  gvk: { group: string; version: string; kind: string };
  /** The definition of its objects, if any is published. */
  definition?: string;
}

function servedVersions(catalog: Catalog, only?: { group: string; version: string }): Served[] {
  const out: Served[] = [];
  for (const type of catalog.all()) {
    for (const version of type.versions) {
      if (only && (type.group !== only.group || version.name !== only.version)) continue;
      const apiVersion = apiVersionOf(type.group, version.name);
      const gvk = { group: type.group, version: version.name, kind: type.kind };
      const definition = type.builtin
        ? kindMessage(apiVersion, type.kind)?.definition
        : customDefinitionName(type.group, version.name, type.kind);
      out.push({ type, version, apiVersion, gvk, definition });
    }
  }
  return out;
}

/** The definitions of these served versions, built-in and custom, and what they refer to. */
function definitionsOf(served: Served[], style: OpenApiStyle): JsonObject {
  const custom = served.filter((s) => !s.type.builtin);
  const out: JsonObject = builtinDefinitions(
    served.filter((s) => s.type.builtin).map((s) => [s.apiVersion, s.type.kind]),
    style,
    custom.length ? [OBJECT_META] : [],
  );
  for (const s of custom) out[s.definition!] = customDefinition(s.version.schema, s.gvk, style);
  return out;
}

function basePath({ type, version }: Served): string {
  const root = type.group ? `/apis/${type.group}/${version.name}` : `/api/${version.name}`;
  return `${root}${type.namespaced ? "/namespaces/{namespace}" : ""}/${type.plural}`;
}

/** The v3 document of one group version, or undefined when it is not served. */
export function openApiDocument(
  catalog: Catalog,
  group: string,
  version: string,
): JsonObject | undefined {
  const served = servedVersions(catalog, { group, version });
  if (!served.length) return undefined;
  const paths: JsonObject = {};
  const parameters = QUERY_PARAMS.map((name) => ({
    name,
    in: "query",
    schema: { type: "string" },
  }));
  for (const s of served) {
    const operation = (action: string): JsonObject => ({
      operationId: `${action}${s.type.kind}`,
      parameters,
      responses: {
        "200": {
          description: "OK",
          ...(s.definition
            ? {
              content: {
                "application/json": { schema: { $ref: `#/components/schemas/${s.definition}` } },
              },
            }
            : {}),
        },
      },
      "x-kubernetes-action": action,
      "x-kubernetes-group-version-kind": s.gvk,
    });
    if (s.type.virtual) {
      // The reviews: create-only, nothing to read back.
      paths[basePath(s)] = { post: operation("post") };
      continue;
    }
    paths[basePath(s)] = {
      get: operation("list"),
      post: operation("post"),
      delete: operation("deletecollection"),
    };
    paths[`${basePath(s)}/{name}`] = {
      get: operation("get"),
      put: operation("put"),
      patch: operation("patch"),
      delete: operation("delete"),
    };
  }
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes", version: KUBERNETES_VERSION },
    paths,
    components: { schemas: definitionsOf(served, "v3") },
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

/** The swagger 2.0 document of everything served, as `/openapi/v2` gives it in JSON. */
export function openApiV2Document(catalog: Catalog): JsonObject {
  const served = servedVersions(catalog);
  const paths: JsonObject = {};
  const query = QUERY_PARAMS.map((name) => ({
    name,
    in: "query",
    type: "string",
    uniqueItems: true,
  }));
  const pathParam = (name: string) => ({ name, in: "path", required: true, type: "string" });
  for (const s of served) {
    const namespaced = s.type.namespaced ? [pathParam("namespace")] : [];
    const operation = (action: string, consumes = ["*/*"]): JsonObject => ({
      operationId: `${action}${s.type.kind}`,
      consumes,
      produces: ["application/json", "application/yaml"],
      schemes: ["https"],
      parameters: query,
      responses: {
        "200": {
          description: "OK",
          ...(s.definition ? { schema: { $ref: `#/definitions/${s.definition}` } } : {}),
        },
      },
      "x-kubernetes-action": action,
      "x-kubernetes-group-version-kind": s.gvk,
    });
    if (s.type.virtual) {
      paths[basePath(s)] = { post: operation("post"), parameters: namespaced };
      continue;
    }
    paths[basePath(s)] = {
      get: operation("list"),
      post: operation("post"),
      delete: operation("deletecollection"),
      parameters: namespaced,
    };
    paths[`${basePath(s)}/{name}`] = {
      get: operation("get"),
      put: operation("put"),
      patch: operation("patch", s.type.builtin ? [...PATCH_TYPES, STRATEGIC] : PATCH_TYPES),
      delete: operation("delete"),
      parameters: [pathParam("name"), ...namespaced],
    };
  }
  return {
    swagger: "2.0",
    info: { title: "Kubernetes", version: KUBERNETES_VERSION },
    paths,
    definitions: definitionsOf(served, "v2"),
  };
}
