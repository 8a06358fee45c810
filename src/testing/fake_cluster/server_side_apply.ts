/**
 * Server-side apply, as kube-apiserver's field manager does it: the applied configuration
 * is its manager's whole intent. It is merged into the live object (lists by their keys,
 * atomic values replaced); the fields the manager applied before and omits now are
 * removed unless another manager owns them; a field another manager owns and this apply
 * would change is a conflict (409), unless forced, which moves the field to the applier;
 * the same value set by several managers is owned by all of them. An apply that changes
 * nothing changes nothing, not even the time of its entry.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import { apiVersionOf } from "../../catalog/resource_types.ts";
import { checkAppliedFields } from "./builtin_decoding.ts";
import { ApiError, badRequest } from "./errors.ts";
import {
  difference,
  type FieldSet,
  intersection,
  isEmptySet,
  memberPaths,
  pathText,
  union,
} from "./field_sets.ts";
import { fieldSetOf, mergeApplied, removeFields } from "./field_walks.ts";
import {
  BEFORE_FIRST_APPLY,
  compareObjects,
  decodeManaged,
  encodeManaged,
  type FieldContext,
  type Managed,
  type ManagerEntry,
  managerId,
  managerText,
  ownable,
  recordUpdate,
  stripped,
  takeFrom,
  withoutManaged,
} from "./managed_fields.ts";
import { metaOf } from "./metadata.ts";
import { goMapOrder, isObject, jsonEqual } from "./patching.ts";
import type { Target } from "./targets.ts";

/** Who applies, and whether conflicts are overridden. */
export interface ApplyRequest {
  /** The field manager (required for applies). */
  readonly manager: string;
  /** Take the fields other managers own instead of failing on them. */
  readonly force: boolean;
}

/** kubectl's annotation of client-side apply, which its server-side apply keeps in step. */
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
/** The manager whose applies the API server reconciles with client-side apply's annotation. */
const KUBECTL = "kubectl";

/**
 * A 400 unless the configuration is an object of the target's kind and version; a 500
 * when it sets a field its built-in kind does not declare (`checkAppliedFields`).
 */
export function checkConfiguration(target: Target, config: JsonValue): JsonObject {
  if (!isObject(config)) {
    throw badRequest("error decoding patch: an applied configuration must be an object");
  }
  const { type, version } = target;
  const apiVersion = typeof config.apiVersion === "string" ? config.apiVersion : "";
  const kind = typeof config.kind === "string" ? config.kind : "";
  if (apiVersion !== apiVersionOf(type.group, version.name) || kind !== type.kind) {
    const gv = apiVersion.includes("/") ? apiVersion : `/${apiVersion}`;
    throw badRequest(`invalid object type: ${gv}, Kind=${kind}`);
  }
  const meta = config.metadata;
  if (meta !== undefined && meta !== null && !isObject(meta)) {
    throw badRequest("error decoding patch: metadata must be an object");
  }
  if (isObject(meta) && meta.managedFields !== undefined && meta.managedFields !== null) {
    throw badRequest("metadata.managedFields must be nil");
  }
  checkAppliedFields(type, version, config);
  return config;
}

/** The 409 of an apply's conflicts, worded as the API server words it. */
function conflictError(conflicts: Map<string, [ManagerEntry, FieldSet]>): ApiError {
  const ids = [...conflicts.keys()].sort();
  const causes: JsonObject[] = [];
  const lines: string[] = [];
  for (const id of ids) {
    const [entry, set] = conflicts.get(id)!;
    const who = managerText(entry);
    lines.push(`conflicts with ${who}:`);
    for (const path of memberPaths(set)) {
      const field = pathText(path);
      causes.push({ type: "FieldManagerConflict", message: `conflict with ${who}`, field });
      lines.push(`- ${field}`);
    }
  }
  const message = causes.length === 1
    ? `Apply failed with 1 conflict: ${causes[0].message}: ${causes[0].field}`
    : `Apply failed with ${causes.length} conflicts: ${lines.join("\n")}`;
  return new ApiError(409, message, { reason: "Conflict", details: { causes } });
}

/**
 * The fields a client-side `kubectl apply` last applied that still hold their values:
 * kubectl's server-side apply may take them from their owners without `force`.
 */
function lastAppliedFields(context: FieldContext, live: JsonObject): FieldSet | undefined {
  const annotations = metaOf(live).annotations;
  const text = isObject(annotations) ? annotations[LAST_APPLIED] : undefined;
  if (typeof text !== "string" || !text) return undefined;
  let last: JsonValue;
  try {
    last = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(last) || last.apiVersion !== context.apiVersion) return undefined;
  const cmp = compareObjects(context, last, withoutManaged(live));
  const changed = union(union(cmp.modified, cmp.added), cmp.removed);
  return difference(fieldSetOf(last, context.shape), changed);
}

/** What the applier's new fields are, and the object they leave. */
interface Applied {
  object: JsonObject;
  managed: Managed;
  applierId: string;
}

/** Merge the configuration and drop what the applier gave up and nobody else holds. */
function mergeAndPrune(
  context: FieldContext,
  live: JsonObject,
  managed: Managed,
  config: JsonObject,
  manager: string,
): Applied {
  const entry = {
    manager,
    operation: "Apply" as const,
    apiVersion: context.apiVersion,
    subresource: context.subresource,
  };
  const applierId = managerId(entry);
  const previous = managed.get(applierId);
  const merged = mergeApplied(live, config, context.shape) as JsonObject;
  const fields = ownable(context, fieldSetOf(config, context.shape));
  managed.set(applierId, { ...entry, time: previous?.time, fields });
  let object = merged;
  if (previous && !isEmptySet(previous.fields)) {
    let owned = fields;
    for (const other of managed.values()) owned = union(owned, other.fields);
    const givenUp = difference(previous.fields, owned);
    if (!isEmptySet(givenUp)) object = removeFields(merged, givenUp, context.shape) as JsonObject;
  }
  return { object, managed, applierId };
}

/** The conflicts of an apply: fields it changes that other managers own. */
function conflictsOf(
  managed: Managed,
  applierId: string,
  changed: FieldSet,
  allowed: FieldSet | undefined,
): Map<string, [ManagerEntry, FieldSet]> {
  const conflicts = new Map<string, [ManagerEntry, FieldSet]>();
  for (const [id, entry] of managed) {
    if (id === applierId) continue;
    let clash = intersection(entry.fields, changed);
    if (allowed) clash = difference(clash, allowed);
    if (!isEmptySet(clash)) conflicts.set(id, [entry, clash]);
  }
  return conflicts;
}

/**
 * Apply a configuration to the live object (`undefined` to create it from the kind's
 * empty value): returns the object to store, its `metadata.managedFields` set, or throws
 * the 409 of the conflicts.
 */
export function applyConfiguration(
  context: FieldContext,
  live: JsonObject | undefined,
  config: JsonObject,
  request: ApplyRequest,
): JsonObject {
  // A create starts from nothing (the kind's zero value adds no fields of its own).
  const base = live ? withoutManaged(live) : {};
  const managed = (live && decodeManaged(metaOf(live).managedFields)) || new Map();
  if (live && !managed.size) {
    // What the object held before its first apply belongs to a manager of its own.
    recordUpdate(
      context,
      managed,
      BEFORE_FIRST_APPLY,
      compareObjects(context, context.empty, base),
    );
  }
  const { object, applierId } = mergeAndPrune(context, base, managed, config, request.manager);
  const cmp = compareObjects(context, base, object);
  const changed = union(cmp.modified, cmp.added);
  if (!request.force) {
    let conflicts = conflictsOf(managed, applierId, changed, undefined);
    if (conflicts.size && request.manager === KUBECTL && live) {
      // kubectl's own client-side applies do not stand in the way of its server-side ones.
      const allowed = lastAppliedFields(context, live);
      if (allowed) conflicts = conflictsOf(managed, applierId, changed, allowed);
    }
    if (conflicts.size) throw conflictError(conflicts);
  }
  const applier = managed.get(applierId)!;
  managed.delete(applierId);
  takeFrom(managed, union(changed, cmp.removed));
  const fields = stripped(applier.fields);
  const unchanged = jsonEqual(base, object);
  if (!isEmptySet(fields)) {
    managed.set(applierId, { ...applier, fields, time: unchanged ? applier.time : context.now });
  }
  const result = { ...object, metadata: { ...metaOf(object) } };
  syncLastApplied(result, config, request.manager);
  const encoded = encodeManaged(managed);
  if (encoded) (result.metadata as JsonObject).managedFields = encoded;
  return result;
}

/** JSON with the keys of every object sorted, as Go writes a map. */
function sortedJson(value: JsonValue): string {
  return JSON.stringify(goMapOrder(value));
}

/** kubectl's server-side applies keep client-side apply's annotation, where there is one, current. */
function syncLastApplied(object: JsonObject, config: JsonObject, manager: string): void {
  const meta = object.metadata as JsonObject;
  const annotations = isObject(meta.annotations) ? meta.annotations : undefined;
  if (manager !== KUBECTL || typeof annotations?.[LAST_APPLIED] !== "string") return;
  if (!annotations[LAST_APPLIED]) return;
  const copy = structuredClone(config);
  const copyMeta = isObject(copy.metadata) ? copy.metadata : undefined;
  if (copyMeta && isObject(copyMeta.annotations)) {
    delete copyMeta.annotations[LAST_APPLIED];
    if (!Object.keys(copyMeta.annotations).length) delete copyMeta.annotations;
  }
  meta.annotations = { ...annotations, [LAST_APPLIED]: sortedJson(copy) };
}
