/**
 * OpenAPI schemas of what the cluster serves, shared by the v2 document and the v3 ones:
 * the built-in kinds' definitions, generated from the field tables of
 * `builtin_messages.ts` (types, and the strategic-merge keys as
 * `x-kubernetes-patch-merge-key`/`x-kubernetes-patch-strategy`, which kubectl reads to
 * compute `kubectl apply` patches), and the custom resources' schemas from their CRDs.
 * Definitions are named as kube-apiserver names them, e.g. `io.k8s.api.apps.v1.Deployment`.
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import { kindMessage, type Message, type MessageField, messageNamed } from "./builtin_messages.ts";

/** Which document a schema is for: v2 refers to `#/definitions/`, v3 to components. */
export type OpenApiStyle = "v2" | "v3";

const META = "io.k8s.apimachinery.pkg.apis.meta.v1";

/** The definition every object's `metadata` refers to. */
export const OBJECT_META = `${META}.ObjectMeta`;

/** The well-known types that are not messages in the tables, as the API server defines them. */
const WELL_KNOWN: Record<string, JsonObject> = {
  [`${META}.Time`]: { type: "string", format: "date-time" },
  [`${META}.MicroTime`]: { type: "string", format: "date-time" },
  [`${META}.FieldsV1`]: { type: "object" },
  "io.k8s.apimachinery.pkg.api.resource.Quantity": { type: "string" },
  "io.k8s.apimachinery.pkg.util.intstr.IntOrString": { type: "string", format: "int-or-string" },
};

const WELL_KNOWN_OF: Record<string, string> = {
  time: `${META}.Time`,
  microtime: `${META}.MicroTime`,
  fieldsV1: `${META}.FieldsV1`,
  quantity: "io.k8s.apimachinery.pkg.api.resource.Quantity",
  intstr: "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
};

const PRIMITIVES: Record<string, JsonObject> = {
  string: { type: "string" },
  int: { type: "integer", format: "int64" },
  bool: { type: "boolean" },
  bytes: { type: "string", format: "byte" },
};

function refTo(name: string, style: OpenApiStyle): JsonObject {
  return { $ref: style === "v2" ? `#/definitions/${name}` : `#/components/schemas/${name}` };
}

/** The schema of one value of a field's type (not the list around it). */
function valueSchema(type: string, style: OpenApiStyle, refs: Set<string>): JsonObject {
  if (type.startsWith("map<")) {
    return { type: "object", additionalProperties: valueSchema(type.slice(4, -1), style, refs) };
  }
  if (PRIMITIVES[type]) return { ...PRIMITIVES[type] };
  const name = WELL_KNOWN_OF[type] ?? messageNamed(type).definition;
  refs.add(name);
  return refTo(name, style);
}

function fieldSchema(field: MessageField, style: OpenApiStyle, refs: Set<string>): JsonObject {
  const value = valueSchema(field.type, style, refs);
  const strategies = [
    ...(field.mergeKey !== undefined ? ["merge"] : []),
    ...(field.retainKeys ? ["retainKeys"] : []),
  ];
  const patch: JsonObject = {};
  if (field.mergeKey) patch["x-kubernetes-patch-merge-key"] = field.mergeKey;
  if (strategies.length) patch["x-kubernetes-patch-strategy"] = strategies.join(",");
  if (field.repeated) return { type: "array", items: value, ...patch };
  if (!Object.keys(patch).length) return value;
  // v3 keeps a $ref alone and puts what else applies beside it in allOf, as kube-apiserver does.
  return style === "v3" && "$ref" in value ? { allOf: [value], ...patch } : { ...value, ...patch };
}

function messageSchema(
  message: Message,
  style: OpenApiStyle,
  refs: Set<string>,
  gvk?: { group: string; version: string; kind: string },
): JsonObject {
  const properties: JsonObject = {};
  if (gvk) {
    properties.apiVersion = { type: "string" };
    properties.kind = { type: "string" };
  }
  for (const [name, field] of message.byName) properties[name] = fieldSchema(field, style, refs);
  const schema: JsonObject = { type: "object", properties };
  if (gvk) schema["x-kubernetes-group-version-kind"] = [gvk];
  return schema;
}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.lastIndexOf("/");
  return slash < 0
    ? { group: "", version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/**
 * The definitions of these built-in kinds, of the named ones in `also`, and of everything
 * they refer to, by name; a kind the tables do not describe is left out (clients then use
 * what they know of it).
 */
export function builtinDefinitions(
  kinds: Iterable<[apiVersion: string, kind: string]>,
  style: OpenApiStyle,
  also: readonly string[] = [],
): Record<string, JsonObject> {
  const out: Record<string, JsonObject> = {};
  const pending: string[] = [...also];
  const visit = (refs: Set<string>) => {
    for (const name of refs) if (!(name in out) && !pending.includes(name)) pending.push(name);
  };
  for (const [apiVersion, kind] of kinds) {
    const message = kindMessage(apiVersion, kind);
    if (!message) continue;
    const refs = new Set<string>();
    const gvk = { ...splitApiVersion(apiVersion), kind };
    out[message.definition] = messageSchema(message, style, refs, gvk);
    visit(refs);
  }
  while (pending.length) {
    const name = pending.shift()!;
    if (name in out) continue;
    if (WELL_KNOWN[name]) {
      out[name] = { ...WELL_KNOWN[name] };
      continue;
    }
    const refs = new Set<string>();
    out[name] = messageSchema(messageNamed(name.slice(name.lastIndexOf(".") + 1)), style, refs);
    visit(refs);
  }
  return out;
}

/** The definition name of a custom resource, e.g. `dev.kopf.v1.KopfExample`. */
export function customDefinitionName(group: string, version: string, kind: string): string {
  return `${group.split(".").reverse().join(".")}.${version}.${kind}`;
}

/**
 * A custom resource's schema as the API server publishes it: the CRD's schema with
 * `apiVersion`, `kind` and `metadata` declared, and its group, version and kind named.
 */
export function customDefinition(
  schema: JsonObject | undefined,
  gvk: { group: string; version: string; kind: string },
  style: OpenApiStyle,
): JsonObject {
  const base: JsonObject = schema ? structuredClone(schema) : { type: "object" };
  const properties = (base.properties ?? {}) as JsonObject;
  base.type ??= "object";
  base.properties = {
    apiVersion: { type: "string" },
    kind: { type: "string" },
    metadata: refTo(OBJECT_META, style),
    ...properties,
  };
  if (!schema) base["x-kubernetes-preserve-unknown-fields"] = true;
  base["x-kubernetes-group-version-kind"] = [gvk];
  return base;
}
