/**
 * The writing verbs over HTTP: create, update (PUT) and patch, each checked for
 * escalation, admitted by the webhooks, stored, and followed by the lifecycle controllers.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import { ApiError } from "./errors.ts";
import { managerOf, type OptionsKind } from "./field_managers.ts";
import { applyObject } from "./http_apply.ts";
import { admitCreate, admits, admitUpdate, checkGrant, dryRun } from "./http_admission.ts";
import type { ResourceCall } from "./http_context.ts";
import { written } from "./http_responses.ts";
import { GENERATE_NAME_ATTEMPTS } from "./metadata.ts";
import type { WriteOptions } from "./targets.ts";
import { bodyOf, patchTypeOf, writeOptionsOf } from "./requests.ts";

/** How many times a patch whose object changed during admission is tried. */
const PATCH_ATTEMPTS = 3;

/** The write options of a request, with the manager its changes are tracked for. */
function trackedOptions(call: ResourceCall, kind: OptionsKind): WriteOptions {
  const options = writeOptionsOf(call.params);
  options.fieldManager = managerOf(call.params, call.request.headers.get("user-agent"), kind);
  return options;
}

/** The body of a create or update, read strictly: its repeated fields go to `options`. */
async function objectBodyOf(call: ResourceCall, options: WriteOptions): Promise<JsonValue> {
  // A built-in kind is a Go struct: a repeated field is decoded into the same value again.
  const reading = { duplicates: [], mergeObjects: call.target.type.builtin };
  const body = await bodyOf(call.request, reading);
  options.duplicates = reading.duplicates;
  return body;
}

/** Whether a create's body asks the server for a generated name. */
function isGenerating(body: JsonValue): boolean {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return false;
  const meta = body.metadata;
  if (meta === null || typeof meta !== "object" || Array.isArray(meta)) return false;
  return !meta.name && typeof meta.generateName === "string" && meta.generateName !== "";
}

/** Create through the admission webhooks. */
async function admittedCreate(
  call: ResourceCall,
  given: JsonValue,
  options: WriteOptions,
): Promise<JsonObject> {
  const { ctx, target, user } = call;
  // Admission fixes the generated name; if it is taken by the time the object is stored,
  // the whole create is tried again with a new name, as a real server does.
  const generates = isGenerating(given);
  for (let attempt = 1;; attempt++) {
    const body = await admitCreate(ctx, target, given, options, user);
    try {
      return ctx.objects.create(target, body, options);
    } catch (error) {
      const taken = error instanceof ApiError && error.reason === "AlreadyExists";
      if (!generates || !taken || attempt >= GENERATE_NAME_ATTEMPTS) throw error;
    }
  }
}

/** POST to a collection. */
export async function createObject(call: ResourceCall): Promise<Response> {
  const { ctx, target, user } = call;
  const { objects } = ctx;
  const options = trackedOptions(call, "CreateOptions");
  const given = await objectBodyOf(call, options);
  checkGrant(ctx, target, user, () => objects.create(target, given, dryRun(options)));
  const created = admits(ctx, target)
    ? await admittedCreate(call, given, options)
    : objects.create(target, given, options);
  ctx.lifecycle.settle();
  return written(call.render(created), 201, options);
}

/** PUT of an object or its subresource. */
export async function updateObject(call: ResourceCall): Promise<Response> {
  const { ctx, target, user } = call;
  const { objects } = ctx;
  const options = trackedOptions(call, "UpdateOptions");
  const given = await objectBodyOf(call, options);
  checkGrant(ctx, target, user, () => objects.update(target, given, dryRun(options)));
  const body = admits(ctx, target)
    ? await admitUpdate(ctx, target, (o) => objects.update(target, given, o), options, user)
    : given;
  const updated = objects.update(target, body, options);
  ctx.lifecycle.settle();
  return written(call.render(updated), 200, options);
}

/** PATCH of an object or its subresource, in the format of its `Content-Type`. */
export async function patchObject(call: ResourceCall): Promise<Response> {
  const { ctx, target, user } = call;
  const { objects } = ctx;
  const patchType = patchTypeOf(call.request.headers.get("content-type"));
  if (patchType === "apply") return applyObject(call);
  const options = trackedOptions(call, "PatchOptions");
  const reading = { duplicates: [], mergeObjects: false };
  const patch = await bodyOf(call.request, reading);
  options.duplicates = reading.duplicates;
  const compute = (o: WriteOptions) => objects.patch(target, patchType, patch, o);
  checkGrant(ctx, target, user, () => compute(dryRun(options)));
  let patched: JsonObject;
  if (!admits(ctx, target)) patched = compute(options);
  else {
    // Like the API server, retry a patch whose object changed during admission.
    for (let attempt = 1;; attempt++) {
      const body = await admitUpdate(ctx, target, compute, options, user);
      try {
        patched = objects.update(target, body, options);
        break;
      } catch (error) {
        const conflict = error instanceof ApiError && error.code === 409;
        if (!conflict || attempt >= PATCH_ATTEMPTS) throw error;
      }
    }
  }
  ctx.lifecycle.settle();
  return written(call.render(patched), 200, options);
}
