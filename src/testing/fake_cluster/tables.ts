/**
 * The `Table` rendering that `kubectl get` asks for with
 * `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import type { PrinterColumn, ServedVersion } from "../../catalog/resource_types.ts";
import { CREATED_AT } from "../../catalog/builtin_types.ts";
import { isObject } from "./patching.ts";
import { partialMetadata } from "./renderings.ts";

/** What to embed in each row: nothing, the metadata only (default), or the object. */
export type IncludeObject = "None" | "Metadata" | "Object";

/** A Kubernetes-style short age: `45s`, `5m12s`, `3h`, `2d5h`, `400d`. */
export function humanDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 ? `${m}m${s % 60}s` : `${m}m`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 ? `${h}h${m % 60}m` : `${h}h`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 8) return h % 24 ? `${d}d${h % 24}h` : `${d}d`;
  if (d < 730) return `${d}d`;
  return `${Math.floor(d / 365)}y`;
}

function age(value: JsonValue | undefined): string {
  if (typeof value !== "string") return "<unknown>";
  const time = Date.parse(value);
  return Number.isNaN(time) ? "<invalid>" : humanDuration((Date.now() - time) / 1000);
}

/** Evaluate the simple JSONPath forms used by printer columns (`.a.b[0]`, `[?(@.k=="v")]`). */
export function jsonPath(object: JsonValue, path: string): JsonValue[] {
  let current: JsonValue[] = [object];
  const re =
    /\.([^.[\]]+)|\[(\d+)\]|\[\*\]|\['([^']+)'\]|\[\?\(@\.([\w.-]+)\s*==\s*["']([^"']*)["']\)\]/g;
  const expr = path.replace(/^\{|\}$/g, "").replace(/^\$/, "");
  for (const m of expr.matchAll(re)) {
    const next: JsonValue[] = [];
    for (const value of current) {
      if (m[1] !== undefined || m[3] !== undefined) {
        const key = m[1] ?? m[3];
        if (isObject(value) && value[key] !== undefined) next.push(value[key]);
      } else if (m[2] !== undefined) {
        if (Array.isArray(value) && value[Number(m[2])] !== undefined) {
          next.push(value[Number(m[2])]);
        }
      } else if (m[4] !== undefined) {
        if (Array.isArray(value)) {
          for (const item of value) {
            let field: JsonValue | undefined = item;
            for (const k of m[4].split(".")) field = isObject(field) ? field[k] : undefined;
            if (field !== undefined && String(field) === m[5]) next.push(item);
          }
        }
      } else if (Array.isArray(value)) {
        next.push(...value);
      }
    }
    current = next;
  }
  return current;
}

function cellOf(column: PrinterColumn, object: JsonObject): JsonValue {
  if (column.cell) return column.cell(object);
  const values = jsonPath(object, column.jsonPath);
  if (!values.length) return column.type === "integer" || column.type === "number" ? null : "";
  if (column.type === "date") return age(values[0]);
  if (values.length === 1) {
    const v = values[0];
    return isObject(v) || Array.isArray(v) ? JSON.stringify(v) : v;
  }
  return values.map((v) => (typeof v === "object" ? JSON.stringify(v) : String(v))).join(",");
}

/**
 * Whether the type's columns say when its objects were made: an Age column of a CRD's own,
 * or the Created At of the kinds that kube-apiserver tables by default (no Age then).
 */
function hasOwnTime(version: ServedVersion): boolean {
  return version.columns.some((c) => c.name === "Age" || c.name === CREATED_AT);
}

/** The column definitions for a type: Name, its own columns, Age. */
export function columnDefinitions(version: ServedVersion): JsonObject[] {
  const name = {
    name: "Name",
    type: "string",
    format: "name",
    description: "Name must be unique within a namespace.",
    priority: 0,
  };
  const own = version.columns.map((c) => ({
    name: c.name,
    type: c.type === "date" ? "date" : c.type,
    format: c.format ?? "",
    description: c.description ?? "",
    priority: c.priority ?? 0,
  }));
  const ageColumn = {
    name: "Age",
    type: "date",
    format: "",
    description: "The time since the object was created.",
    priority: 0,
  };
  return [name, ...own, ...(hasOwnTime(version) ? [] : [ageColumn])];
}

/** One table row for an object. */
export function rowOf(
  version: ServedVersion,
  object: JsonObject,
  include: IncludeObject,
): JsonObject {
  const meta = isObject(object.metadata) ? object.metadata : {};
  const cells: JsonValue[] = [
    String(meta.name ?? ""),
    ...version.columns.map((c) => cellOf(c, object)),
  ];
  if (!hasOwnTime(version)) cells.push(age(meta.creationTimestamp));
  const row: JsonObject = { cells };
  if (include === "Object") row.object = object;
  else if (include === "Metadata") row.object = partialMetadata(object);
  return row;
}

/** A Table of objects (columns omitted when `withColumns` is false, as in later watch events). */
export function tableOf(
  version: ServedVersion,
  objects: JsonObject[],
  include: IncludeObject,
  listMeta: JsonObject,
  withColumns = true,
): JsonObject {
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata: listMeta,
    columnDefinitions: withColumns ? columnDefinitions(version) : null,
    rows: objects.map((o) => rowOf(version, o, include)),
  };
}
