/**
 * The current `resourceVersion` of a collection: one list request for a single object, a
 * consistent read, whose list metadata carries the version the collection is at. A watch
 * started from it misses no change made afterwards.
 *
 * @module
 */
import type { Resource } from "../structs/resources.ts";
import type { ApiClient } from "./api.ts";
import { listPages } from "./objects.ts";

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
  // The first page of a listing of one object: its list metadata carries the version.
  const pages = listPages(api, resource, { ...options, limit: 1 });
  try {
    const first = await pages.next();
    const version = first.done ? undefined : first.value.resourceVersion;
    if (!version) {
      const path = resource.getUrl({
        namespace: resource.namespaced ? options.namespace : undefined,
      });
      throw new Error(`The listing of ${path} has no resourceVersion.`);
    }
    return version;
  } finally {
    await pages.return();
  }
}
