/**
 * Applying what a handling cycle accumulated to the object, in as few requests as
 * possible:
 *
 * - the status goes through the `/status` subresource when the resource has one (the main
 *   endpoint ignores the status there); otherwise everything goes in one request;
 * - without finalizer changes, the rest is one JSON merge patch;
 * - with finalizer changes, the rest and the finalizer change are one JSON Patch guarded
 *   by a `test` of `/metadata/resourceVersion`, so that other parties' finalizers are never
 *   clobbered; if the object has changed meanwhile (409/422), nothing is applied and the
 *   caller waits for the next event, which brings the newer state;
 * - an object watched as metadata only gets metadata-only answers (its whole body is never
 *   needed here), and with a finalizer change, what lies outside its metadata is merged in a
 *   request of its own first (JSON Patch operations made against a body without those fields
 *   would replace them whole);
 * - an object that is gone (404) is not an error: there is nothing left to patch;
 * - what the API server would refuse for its size (annotations over 256 KB in total, an
 *   object over what etcd stores) is not sent: {@link OutcomeTooLargeError} says which
 *   storage setting to change.
 *
 * @module
 */

import type { JsonObject, JsonValue, RawBody } from "../structs/bodies.ts";
import { type JsonPatchOperation, Patch } from "../structs/patches.ts";
import type { Resource } from "../structs/resources.ts";
import { ConfigurationError } from "../structs/errors.ts";
import { ANNOTATIONS_LIMIT, OBJECT_SIZE_LIMIT } from "../structs/size_limits.ts";
import type { ApiClient } from "../client/api.ts";
import {
  APIClientError,
  APIConflictError,
  APINotFoundError,
  APITooManyRequestsError,
  APIUnauthorizedError,
  APIUnprocessableError,
} from "../client/api_errors.ts";
import { patchObject, type PatchOptions } from "../client/objects.ts";
import { asResourceObject, bodySourceOf } from "../structs/metadata_only_bodies.ts";

/** A change of our finalizer on the object. */
export type FinalizerChange = "add" | "remove";

/** What to apply, and where. */
export interface ApplyOptions {
  /** The API client. */
  readonly api: ApiClient;
  /** The object's resource (its subresources decide where the status goes). */
  readonly resource: Resource;
  /** The object as last seen (the base of JSON Patch operations). */
  readonly body: RawBody;
  /** The accumulated changes. */
  readonly patch: Patch;
  /** Our finalizer. */
  readonly finalizer: string;
  /** Whether to add or remove our finalizer, if at all. */
  readonly finalizerChange?: FinalizerChange;
  /** Cancels the requests. */
  readonly signal?: AbortSignal;
}

/** What came of applying. */
export interface ApplyResult {
  /** The object as returned by the last successful request, if any was made. */
  readonly body: RawBody | undefined;
  /** How many requests were made. */
  readonly requests: number;
  /** The object no longer exists. */
  readonly gone: boolean;
  /** The guarded request was refused because the object changed meanwhile. */
  readonly conflict: boolean;
}

/** The JSON Patch operations that add or remove our finalizer. */
export function finalizerOperations(
  body: RawBody,
  finalizer: string,
  change: FinalizerChange,
): JsonPatchOperation[] {
  const finalizers = body.metadata?.finalizers;
  if (change === "add") {
    if (Array.isArray(finalizers)) {
      if (finalizers.includes(finalizer)) return [];
      return [{ op: "add", path: "/metadata/finalizers/-", value: finalizer }];
    }
    return [{ op: "add", path: "/metadata/finalizers", value: [finalizer] }];
  }
  const index = Array.isArray(finalizers) ? finalizers.indexOf(finalizer) : -1;
  if (index < 0) return [];
  const path = `/metadata/finalizers/${index}`;
  return [{ op: "test", path, value: finalizer }, { op: "remove", path }];
}

/** The changes would make the object larger than the API server accepts; nothing was sent. */
export class OutcomeTooLargeError extends ConfigurationError {
  /** The error's name. */
  override name = "OutcomeTooLargeError";
}

/**
 * Whether storing failed because the API server refused what was sent, for good: a 4xx
 * other than 404 (gone), 409 (a conflict: a newer state comes), 401 (credentials) and
 * 429 (throttling), or a size it would refuse. Sending the same again would fail again.
 */
export function isRefusedOutcome(error: unknown): boolean {
  if (error instanceof OutcomeTooLargeError) return true;
  return error instanceof APIClientError && !(error instanceof APINotFoundError) &&
    !(error instanceof APIConflictError) && !(error instanceof APIUnauthorizedError) &&
    !(error instanceof APITooManyRequestsError);
}

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text).length;

/**
 * Refuse what the API server would refuse for its size, naming the setting to change.
 * Cheap for the usual small changes: sizes are measured exactly only when an estimate
 * (at most 3 bytes per UTF-16 unit) comes near a limit.
 */
function checkSizes(body: RawBody, merge: Record<string, unknown>, resource: Resource): void {
  const patchedMeta = (merge.metadata ?? NOTHING) as Record<string, unknown>;
  const patched = (patchedMeta.annotations ?? NOTHING) as Record<string, unknown>;
  if (hasKeys(patched)) checkAnnotations(body, patched, resource);
  const patchText = JSON.stringify(merge);
  if (patchText.length * 3 < OBJECT_SIZE_LIMIT / 2) return; // a large object grows by little
  const size = bytes(JSON.stringify(body)) + bytes(patchText);
  if (size > OBJECT_SIZE_LIMIT) {
    const biggest = Object.entries(merge.status ?? {})
      .map(([field, value]) => [field, bytes(JSON.stringify(value) ?? "")] as const)
      .sort((a, b) => b[1] - a[1])[0];
    throw new OutcomeTooLargeError(
      `${describe(resource, body)} would be about ${kb(size)} with the changes, over the ${
        kb(OBJECT_SIZE_LIMIT)
      } ` +
        "that the API server stores" +
        (biggest ? ` (the largest change: status.${biggest[0]}, ${kb(biggest[1])})` : "") +
        ": return smaller results from the handlers, or keep large data elsewhere.",
    );
  }
}

function checkAnnotations(
  body: RawBody,
  patched: Record<string, unknown>,
  resource: Resource,
): void {
  // The estimate, without merging: what stays of the object's, and what the patch sets.
  const held: Record<string, string> = body.metadata?.annotations ?? {};
  let estimate = 0;
  for (const key in held) {
    if (!Object.hasOwn(patched, key)) estimate += key.length + String(held[key]).length;
  }
  for (const key in patched) {
    const value = patched[key];
    if (value !== null) estimate += key.length + String(value).length;
  }
  if (estimate * 3 <= ANNOTATIONS_LIMIT) return;
  const annotations: Record<string, string> = { ...held };
  for (const [key, value] of Object.entries(patched)) {
    if (value === null) delete annotations[key];
    else annotations[key] = String(value);
  }
  let total = 0;
  let largest: [string, number] = ["", 0];
  for (const [key, value] of Object.entries(annotations)) {
    const size = bytes(key) + bytes(value);
    total += size;
    if (size > largest[1]) largest = [key, size];
  }
  if (total > ANNOTATIONS_LIMIT) {
    const [key, size] = largest;
    const advice = key.endsWith("/last-handled-configuration")
      ? "keep the diff-base in the status instead " +
        "(settings.persistence.diffbaseStorage = new kopf.StatusDiffBaseStorage())"
      : key in patched
      ? "keep the handlers' progress in the status instead " +
        "(settings.persistence.progressStorage = new kopf.StatusProgressStorage())"
      : "make the annotations smaller";
    throw new OutcomeTooLargeError(
      `The annotations of ${describe(resource, body)} would take ${kb(total)}, over the ${
        kb(ANNOTATIONS_LIMIT)
      } ` +
        `that Kubernetes allows in total (the largest: ${key}, ${kb(size)}): ${advice}.`,
    );
  }
}

/** No keys: what an absent part of a patch reads as. */
const NOTHING: Readonly<Record<string, unknown>> = Object.freeze({});

/** No JSON Patch operations. */
const NO_OPERATIONS: readonly JsonPatchOperation[] = Object.freeze([]);

/** Whether the object has own enumerable keys (as `Object.keys()`, without the list). */
function hasKeys(object: object): boolean {
  for (const key in object) if (Object.hasOwn(object, key)) return true;
  return false;
}

/** How messages name the object: `kopfexamples ns/name`. */
function describe(resource: Resource, body: RawBody): string {
  return `${resource.plural} ${body.metadata?.namespace ? `${body.metadata.namespace}/` : ""}${
    body.metadata?.name ?? ""
  }`;
}

function kb(size: number): string {
  return `${Math.round(size / 1024)} KB`;
}

/** Whether a merge patch sets anything outside `metadata`. */
function beyondMetadata(merge: Record<string, unknown>): boolean {
  return Object.keys(merge).some((key) => key !== "metadata");
}

/** Apply the changes; see the module docs for how they are split into requests. */
export async function applyChanges(options: ApplyOptions): Promise<ApplyResult> {
  const { api, resource, body, signal } = options;
  const merge = options.patch.toMergePatch();
  checkSizes(body, merge as Record<string, unknown>, resource);
  let status: JsonValue | undefined;
  if (resource.has("status") && merge.status !== undefined) {
    status = merge.status;
    delete merge.status;
  }
  const finalizerOps: readonly JsonPatchOperation[] = options.finalizerChange === undefined
    ? NO_OPERATIONS
    : finalizerOperations(body, options.finalizer, options.finalizerChange);
  const ref = { name: body.metadata?.name ?? "", namespace: body.metadata?.namespace };
  // A metadata-only object (see structs/metadata_only_bodies.ts) gets metadata-only answers:
  // its whole body is never needed here, and may be large.
  const source = bodySourceOf(body);
  const patched = async (
    patch: JsonObject | readonly JsonPatchOperation[],
    options: PatchOptions,
  ): Promise<RawBody> => {
    const answer = await patchObject(api, resource, ref, patch, {
      ...options,
      metadataOnly: source !== undefined,
      signal,
    });
    return source === undefined
      ? answer
      : asResourceObject(answer, resource.apiVersion, resource.kind, source);
  };
  let latest: RawBody | undefined;
  let requests = 0;
  try {
    if (status !== undefined) {
      requests++;
      latest = await patched({ status }, { subresource: "status" });
    }
    // JSON Patch operations are made against the body: one without the fields the merge
    // patch sets would replace them whole. Merged apart, then the finalizer's change alone.
    let guarded: Record<string, unknown> = merge;
    if (finalizerOps.length > 0 && source !== undefined && beyondMetadata(merge)) {
      requests++;
      latest = await patched(merge as JsonObject, {});
      guarded = {};
    }
    if (finalizerOps.length > 0) {
      const version = latest?.metadata?.resourceVersion ?? body.metadata?.resourceVersion;
      const ops: JsonPatchOperation[] = [
        ...(version === undefined
          ? []
          : [{ op: "test" as const, path: "/metadata/resourceVersion", value: version }]),
        ...new Patch(guarded).toJsonPatch(body),
        ...finalizerOps,
      ];
      requests++;
      latest = await patched(ops, { type: "json" });
    } else if (Object.keys(merge).length > 0) {
      requests++;
      latest = await patched(merge as JsonObject, {});
    }
  } catch (error) {
    if (error instanceof APINotFoundError) return applied(latest, requests, true, false);
    const refused = error instanceof APIConflictError || error instanceof APIUnprocessableError;
    if (refused && finalizerOps.length > 0) return applied(latest, requests, false, true);
    throw error;
  }
  return applied(latest, requests, false, false);
}

function applied(
  body: RawBody | undefined,
  requests: number,
  gone: boolean,
  conflict: boolean,
): ApplyResult {
  return { body, requests, gone, conflict };
}
