/**
 * `metadata.managedFields` as kube-apiserver keeps them: one entry per manager, operation
 * (`Apply` or `Update`), subresource and -- for updates -- apiVersion, each with the fields
 * it owns in `FieldsV1` and the time it last changed something. Decoded into field sets,
 * encoded back in the server's order, and kept up to date by writes that are not applies:
 * a create, update or patch owns what it added or changed and takes it from every other
 * manager, as the server's field manager does.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import { fieldElement } from "../../structs/owned_fields.ts";
import {
  difference,
  emptySet,
  type FieldSet,
  fromFieldsV1,
  insertPath,
  isEmptySet,
  toFieldsV1,
  union,
} from "./field_sets.ts";
import type { Shape } from "./field_shapes.ts";
import { compareValues, type Comparison } from "./field_walks.ts";
import { metaOf } from "./metadata.ts";
import { isObject, jsonEqual } from "./patching.ts";

/** The operations a managed fields entry records. */
export type FieldsOperation = "Apply" | "Update";

/** One manager's fields. */
export interface ManagerEntry {
  readonly manager: string;
  readonly operation: FieldsOperation;
  readonly apiVersion: string;
  readonly subresource?: string;
  time?: string;
  fields: FieldSet;
}

/** The entries of an object, by manager identifier ({@link managerId}). */
export type Managed = Map<string, ManagerEntry>;

/** What one write is tracked against: the object's shape, version and subresource. */
export interface FieldContext {
  /** The shape of the whole object. */
  readonly shape: Shape;
  /** The apiVersion the request was made in. */
  readonly apiVersion: string;
  /** `status` for writes to the status subresource. */
  readonly subresource?: string;
  /** Whether the main resource has a status subresource (its status is then not its own). */
  readonly statusApart: boolean;
  /** An object with nothing set, as a create compares against (see {@link emptyObject}). */
  readonly empty: JsonObject;
  /** The time of this write, as written in the entries. */
  readonly now: string;
}

/** The manager name of writes whose manager is unknown. */
const UNKNOWN_MANAGER = "unknown";
/** The manager of what an object held before its first apply. */
export const BEFORE_FIRST_APPLY = "before-first-apply";
/** How many update entries are kept before the oldest are merged. */
const MAX_UPDATE_MANAGERS = 10;
const ANCIENT_CHANGES = "ancient-changes";

/** Fields no entry ever holds: the object's identity and the server's bookkeeping. */
const STRIPPED: FieldSet = (() => {
  const set = emptySet();
  for (const field of ["apiVersion", "kind", "metadata"]) insertPath(set, [fieldElement(field)]);
  for (
    const field of [
      "name",
      "namespace",
      "creationTimestamp",
      "selfLink",
      "uid",
      "clusterName",
      "generation",
      "managedFields",
      "resourceVersion",
    ]
  ) insertPath(set, [fieldElement("metadata"), fieldElement(field)]);
  return set;
})();

/** The identifier of an entry: what makes two entries the same manager. */
export function managerId(entry: Omit<ManagerEntry, "fields" | "time">): string {
  const id: JsonObject = { manager: entry.manager || UNKNOWN_MANAGER, operation: entry.operation };
  // Appliers are the same manager whatever version they apply in.
  if (entry.operation === "Update") id.apiVersion = entry.apiVersion;
  if (entry.subresource) id.subresource = entry.subresource;
  return JSON.stringify(id);
}

/** A manager as conflicts name it: `"m"`, `"m" with subresource "status"`, `"m" using v1`. */
export function managerText(entry: ManagerEntry): string {
  let text = JSON.stringify(entry.manager);
  if (entry.subresource) text += ` with subresource ${JSON.stringify(entry.subresource)}`;
  if (entry.operation === "Update") text += ` using ${entry.apiVersion}`;
  return text;
}

/** The entries of `metadata.managedFields`; `undefined` when they are malformed. */
export function decodeManaged(value: JsonValue | undefined): Managed | undefined {
  const managed: Managed = new Map();
  if (value === undefined || value === null) return managed;
  if (!Array.isArray(value)) return undefined;
  for (const raw of value) {
    if (!isObject(raw)) return undefined;
    const { manager, operation, apiVersion, time, fieldsType, subresource } = raw;
    if (operation !== "Apply" && operation !== "Update") return undefined;
    if (typeof apiVersion !== "string" || !apiVersion || fieldsType !== "FieldsV1") {
      return undefined;
    }
    const fields = fromFieldsV1(raw.fieldsV1);
    if (!fields) return undefined;
    const entry: ManagerEntry = {
      manager: typeof manager === "string" ? manager : "",
      operation,
      apiVersion,
      subresource: typeof subresource === "string" && subresource ? subresource : undefined,
      time: typeof time === "string" ? time : undefined,
      fields,
    };
    managed.set(managerId(entry), entry);
  }
  return managed;
}

function seconds(time: string | undefined): number {
  return time === undefined ? 0 : Math.floor(Date.parse(time) / 1000) || 0;
}

function compareEntries(p: ManagerEntry, q: ManagerEntry): number {
  const by = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return by(p.operation, q.operation) || seconds(p.time) - seconds(q.time) ||
    by(p.manager, q.manager) || by(p.apiVersion, q.apiVersion) ||
    by(p.subresource ?? "", q.subresource ?? "");
}

/** `metadata.managedFields` of the entries, in the server's order; `undefined` for none. */
export function encodeManaged(managed: Managed): JsonObject[] | undefined {
  if (!managed.size) return undefined;
  return [...managed.values()].sort(compareEntries).map((entry) => {
    const out: JsonObject = {
      manager: entry.manager,
      operation: entry.operation,
      apiVersion: entry.apiVersion,
    };
    if (entry.time !== undefined) out.time = entry.time;
    out.fieldsType = "FieldsV1";
    out.fieldsV1 = toFieldsV1(entry.fields);
    if (entry.subresource) out.subresource = entry.subresource;
    return out;
  });
}

/** The object without its managed fields, as the field manager compares objects. */
export function withoutManaged(object: JsonObject): JsonObject {
  const meta = metaOf(object);
  if (meta.managedFields === undefined) return object;
  const { managedFields: _, ...rest } = meta;
  return { ...object, metadata: rest };
}

/** The part of a set a write may own: only status through `status`, all else elsewhere. */
export function ownable(context: FieldContext, set: FieldSet): FieldSet {
  const status = fieldElement("status");
  if (context.subresource === "status") {
    const out = emptySet();
    const node = set.children.get(status);
    if (node) out.children.set(status, node);
    return out;
  }
  if (!context.statusApart || !set.children.has(status)) return set;
  const out: FieldSet = { self: set.self, children: new Map(set.children) };
  out.children.delete(status);
  return out;
}

/** A comparison of two objects, limited to what the write may own. */
export function compareObjects(
  context: FieldContext,
  before: JsonObject,
  after: JsonObject,
): Comparison {
  const cmp = compareValues(withoutManaged(before), withoutManaged(after), context.shape);
  return {
    added: ownable(context, cmp.added),
    modified: ownable(context, cmp.modified),
    removed: ownable(context, cmp.removed),
  };
}

/** The set without the fields no entry holds. */
export function stripped(set: FieldSet): FieldSet {
  return difference(set, STRIPPED);
}

/** Take what a write changed from every manager but `except`; drop managers left empty. */
export function takeFrom(managed: Managed, changed: FieldSet, except?: string): void {
  for (const [id, entry] of managed) {
    if (id === except) continue;
    entry.fields = difference(entry.fields, changed);
    if (isEmptySet(entry.fields)) managed.delete(id);
  }
}

/** Record an update by `manager`: it owns what it added or changed, since `now`. */
export function recordUpdate(
  context: FieldContext,
  managed: Managed,
  manager: string,
  cmp: Comparison,
): void {
  const changed = union(cmp.modified, cmp.added);
  takeFrom(managed, union(changed, cmp.removed));
  const owned = stripped(changed);
  if (isEmptySet(owned)) return;
  const key = {
    manager: manager || UNKNOWN_MANAGER,
    operation: "Update" as const,
    apiVersion: context.apiVersion,
    subresource: context.subresource,
  };
  const id = managerId(key);
  const previous = managed.get(id);
  managed.set(id, {
    ...key,
    time: context.now,
    fields: previous ? union(previous.fields, owned) : owned,
  });
  capUpdateManagers(managed);
}

/** Past ten update entries, the oldest are merged into `ancient-changes` per version. */
function capUpdateManagers(managed: Managed): void {
  const updaters = [...managed.entries()].filter(([, e]) => e.operation === "Update");
  if (updaters.length <= MAX_UPDATE_MANAGERS) return;
  updaters.sort(([a, p], [b, q]) => seconds(p.time) - seconds(q.time) || (a < b ? -1 : 1));
  let count = updaters.length;
  const firstOfVersion = new Map<string, string>();
  for (const [id, entry] of updaters) {
    if (count <= MAX_UPDATE_MANAGERS) break;
    const bucketKey = {
      manager: ANCIENT_CHANGES,
      operation: "Update" as const,
      apiVersion: entry.apiVersion,
    };
    const bucketId = managerId(bucketKey);
    const first = firstOfVersion.get(entry.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(entry.apiVersion, id);
      continue;
    }
    const bucket = managed.get(bucketId) ?? managed.get(first)!;
    managed.delete(first);
    managed.delete(id);
    managed.set(bucketId, {
      ...bucketKey,
      time: entry.time,
      fields: union(bucket.fields, entry.fields),
    });
    firstOfVersion.set(entry.apiVersion, bucketId);
    count--;
  }
}

/**
 * The managed fields after a write that is not an apply (create, update, patch), or
 * `undefined` to store none. `given` is what the request's body said of them: an empty
 * list resets them, other valid entries replace the stored ones (not through a
 * subresource). An object that has none gains none by updates, as on a real server, only
 * by its creation or an apply.
 */
export function trackUpdate(
  context: FieldContext,
  live: JsonObject | undefined,
  next: JsonObject,
  manager: string,
  given: JsonValue | undefined,
): JsonObject[] | undefined {
  let managed = decodeManaged(live ? metaOf(live).managedFields : undefined) ?? new Map();
  if (!context.subresource && given !== undefined) {
    const reset = Array.isArray(given) &&
      (given.length === 0 || (given.length === 1 && jsonEqual(given[0], {})));
    const decoded = reset ? new Map() : decodeManaged(given);
    if (reset) managed = new Map();
    else if (decoded?.size) managed = decoded;
  }
  if (!managed.size && live) return encodeManaged(managed);
  recordUpdate(context, managed, manager, compareObjects(context, live ?? context.empty, next));
  return encodeManaged(managed);
}

/** Whether two objects differ in nothing but the times of their managed fields. */
export function sameButTimes(a: JsonObject, b: JsonObject): boolean {
  const fa = metaOf(a).managedFields;
  const fb = metaOf(b).managedFields;
  if (!Array.isArray(fa) || !Array.isArray(fb) || fa.length !== fb.length) return false;
  const untimed = (list: JsonValue[]) => list.map((e) => (isObject(e) ? { ...e, time: null } : e));
  return jsonEqual(untimed(fa), untimed(fb)) && jsonEqual(withoutManaged(a), withoutManaged(b));
}
