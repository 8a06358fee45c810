/**
 * How the built-in resource types are written down: a spec per type (kind, names, scope,
 * verbs, subresources, columns) made into a {@link ResourceType}, and the column helpers.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../structs/bodies.ts";
import {
  ALL_VERBS,
  type ExtraSubresource,
  type PrinterColumn,
  type ResourceType,
} from "./resource_types.ts";

/** What a built-in type is made of; all but the kind have defaults. */
export interface BuiltinSpec {
  kind: string;
  shortNames?: string[];
  categories?: string[];
  namespaced?: boolean;
  status?: boolean;
  scale?: boolean;
  generation?: boolean;
  columns?: PrinterColumn[];
  selectableFields?: string[];
  /** The verbs when not all of them (`ALL_VERBS`). */
  verbs?: readonly string[];
  /** Subresources besides `status` and `scale`. */
  subresources?: ExtraSubresource[];
  /** Served by a handler of its own and never stored. */
  virtual?: boolean;
}

/** A built-in type served at one group version. */
export function builtin(
  group: string,
  version: string,
  plural: string,
  spec: BuiltinSpec,
): ResourceType {
  return {
    group,
    plural,
    singular: spec.kind.toLowerCase(),
    kind: spec.kind,
    listKind: `${spec.kind}List`,
    shortNames: spec.shortNames ?? [],
    categories: spec.categories ?? [],
    namespaced: spec.namespaced ?? true,
    verbs: spec.verbs ?? ALL_VERBS,
    versions: [{
      name: version,
      storage: true,
      status: spec.status ?? false,
      scale: spec.scale
        ? {
          specReplicasPath: ".spec.replicas",
          statusReplicasPath: ".status.replicas",
          labelSelectorPath: ".status.selector",
        }
        : undefined,
      columns: spec.columns ?? [],
      selectableFields: spec.selectableFields ?? [],
    }],
    builtin: true,
    generation: spec.generation ?? false,
    ...(spec.subresources ? { extraSubresources: spec.subresources } : {}),
    ...(spec.virtual ? { virtual: true } : {}),
  };
}

/** A subresource of the resource's own group version, answered with `kind`. */
export function sub(name: string, kind: string, verbs: readonly string[]): ExtraSubresource {
  return { name, kind, verbs };
}

/** The verbs of the kubelet's streams (`exec`, `attach`, `portforward`). */
export const STREAM_VERBS = ["create", "get"];
/** The verbs of the proxies (`nodes/proxy`, `pods/proxy`, `services/proxy`). */
export const PROXY_VERBS = ["create", "delete", "get", "patch", "update"];
/** The verbs of a subresource that edits part of its object. */
export const EDIT_VERBS = ["get", "patch", "update"];

/** The value at a path of keys. */
export function at(object: JsonObject, ...path: string[]): JsonValue | undefined {
  let cur: JsonValue | undefined = object;
  for (const key of path) {
    if (cur === null || typeof cur !== "object" || Array.isArray(cur)) return undefined;
    cur = cur[key];
  }
  return cur;
}

/** How many items or keys a value has. */
export function count(value: JsonValue | undefined): number {
  if (Array.isArray(value)) return value.length;
  if (value && typeof value === "object") return Object.keys(value).length;
  return 0;
}

/** A number, or 0. */
export function num(value: JsonValue | undefined): number {
  return typeof value === "number" ? value : 0;
}

/** A column read at a JSONPath. */
export function col(name: string, jsonPath: string, type = "string"): PrinterColumn {
  return { name, type, jsonPath };
}

/** The replica counts that kubectl prints for ReplicaSets and ReplicationControllers. */
export function replicaColumns(): PrinterColumn[] {
  return [
    col("Desired", ".spec.replicas", "integer"),
    col("Current", ".status.replicas", "integer"),
    col("Ready", ".status.readyReplicas", "integer"),
  ];
}

/** A column computed from the object. */
export function computed(
  name: string,
  cell: (o: JsonObject) => JsonValue,
  type = "string",
): PrinterColumn {
  return { name, type, jsonPath: "", cell };
}
