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
 * - an object that is gone (404) is not an error: there is nothing left to patch.
 *
 * @module
 */

import type { JsonObject, JsonValue, RawBody } from "../structs/bodies.ts";
import { type JsonPatchOperation, Patch } from "../structs/patches.ts";
import type { Resource } from "../structs/resources.ts";
import type { ApiClient } from "../client/api.ts";
import { APIConflictError, APINotFoundError, APIUnprocessableError } from "../client/api_errors.ts";
import { patchObject } from "../client/objects.ts";

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

/** Apply the changes; see the module docs for how they are split into requests. */
export async function applyChanges(options: ApplyOptions): Promise<ApplyResult> {
  const { api, resource, body, signal } = options;
  const merge = options.patch.toMergePatch();
  let status: JsonValue | undefined;
  if (resource.has("status") && merge.status !== undefined) {
    status = merge.status;
    delete merge.status;
  }
  const finalizerOps = options.finalizerChange === undefined
    ? []
    : finalizerOperations(body, options.finalizer, options.finalizerChange);
  const ref = { name: body.metadata?.name ?? "", namespace: body.metadata?.namespace };
  let latest: RawBody | undefined;
  let requests = 0;
  const result = (extra: Partial<ApplyResult> = {}): ApplyResult => ({
    body: latest,
    requests,
    gone: false,
    conflict: false,
    ...extra,
  });
  try {
    if (status !== undefined) {
      requests++;
      latest = await patchObject(api, resource, ref, { status }, { subresource: "status", signal });
    }
    if (finalizerOps.length > 0) {
      const version = latest?.metadata?.resourceVersion ?? body.metadata?.resourceVersion;
      const ops: JsonPatchOperation[] = [
        ...(version === undefined
          ? []
          : [{ op: "test" as const, path: "/metadata/resourceVersion", value: version }]),
        ...new Patch(merge as Record<string, unknown>).toJsonPatch(body),
        ...finalizerOps,
      ];
      requests++;
      latest = await patchObject(api, resource, ref, ops, { type: "json", signal });
    } else if (Object.keys(merge).length > 0) {
      requests++;
      latest = await patchObject(api, resource, ref, merge as JsonObject, { signal });
    }
  } catch (error) {
    if (error instanceof APINotFoundError) return result({ gone: true });
    const refused = error instanceof APIConflictError || error instanceof APIUnprocessableError;
    if (refused && finalizerOps.length > 0) return result({ conflict: true });
    throw error;
  }
  return result();
}
