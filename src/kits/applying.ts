/**
 * `kopf.apply()`: make or update a child with server-side apply, adopted as `kopf.adopt()`
 * adopts it, under the operator's field manager, through the operator's own API client.
 *
 * @module
 */
import type { RawBody } from "../structs/bodies.ts";
import { eachObject } from "../structs/object_refs.ts";
import { UsageError } from "../structs/errors.ts";
import { applyBody, type ApplyOptions } from "../engines/applies.ts";
import { adopt } from "./hierarchies.ts";

export type { ApplyOptions };

/**
 * Create or update a child with server-side apply: the child is adopted first as
 * {@link adopt} adopts it -- an owner reference to the object being handled (or `owner`),
 * its namespace, its labels and the owner-kind label of `kopf.on.child` -- and named exactly
 * as the owner if it has no name (an apply cannot generate names); then sent whole as the
 * configuration of the operator's field manager (`settings.applying.fieldManager`, `"kopf"`
 * by default), taking over fields that other managers own (`settings.applying.force`,
 * `true` by default). The server merges it into the child, creating it if missing, and
 * removes what the operator applied before and omits now; fields that others set and the
 * operator does not apply stay theirs. Applying an unchanged child changes nothing (the
 * server stores nothing: the resourceVersion stays, no watch event comes).
 *
 * The client is the operator's own (in handlers, daemons and timers), else `api`; the
 * resource is found from the child's `apiVersion` and `kind` by discovery, else give
 * `resource`. The child is changed in place, as by {@link adopt}; the object as applied is
 * returned. RBAC: the handler needs `patch` on the child's resource, and `create` too for
 * the first apply (`rbac: ["configmaps:create,patch"]`).
 *
 * @example Keep a ConfigMap in step with the object, created or updated alike
 * ```ts
 * import { type ChangingKwargs, kopf } from "@kopf/kopf";
 *
 * kopf.on.create("kopfexamples", { rbac: ["configmaps:create,patch"] }, reconcile);
 * kopf.on.update("kopfexamples", { rbac: ["configmaps:create,patch"] }, reconcile);
 *
 * async function reconcile({ name, spec }: ChangingKwargs): Promise<void> {
 *   await kopf.apply({
 *     apiVersion: "v1",
 *     kind: "ConfigMap",
 *     metadata: { name: `${name}-config` },
 *     data: { field: String(spec.field ?? "") },
 *   });
 * }
 * ```
 */
export async function apply(child: object, options: ApplyOptions = {}): Promise<RawBody> {
  const caller = "kopf.apply()";
  const [body] = eachObject<RawBody>(child, caller);
  if (body !== child) {
    throw new UsageError(`${caller} applies one object at a time; call it once per child.`);
  }
  if (options.adopt ?? true) {
    adopt(body, { owner: options.owner, nested: options.nested, strict: true });
  }
  return await applyBody(caller, body, options);
}
