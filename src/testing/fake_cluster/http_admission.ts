/**
 * The checks of a write over HTTP before it is stored: RBAC's escalation prevention for
 * roles and bindings, and the admission webhooks (mutating, then validating) of creates,
 * updates, patches and deletions.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import type { AdmissionAttributes } from "./admission.ts";
import type { RouterContext } from "./http_context.ts";
import type { DeletionOptions, Target, WriteOptions } from "./targets.ts";
import { PRIVILEGED_GROUP, RBAC_GROUP, type UserInfo } from "./rbac.ts";
import { checkEscalation } from "./rbac_escalation.ts";

/**
 * With RBAC, a write of a role or binding may grant only what the user holds itself
 * (escalation prevention): checked on the object as the write would store it.
 */
export function checkGrant(
  ctx: RouterContext,
  target: Target,
  user: UserInfo,
  compute: () => JsonObject,
): void {
  const authorizer = ctx.authorizer;
  if (!authorizer || target.type.group !== RBAC_GROUP || target.subresource) return;
  if (user.groups.includes(PRIVILEGED_GROUP)) return;
  const old = target.name !== undefined ? ctx.objects.get(target) : undefined;
  checkEscalation(authorizer, user, target.type, compute(), old);
}

/** Whether admission webhooks may apply to this write. */
export function admits(ctx: RouterContext, target: Target): boolean {
  return ctx.admission.active && target.subresource !== "scale";
}

/** The options of a dry run of a write with these options. */
export function dryRun(options: WriteOptions): WriteOptions {
  return { ...options, dryRun: true, warnings: [] };
}

function attributesOf(
  operation: AdmissionAttributes["operation"],
  target: Target,
  user: UserInfo,
  dryRun: boolean,
  name = target.name ?? "",
): AdmissionAttributes {
  return {
    operation,
    type: target.type,
    version: target.version,
    subresource: target.subresource,
    namespace: target.namespace,
    name,
    dryRun,
    user: { username: user.username, groups: [...user.groups] },
  };
}

/** Admission of a deletion: the webhooks see the object as `oldObject`; returns warnings. */
export async function admitDelete(
  ctx: RouterContext,
  target: Target,
  old: JsonObject,
  options: DeletionOptions,
  user: UserInfo,
): Promise<string[]> {
  const { admission } = ctx;
  const attributes = attributesOf("DELETE", target, user, options.dryRun ?? false);
  const { warnings } = await admission.mutate({ ...attributes, oldObject: old });
  return [...warnings, ...await admission.validate({ ...attributes, oldObject: old })];
}

/**
 * Admission of a create: mutating webhooks see the object as it would be created,
 * validating webhooks the mutated one. Returns the body to create.
 */
export async function admitCreate(
  ctx: RouterContext,
  target: Target,
  body: JsonValue,
  options: WriteOptions,
  user: UserInfo,
): Promise<JsonObject> {
  const { objects, admission } = ctx;
  const dry = dryRun(options);
  const candidate = objects.create(target, body, dry);
  // The body's decoding warnings (unknown fields) are the request's, said once.
  options.warnings?.push(...dry.warnings ?? []);
  const meta = { ...(candidate.metadata as JsonObject) };
  const uid = String(meta.uid);
  // Mutating webhooks run before the server fills in its own fields.
  for (const field of ["uid", "creationTimestamp", "resourceVersion", "generation"]) {
    delete meta[field];
  }
  const name = String(meta.name);
  const attributes = attributesOf("CREATE", target, user, options.dryRun ?? false, name);
  const mutated = await admission.mutate({
    ...attributes,
    object: { ...candidate, metadata: meta },
  });
  options.warnings?.push(...mutated.warnings);
  const final = mutated.object ?? candidate;
  (final.metadata as JsonObject).name = name; // generateName is resolved once
  const checked = objects.create(target, final, { ...dry, uid });
  options.warnings?.push(...await admission.validate({ ...attributes, object: checked }));
  options.uid = uid;
  return final;
}

/**
 * Admission of an update or patch: returns the whole object to write (with the
 * resourceVersion it was based on, so a concurrent change is a conflict).
 */
export async function admitUpdate(
  ctx: RouterContext,
  target: Target,
  compute: (options: WriteOptions) => JsonObject,
  options: WriteOptions,
  user: UserInfo,
): Promise<JsonObject> {
  const { objects, admission } = ctx;
  const dry = dryRun(options);
  const old = objects.get({ ...target, subresource: undefined });
  const candidate = compute(dry);
  options.warnings?.push(...dry.warnings ?? []);
  const attributes = attributesOf("UPDATE", target, user, options.dryRun ?? false);
  const mutated = await admission.mutate({ ...attributes, object: candidate, oldObject: old });
  options.warnings?.push(...mutated.warnings);
  const final = mutated.object ?? candidate;
  const checked = objects.update(target, final, dry);
  options.warnings?.push(
    ...await admission.validate({ ...attributes, object: checked, oldObject: old }),
  );
  return final;
}
