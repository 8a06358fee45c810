/**
 * Server-side apply over HTTP: a `PATCH` with `Content-Type: application/apply-patch+yaml`
 * (YAML or JSON), its `fieldManager` and `force`, through escalation checks and the
 * admission webhooks like any write; it creates the object when it does not exist (201),
 * unless the configuration names a uid (409, before admission).
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import { typeKey } from "../../catalog/resource_types.ts";
import { checkAppliedDuplicates } from "./builtin_decoding.ts";
import { ApiError } from "./errors.ts";
import { applyRequestOf } from "./field_managers.ts";
import { admitCreate, admits, admitUpdate, checkGrant, dryRun } from "./http_admission.ts";
import type { ResourceCall } from "./http_context.ts";
import { written } from "./http_responses.ts";
import { forbidden } from "./rbac.ts";
import { bodyOf, writeOptionsOf } from "./requests.ts";
import type { WriteOptions } from "./targets.ts";

/** How many times an apply whose object changed during admission is tried. */
const APPLY_ATTEMPTS = 3;

/** The apply through the admission webhooks: as a create or an update of its result. */
async function admittedApply(
  call: ResourceCall,
  run: () => { body: JsonObject; exists: boolean },
  options: WriteOptions,
): Promise<{ object: JsonObject; created: boolean }> {
  const { ctx, target, user } = call;
  const { objects } = ctx;
  for (let attempt = 1;; attempt++) {
    // What the apply itself refuses (bad input, the uid of a missing object) is final:
    // only a write that raced another is tried again.
    const { body, exists } = run();
    try {
      if (!exists) {
        const final = await admitCreate(ctx, target, body, options, user);
        return { object: objects.create(target, final, options), created: true };
      }
      const update = (o: WriteOptions) => objects.update(target, body, o);
      const final = await admitUpdate(ctx, target, update, options, user);
      return { object: objects.update(target, final, options), created: false };
    } catch (error) {
      const conflict = error instanceof ApiError && error.code === 409 &&
        (error.reason === "Conflict" || error.reason === "AlreadyExists") &&
        !error.details?.causes;
      if (!conflict || attempt >= APPLY_ATTEMPTS) throw error;
    }
  }
}

/** An apply that creates needs the right to create too, as on a real server (with RBAC). */
function checkCreateRight(call: ResourceCall): void {
  const { ctx, target, user } = call;
  const authorizer = ctx.authorizer;
  if (!authorizer || target.subresource) return;
  const { type, version } = target;
  const key = typeKey(type.group, type.plural);
  if (ctx.objects.store.get(key, target.namespace ?? "", target.name ?? "")) return;
  const attributes = {
    user,
    verb: "create",
    resourceRequest: true,
    apiGroup: type.group,
    apiVersion: version.name,
    resource: type.plural,
    namespace: target.namespace ?? "",
    name: target.name ?? "",
  };
  const decision = authorizer.authorize(attributes);
  if (!decision.allowed) throw forbidden(attributes, decision.reason);
}

/** PATCH with an applied configuration, of an object or its status. */
export async function applyObject(call: ResourceCall): Promise<Response> {
  const { ctx, target, user } = call;
  const { objects } = ctx;
  const options: WriteOptions = { ...writeOptionsOf(call.params), appliedFields: true };
  const request = applyRequestOf(call.params);
  const reading = { duplicates: [], mergeObjects: false };
  const config = await bodyOf(call.request, reading);
  checkAppliedDuplicates(reading.duplicates, options);
  checkCreateRight(call);
  checkGrant(
    ctx,
    target,
    user,
    () => objects.apply(target, config, request, dryRun(options)).object,
  );
  const { object, created } = admits(ctx, target)
    ? await admittedApply(call, () => objects.applied(target, config, request), options)
    : objects.apply(target, config, request, options);
  ctx.lifecycle.settle();
  return written(call.render(object), created ? 201 : 200, options);
}
