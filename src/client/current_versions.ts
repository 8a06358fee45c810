/**
 * The current `resourceVersion` of a collection: one list request for a single object, a
 * consistent read, whose list metadata carries the version the collection is at. A watch
 * started from it misses no change made afterwards.
 *
 * @module
 */
import type { Resource } from "../structs/resources.ts";
import type { ApiClient } from "./api.ts";
import { METADATA_LIST_ACCEPT } from "./metadata_only.ts";

/** What {@link currentVersion} lists. */
export interface CurrentVersionOptions {
  /** One namespace; omit for the whole cluster (always for cluster-scoped resources). */
  readonly namespace?: string;
  /** The label selector of the watch that will start from it. */
  readonly labelSelector?: string;
  /** The field selector of the watch that will start from it. */
  readonly fieldSelector?: string;
  /** Ask for the object's metadata only (the collection's version is the same). */
  readonly metadataOnly?: boolean;
  /** Abandons the request. */
  readonly signal?: AbortSignal;
}

/** The collection's current `resourceVersion`; see the module docs. */
export async function currentVersion(
  api: ApiClient,
  resource: Resource,
  options: CurrentVersionOptions = {},
): Promise<string> {
  const path = resource.getUrl({ namespace: resource.namespaced ? options.namespace : undefined });
  const list = await api.request<{ metadata?: { resourceVersion?: string } }>("GET", path, {
    query: {
      labelSelector: options.labelSelector || undefined,
      fieldSelector: options.fieldSelector || undefined,
      limit: 1,
    },
    accept: options.metadataOnly ? METADATA_LIST_ACCEPT : undefined,
    signal: options.signal,
  });
  const version = list.metadata?.resourceVersion;
  if (typeof version !== "string" || version === "") {
    throw new Error(`The listing of ${path} has no resourceVersion.`);
  }
  return version;
}
