/**
 * The deleting verbs over HTTP: delete (the object while finalizers hold it, a `Status`
 * once it is gone) and deletecollection, each admitted by the webhooks.
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import { apiVersionOf } from "../../catalog/resource_types.ts";
import { statusOf } from "./errors.ts";
import { admitDelete, admits } from "./http_admission.ts";
import type { ResourceCall } from "./http_context.ts";
import { written } from "./http_responses.ts";
import { deleteOptionsOf, listOptionsOf } from "./requests.ts";

/** DELETE of one object. */
export async function deleteObject(call: ResourceCall): Promise<Response> {
  const { ctx, target, user } = call;
  const { objects, lifecycle } = ctx;
  const options = await deleteOptionsOf(call.request, call.params);
  const warnings: string[] = [];
  if (admits(ctx, target)) {
    warnings.push(...await admitDelete(ctx, target, objects.get(target), options, user));
  }
  const { object, gone } = objects.delete(target, options);
  lifecycle.settle();
  if (!gone) return written(call.render(object), 200, { warnings });
  const meta = object.metadata as JsonObject;
  const type = target.type;
  const details: JsonObject = { name: String(meta.name), kind: type.plural, uid: String(meta.uid) };
  if (type.group) details.group = type.group;
  return written(statusOf(0, "", "", details) as unknown as JsonObject, 200, { warnings });
}

/** DELETE of a collection: every object the selectors match. */
export async function deleteCollection(call: ResourceCall): Promise<Response> {
  const { ctx, target, user, params } = call;
  const { objects, lifecycle } = ctx;
  const { type, version } = target;
  const options = await deleteOptionsOf(call.request, params);
  const warnings: string[] = [];
  if (admits(ctx, target)) {
    // Each object's deletion is admitted (all before any is deleted, a simplification).
    const { items } = objects.list(target, {
      ...listOptionsOf(params, type, version.selectableFields),
      limit: undefined,
      continue: undefined,
    });
    for (const item of items) {
      const meta = item.metadata as JsonObject;
      const one = {
        ...target,
        namespace: typeof meta.namespace === "string" ? meta.namespace : undefined,
        name: String(meta.name),
      };
      warnings.push(...await admitDelete(ctx, one, item, options, user));
    }
  }
  const items = objects.deleteCollection(
    target,
    listOptionsOf(params, type, version.selectableFields),
    options,
  );
  lifecycle.settle();
  const list = {
    kind: type.listKind,
    apiVersion: apiVersionOf(type.group, version.name),
    metadata: { resourceVersion: String(objects.store.resourceVersion) },
    items,
  };
  return written(list, 200, { warnings });
}
