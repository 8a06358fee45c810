/**
 * The rules of deletion, as functions of the object: preconditions, the finalizers a
 * propagation policy adds, the state of an object held by finalizers (`deletionTimestamp`,
 * a bumped generation, a namespace `Terminating`), and when it may go.
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import { type ResourceType, typeKey } from "../../catalog/resource_types.ts";
import { conflict, invalid } from "./errors.ts";
import { finalizersOf, metaOf, timestamp } from "./metadata.ts";
import { identity, NAMESPACES, str } from "./object_rules.ts";
import { isObject, jsonEqual } from "./patching.ts";
import type { DeletionOptions } from "./targets.ts";
import { checkUidPrecondition } from "./uids.ts";

/** A 409 when a deletion's preconditions (uid, resourceVersion) do not hold. */
export function checkPreconditions(
  type: ResourceType,
  old: JsonObject,
  options: DeletionOptions,
): void {
  const meta = metaOf(old);
  const pre = options.preconditions ?? {};
  checkUidPrecondition(type, old, pre.uid);
  if (pre.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
    throw conflict(
      identity(type, String(meta.name)),
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion}`,
    );
  }
}

/** A namespace's `spec.finalizers`, which hold it as metadata's finalizers do. */
function specFinalizersOf(type: ResourceType, object: JsonObject): readonly unknown[] {
  if (typeKey(type.group, type.plural) !== NAMESPACES) return [];
  return isObject(object.spec) && Array.isArray(object.spec.finalizers)
    ? object.spec.finalizers
    : [];
}

/** Whether an object marked for deletion may go now: nothing holds it any more. */
export function released(type: ResourceType, object: JsonObject): boolean {
  return !!metaOf(object).deletionTimestamp && !finalizersOf(object).length &&
    !specFinalizersOf(type, object).length;
}

/** The finalizers by which the garbage collector orphans dependents or waits for them. */
const POLICY_FINALIZERS: readonly string[] = ["orphan", "foregroundDeletion"];

/**
 * The finalizers a deletion leaves, as the registry's
 * `deletionFinalizersForGarbageCollection` decides: an explicit propagation policy
 * replaces `orphan` and `foregroundDeletion` with its own (none for `Background`), even on
 * an object that had one of them already; without a policy they stay as they are. The
 * order is kept unless the set changes.
 */
function finalizersAfter(old: JsonObject, options: DeletionOptions): string[] {
  const finalizers = finalizersOf(old);
  const policy = options.propagationPolicy;
  if (!policy) return finalizers;
  const next = finalizers.filter((f) => !POLICY_FINALIZERS.includes(f));
  if (policy === "Orphan") next.push("orphan");
  if (policy === "Foreground") next.push("foregroundDeletion");
  const same = next.length === finalizers.length && next.every((f) => finalizers.includes(f));
  return same ? finalizers : next;
}

/**
 * What a deletion leaves: `undefined` when nothing holds the object (it goes at once),
 * `old` itself when it is marked already and nothing changes, else the object marked
 * with `deletionTimestamp` and the finalizers its propagation policy leaves.
 */
export function markedForDeletion(
  type: ResourceType,
  old: JsonObject,
  options: DeletionOptions,
): JsonObject | undefined {
  const meta = metaOf(old);
  const finalizers = finalizersAfter(old, options);
  if (!finalizers.length && !specFinalizersOf(type, old).length) return undefined;
  if (meta.deletionTimestamp && jsonEqual(finalizers, finalizersOf(old))) return old;
  const markedMeta: JsonObject = {
    ...meta,
    finalizers,
    deletionTimestamp: str(meta.deletionTimestamp) ?? timestamp(),
    deletionGracePeriodSeconds: 0,
  };
  if (type.generation && !meta.deletionTimestamp) {
    markedMeta.generation = Number(meta.generation ?? 0) + 1;
  }
  const marked: JsonObject = { ...old, metadata: markedMeta };
  if (typeKey(type.group, type.plural) === NAMESPACES) {
    marked.status = { ...(isObject(old.status) ? old.status : {}), phase: "Terminating" };
  }
  return marked;
}

/** A 422 when a write adds finalizers to an object being deleted. */
export function checkNoNewFinalizers(type: ResourceType, old: JsonObject, next: JsonObject): void {
  if (!metaOf(old).deletionTimestamp) return;
  const before = finalizersOf(old);
  const added = finalizersOf(next).filter((f) => !before.includes(f));
  if (!added.length) return;
  throw invalid(type.kind, identity(type, String(metaOf(old).name)), [{
    field: "metadata.finalizers",
    reason: "FieldValueForbidden",
    message:
      `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${
        JSON.stringify(added)
      }`,
  }]);
}
