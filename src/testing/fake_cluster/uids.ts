/**
 * The rules of `metadata.uid` in writes, as the API server keeps them: an apply that
 * would create an object may not name a uid (409), a patch or an apply may not change it
 * (422), and the uid of a PUT's body -- or of a deletion's preconditions -- is a
 * precondition the stored object must meet (409).
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import type { ResourceType } from "../../catalog/resource_types.ts";
import { conflict, invalid } from "./errors.ts";
import { metaOf } from "./metadata.ts";
import { identity, str } from "./object_rules.ts";
import type { Target } from "./targets.ts";

/** `Kind.group` (`Kind` in the core group), as the API server names a kind in errors. */
export function qualifiedKind(type: ResourceType): string {
  return type.group ? `${type.kind}.${type.group}` : type.kind;
}

/**
 * A 409 when an apply that would create the object names a uid: the API server creates
 * nothing then, since the uid can only mean an object that is gone.
 */
export function checkNoUidOnCreate(type: ResourceType, name: string, body: JsonObject): void {
  const uid = str(metaOf(body).uid);
  if (!uid) return;
  throw conflict(
    identity(type, name),
    `uid mismatch: the provided object specified uid ${uid}, and no existing object was found`,
  );
}

/**
 * A 422 when a patch or an apply would change the stored object's uid, as the API
 * server's validation of updates refuses it; the same uid, or none, passes. The status
 * subresource of a custom resource keeps the stored metadata whole (the API server copies
 * the stored object there, all but its status), so another uid is put back instead.
 */
export function checkUidKept(target: Target, old: JsonObject, next: JsonObject): void {
  const given = str(metaOf(next).uid);
  const stored = metaOf(old).uid;
  if (!given || given === stored) return;
  const { type } = target;
  if (target.subresource === "status" && !type.builtin) {
    next.metadata = { ...metaOf(next), uid: stored };
    return;
  }
  throw invalid(qualifiedKind(type), identity(type, String(metaOf(old).name)), [{
    field: "metadata.uid",
    message: `Invalid value: ${JSON.stringify(given)}: field is immutable`,
  }]);
}

/**
 * A 409 when a uid precondition does not hold for the stored object: a deletion's
 * `preconditions.uid`, or the uid in a PUT's body (which the API server takes as one).
 */
export function checkUidPrecondition(
  type: ResourceType,
  old: JsonObject,
  uid: string | undefined,
): void {
  const meta = metaOf(old);
  if (!uid || uid === meta.uid) return;
  throw conflict(
    identity(type, String(meta.name)),
    `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${meta.uid}`,
  );
}
