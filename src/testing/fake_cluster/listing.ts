/**
 * Listing objects as etcd and the API server do: selectors, and pages (`limit`,
 * `continue`) of one consistent snapshot per listing.
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import { typeKey } from "../../catalog/resource_types.ts";
import { ApiError, badRequest } from "./errors.ts";
import { metaOf } from "./metadata.ts";
import { served } from "./object_rules.ts";
import { EVERYTHING, pinnedBy } from "./selectors.ts";
import type { Store } from "./store.ts";
import type { ListOptions, ListResult, Target } from "./targets.ts";

/** How many listings' snapshots are kept for their continuations. */
const KEPT_SNAPSHOTS = 32;
/** The message of a real API server for a continuation whose snapshot is compacted. */
const CONTINUE_EXPIRED = "The provided continue parameter is too old to display a consistent " +
  "list result. You can start a new list without the continue parameter.";

/** The key a listing is sorted and continued by: `namespace/name`. */
function keyOf(object: JsonObject): string {
  const meta = metaOf(object);
  return `${meta.namespace ?? ""}/${meta.name}`;
}

/** Where a continuation resumes: the snapshot's resourceVersion and the last key listed. */
interface Continuation {
  rv: number;
  start: string;
}

function continuationOf(token: string | undefined): Continuation | undefined {
  if (!token) return undefined;
  try {
    const parsed = JSON.parse(atob(token)) as { rv?: unknown; start?: unknown };
    if (typeof parsed.rv !== "number" || typeof parsed.start !== "string") throw new Error();
    return { rv: parsed.rv, start: parsed.start };
  } catch {
    throw badRequest(`invalid continue token "${token}"; start the list over`);
  }
}

/** The index of the first object after `start` in a snapshot sorted by `namespace/name`. */
function firstAfter(all: readonly JsonObject[], start: string): number {
  let index = 0;
  let hi = all.length;
  while (index < hi) {
    const mid = (index + hi) >> 1;
    if (keyOf(all[mid]) <= start) index = mid + 1;
    else hi = mid;
  }
  return index;
}

/** Lists objects of a store, keeping the snapshots of the listings that have pages to come. */
export class Listings {
  /** The snapshots of listings that have pages to come: by scope, then by resourceVersion. */
  readonly #snapshots = new Map<string, Map<number, JsonObject[]>>();
  #snapshotCount = 0;

  constructor(readonly store: Store) {}

  /**
   * A page of the objects matching the selectors. As with etcd, a listing with a `limit`
   * is a consistent snapshot: the first page's resourceVersion is every page's, and the
   * `continue` token of each page leads to the next page of that same snapshot. The
   * snapshots of the last listings are kept for their continuations; one whose
   * resourceVersion the history has compacted away (or that is no longer kept) is
   * `410 Expired`, as a real server answers a continuation that etcd has compacted.
   */
  list(target: Target, options: ListOptions = {}): ListResult {
    const { type, version } = target;
    const labels = options.labelSelector ?? EVERYTHING;
    const fields = options.fieldSelector ?? EVERYTHING;
    const token = continuationOf(options.continue);
    // Only objects with the name and namespace the field selector requires can match:
    // a selector of one object (`metadata.name=x`) looks it up rather than listing all.
    const pinned = pinnedBy(fields);
    const key = typeKey(type.group, type.plural);
    const namespace = target.namespace ?? pinned.namespace;
    const snapshotKey = `${key}\u0000${namespace ?? "\u0000"}\u0000${pinned.name ?? "\u0000"}`;
    const rv = token?.rv ?? this.store.resourceVersion;
    let all = this.#snapshots.get(snapshotKey)?.get(rv);
    if (token !== undefined && (all === undefined || rv < this.store.history.compactedRv)) {
      throw new ApiError(410, CONTINUE_EXPIRED, { reason: "Expired" });
    }
    if (all === undefined) {
      all = pinned.name === undefined
        ? this.store.list(key, namespace)
        : this.store.named(key, namespace, pinned.name);
    }
    const limit = options.limit && options.limit > 0 ? options.limit : Infinity;
    let index = token === undefined ? 0 : firstAfter(all, token.start);
    const page: JsonObject[] = [];
    for (; index < all.length && page.length < limit; index++) {
      const object = all[index];
      if (labels(object) && fields(object)) page.push(served(object, type, version));
    }
    const result: ListResult = { items: page, resourceVersion: String(rv) };
    if (index < all.length) {
      // More may follow: keep the snapshot for the continuation (the latest few only).
      this.#keep(snapshotKey, rv, all);
      result.continue = btoa(JSON.stringify({ rv, start: keyOf(all[index - 1]) }));
      // As a real server, the count of the rest only when it is exact (no selectors).
      if (labels === EVERYTHING && fields === EVERYTHING) {
        result.remainingItemCount = all.length - index;
      }
    }
    return result;
  }

  #keep(scope: string, rv: number, objects: JsonObject[]): void {
    let byRv = this.#snapshots.get(scope);
    if (byRv?.has(rv)) return;
    if (!byRv) this.#snapshots.set(scope, byRv = new Map());
    byRv.set(rv, objects);
    this.#snapshotCount++;
    // Forget the oldest beyond the limit: their continuations expire early (410).
    while (this.#snapshotCount > KEPT_SNAPSHOTS) {
      let oldest: [string, number] | undefined;
      for (const [s, versions] of this.#snapshots) {
        for (const v of versions.keys()) if (!oldest || v < oldest[1]) oldest = [s, v];
      }
      if (!oldest) break;
      const versions = this.#snapshots.get(oldest[0])!;
      versions.delete(oldest[1]);
      if (!versions.size) this.#snapshots.delete(oldest[0]);
      this.#snapshotCount--;
    }
  }
}
