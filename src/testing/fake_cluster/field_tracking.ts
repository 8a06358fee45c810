/**
 * Field tracking in the verbs on objects: the context of one write (the object's shape,
 * version and subresource), the empty object a create is compared against, and the
 * managed fields a stored write ends with -- tracked for the request's manager, as an
 * apply computed them, or kept as they were for writes of no manager (the direct API).
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import {
  apiVersionOf,
  type ResourceType,
  type ServedVersion,
} from "../../catalog/resource_types.ts";
import { kindMessage, type Message, messageNamed } from "./builtin_messages.ts";
import { objectShape, type Shape } from "./field_shapes.ts";
import {
  decodeManaged,
  encodeManaged,
  type FieldContext,
  sameButTimes,
  trackUpdate,
} from "./managed_fields.ts";
import { metaOf, timestamp } from "./metadata.ts";
import type { Target, WriteOptions } from "./targets.ts";

/** Struct fields that Go's zero value of a built-in kind holds (they are not pointers). */
const ALWAYS_PRESENT = new Set([
  "metadata",
  "spec",
  "status",
  "template",
  "jobTemplate",
  "strategy",
  "updateStrategy",
]);

/** Lists that Go's zero value holds as `null` (no `omitempty`), by message. */
const NULL_LISTS: Record<string, readonly string[]> = {
  PodSpec: ["containers"],
  Role: ["rules"],
  ClusterRole: ["rules"],
};

function zeroOf(message: Message, depth: number): JsonObject {
  const out: JsonObject = {};
  for (const name of NULL_LISTS[message.name] ?? []) out[name] = null;
  if (depth > 6) return out;
  for (const [name, field] of message.byName) {
    if (ALWAYS_PRESENT.has(name) && field.message && !field.repeated) {
      out[name] = zeroOf(messageNamed(field.type), depth + 1);
    }
  }
  return out;
}

/**
 * The object a create is compared against: the kind's empty value -- for built-in kinds
 * their Go zero value, whose non-pointer structs (spec, status, a pod template) exist
 * already, so a create does not add them; for custom resources only their type.
 */
export function emptyObject(type: ResourceType, version: ServedVersion): JsonObject {
  const apiVersion = apiVersionOf(type.group, version.name);
  const message = type.builtin ? kindMessage(apiVersion, type.kind) : undefined;
  if (message) return zeroOf(message, 0);
  return type.builtin ? { metadata: {} } : { apiVersion, kind: type.kind };
}

/** The shape and empty object of each served version (never changed once made). */
const perVersion = new WeakMap<ServedVersion, { shape: Shape; empty: JsonObject }>();

/** The context of a write to this target, now. */
export function fieldContext(target: Target): FieldContext {
  const { type, version } = target;
  let known = perVersion.get(version);
  if (!known) {
    known = { shape: objectShape(type, version), empty: emptyObject(type, version) };
    perVersion.set(version, known);
  }
  return {
    shape: known.shape,
    apiVersion: apiVersionOf(type.group, version.name),
    subresource: target.subresource === "status" ? "status" : undefined,
    statusApart: !!version.status,
    empty: known.empty,
    now: timestamp(),
  };
}

/**
 * The object to store with its managed fields: as an apply computed them
 * (`appliedFields`), tracked for the write's `fieldManager`, or -- for writes of no
 * manager -- those it had. A write that changes nothing but their times keeps the old.
 */
export function withManagedFields(
  target: Target,
  old: JsonObject | undefined,
  next: JsonObject,
  given: JsonValue | undefined,
  options: WriteOptions,
): JsonObject {
  // The body's entries count only for the object itself, as for the API server.
  if (target.subresource && !options.appliedFields) given = undefined;
  let fields: JsonValue | undefined;
  if (options.appliedFields) fields = given;
  else if (options.fieldManager !== undefined) {
    // An object without entries gains none by updates: no need to compare it.
    const untracked = old && metaOf(old).managedFields === undefined && given === undefined;
    fields = untracked
      ? undefined
      : trackUpdate(fieldContext(target), old, next, options.fieldManager, given);
  } else {
    // No manager (the direct API): entries the body gives replace the stored ones.
    const decoded = given === undefined ? undefined : decodeManaged(given);
    fields = decoded ? encodeManaged(decoded) : old ? metaOf(old).managedFields : undefined;
  }
  const meta = { ...metaOf(next) };
  if (fields === undefined || fields === null) delete meta.managedFields;
  else meta.managedFields = fields;
  const result = { ...next, metadata: meta };
  if (old && sameButTimes(result, old)) meta.managedFields = metaOf(old).managedFields!;
  return result;
}
