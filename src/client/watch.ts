/**
 * Watching a resource, continuously: list, then watch from the list's resourceVersion.
 *
 * - A stream that ends cleanly (server timeout, load balancer) is reopened from the last
 *   resourceVersion seen, without listing again.
 * - A 410 Gone -- as the HTTP status, or as an `ERROR` event with code 410 -- means that
 *   resourceVersion is too old: the resource is listed afresh.
 * - Bookmarks move the resourceVersion and are never passed on.
 * - A stream silent for longer than the inactivity timeout is reopened.
 * - A stream that breaks (mid-line, garbage, an `ERROR` event of the server), and one that
 *   ends within a second without a single event, count as failures: the next attempt waits
 *   along a capped exponential backoff with jitter (client-go's: 0.8 s doubling up to
 *   30 s, reset after two healthy minutes; `watch_recovery.ts`), so a misbehaving server is
 *   never hammered.
 *   A stream that stayed up longer than the pause before it (and a second at least)
 *   starts the backoff over: connections cut every few seconds (a load balancer, a flaky
 *   network) cost a short pause each, not 30 s of blindness after every few seconds of
 *   watching.
 *   The first failure of a streak is a WARNING, escalations again, the recovery an INFO;
 *   the attempts between them are logged at DEBUG only.
 * - The body is parsed incrementally, so lines and UTF-8 characters split across network
 *   chunks are fine.
 *
 * - Failures that reconnecting cannot heal (a 403, a 404 of a resource no longer served, a
 *   server still unreachable after the client's retries) end the watch with the error --
 *   unless it is `persistent`: then they are reported along the same backoff and streak,
 *   and the resource is listed again after the pause, until the signal aborts (or
 *   `onFailure` says to stop). The operator's watches are persistent: reconnecting is the
 *   watch's business alone, and its consumers only consume.
 *
 * After each (re)listing, consumers get a `LISTED` item with the full current state, so
 * that they can notice objects deleted while the watch was interrupted.
 *
 * Listings come in one of two ways (`settings.watching.listMode`):
 *
 * - Streamed (Kubernetes 1.27+, on by default since 1.32): one watch request with
 *   `sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`
 *   sends the current objects as `ADDED` events, then a bookmark annotated
 *   `k8s.io/initial-events-end: "true"` at the listing's resourceVersion, then live events
 *   on the same stream. A stream that breaks before that bookmark is listed again; with
 *   `listParts`, the objects that came before the break are passed on first, as a part of
 *   the listing that broke off.
 * - Paginated: list requests of `listPageSize` objects (`limit`, `continue`), one consistent
 *   snapshot; the watch starts at the resourceVersion of its pages. An expired continuation
 *   (410) begins the listing anew.
 *
 * In the `auto` mode, streaming is tried first; a server that refuses it (400 or 422: an
 * older server, or one with the WatchList feature off), or that sends live events or a
 * plain bookmark before the initial-events-end one, or ends the stream without it, gets
 * paginated listings from then on, for the life of this watch.
 *
 * With `listParts`, a listing comes in parts as it arrives -- `LISTING` items of up to a
 * page each, then `LISTED` with the rest -- so that neither the client nor the consumer
 * need hold all the objects at once; otherwise in one `LISTED` item.
 *
 * @module
 */
import type { RawBody } from "../structs/bodies.ts";
import type { ObjectVersion } from "../structs/json_members.ts";
import type { Resource } from "../structs/resources.ts";
import { type ApiClient, metricsOf } from "./api.ts";
import { listPages } from "./objects.ts";
import { listModeOf, listPageSizeOf, reconnectBackoffOf } from "./tuning.ts";
import { realClock, sleep } from "../structs/clock.ts";
import { resourceLabel } from "../structs/metric_labels.ts";
import { categoryLogger } from "../platform/logging.ts";
import type { WatchItem, WholeWatchItem } from "./watch_items.ts";
import {
  type StreamedListing,
  type StreamEnd,
  streamOnce,
  type WatchState,
} from "./watch_streams.ts";
import { keepWatching, WatchHealth, type WatchRecoveryOptions } from "./watch_recovery.ts";
import { getLogger } from "../platform/log_routing.ts";

export type { WatchItem, WholeWatchItem } from "./watch_items.ts";
export type { ObjectVersion } from "../structs/json_members.ts";
export type { WatchRecoveryOptions } from "./watch_recovery.ts";

/** Options of {@link watchObjects}. */
export interface WatchObjectsOptions extends WatchRecoveryOptions {
  /** Watch one namespace; omit to watch cluster-wide. */
  namespace?: string;
  /** A label selector for both the listing and the watch. */
  labelSelector?: string;
  /** A field selector for both the listing and the watch. */
  fieldSelector?: string;
  /** The page size of listings; `settings.watching.listPageSize` (500) by default. */
  listLimit?: number;
  /** How listings are fetched; `settings.watching.listMode` (`auto`) by default. */
  listMode?: "auto" | "stream" | "paginate";
  /** Yield listings in parts as they arrive (`LISTING` items), not whole. */
  listParts?: boolean;
  /**
   * Begin with a watch from this `resourceVersion` instead of a listing (e.g. the version
   * of a listing done otherwise, see `currentVersion`): only the changes made after it
   * come. Once the server no longer has it (410), the watch lists as usual.
   */
  resourceVersion?: string;
  /**
   * Watch the objects' metadata only, in the listings (paginated or streamed) and the live
   * events alike: each object comes as the server sends it, `kind:
   * "PartialObjectMetadata"`, `apiVersion: "meta.k8s.io/v1"`, with `metadata` and nothing
   * else -- not rewritten into the resource's kind. A server that ignores the request sends
   * whole objects, which come as in a plain watch.
   */
  metadataOnly?: boolean;
  /**
   * The events the consumer takes from their text, such as those of states it knows already
   * (its own writes' answers): called for each live `MODIFIED` event with its object's
   * namespace, uid and `resourceVersion` as read from the event's text before it is parsed,
   * and that text (one line of JSON); an event it returns true for is not parsed and not
   * yielded (the watch moves past it, as past any other), and the text is the consumer's to
   * parse if it ever needs the body. Not called for an event whose identity the text does
   * not state plainly (it is parsed and yielded), nor for listings, nor for a stream's last
   * line without its newline.
   */
  knows?: (object: ObjectVersion, text: string) => boolean;
  /** Stops the watch: the generator returns promptly. */
  signal?: AbortSignal;
  /**
   * Keep watching through failures until the signal aborts: a failure that reconnecting
   * cannot heal is reported (through `logger`, as `describeFailure` words it), and the
   * resource is listed again after a pause along `backoff` -- unless `onFailure` returns
   * true for it. Without it, such a failure ends the watch, thrown.
   */
  persistent?: boolean;
}

/** After this many streamed listings in a row end unfinished, `auto` lists in pages. */
const UNFINISHED_STREAMED_LISTINGS = 2;

const logger = getLogger(["kopf", "client", "watch"]);

/**
 * Watch a resource until the signal aborts (or the consumer stops iterating). Yields
 * `LISTING` parts and `LISTED` first, then live events; again after every re-listing.
 * Failures that retries cannot heal (403, 404 of a deleted CRD, exhausted retries) are
 * thrown, unless the watch is `persistent`.
 */
export function watchObjects(
  api: ApiClient,
  resource: Resource,
  options: WatchObjectsOptions & { listParts: true },
): AsyncGenerator<WatchItem, void, undefined>;
/**
 * Watch a resource until the signal aborts (or the consumer stops iterating). Yields
 * `LISTED` first, then live events; again `LISTED` after every re-listing. Failures that
 * retries cannot heal (403, 404 of a deleted CRD, exhausted retries) are thrown, unless
 * the watch is `persistent`.
 */
export function watchObjects(
  api: ApiClient,
  resource: Resource,
  options?: WatchObjectsOptions & { listParts?: false },
): AsyncGenerator<WholeWatchItem, void, undefined>;
/** Watch a resource; listings in parts or whole as `options.listParts` says. */
export function watchObjects(
  api: ApiClient,
  resource: Resource,
  options?: WatchObjectsOptions,
): AsyncGenerator<WatchItem, void, undefined>;
export function watchObjects(
  api: ApiClient,
  resource: Resource,
  options: WatchObjectsOptions = {},
): AsyncGenerator<WatchItem, void, undefined> {
  const state = watchState(api, resource, options);
  const items = options.persistent
    ? keepWatching(() => watchInParts(api, state, options), state.health, options)
    : watchInParts(api, state, options);
  return options.listParts ? items : wholeListings(items);
}

/** What the watch keeps across its requests, re-listings and (if persistent) failures. */
function watchState(api: ApiClient, resource: Resource, options: WatchObjectsOptions): WatchState {
  const namespace = resource.namespaced ? options.namespace : undefined;
  const path = resource.getUrl({ namespace });
  const metrics = metricsOf(api);
  const label = resourceLabel(resource);
  const health = new WatchHealth(
    `The watch of ${path}`,
    { ...options, logger: options.logger ?? categoryLogger(["kopf", "client", "watch"]) },
    metrics === undefined ? undefined : () => metrics.watchErrors.inc([label]),
  );
  const heard = { resource: label, heardAt: realClock.now() };
  return { resource, namespace, path, health, heard, metrics, fellBack: false };
}

/** The items with each listing's parts joined into its `LISTED` item. */
async function* wholeListings(
  items: AsyncGenerator<WatchItem, void, undefined>,
): AsyncGenerator<WholeWatchItem, void, undefined> {
  let parts: RawBody[][] = [];
  for await (const item of items) {
    if (item.type === "LISTING") {
      if (!item.continued) parts = [];
      parts.push(item.objects);
    } else if (item.type === "LISTED") {
      const objects = item.continued ? [...parts.flat(), ...item.objects] : item.objects;
      parts = [];
      yield { type: "LISTED", objects, resourceVersion: item.resourceVersion };
    } else {
      yield item;
    }
  }
}

/** List, then watch from the listing; again after every stream that ends or breaks. */
async function* watchInParts(
  api: ApiClient,
  state: WatchState,
  options: WatchObjectsOptions,
): AsyncGenerator<WatchItem, void, undefined> {
  const { signal } = options;
  const { path, health, heard, metrics } = state;
  const clock = health.clock;
  /** How many streamed listings in a row have ended before their end. */
  let unfinished = 0;
  /** How long the last stream was open (seconds). */
  let lasted = 0;
  metrics?.watches.set(heard, heard);
  /** Where the first watch begins without a listing, if anywhere. */
  let since = options.resourceVersion || undefined;
  try {
    relisting: while (!signal?.aborted) {
      const mode = options.listMode ?? listModeOf(api.watching);
      const pageSize = options.listLimit ?? listPageSizeOf(api.watching);
      const position = { resourceVersion: since ?? "" };
      let end: StreamEnd | undefined;
      if (since !== undefined) {
        since = undefined;
      } else if (mode === "stream" || (mode === "auto" && !state.fellBack)) {
        const listing: StreamedListing = { pageSize, strict: mode === "stream" };
        const opened = clock.now();
        end = yield* streamOnce(api, state, options, position, listing);
        lasted = clock.now() - opened;
        if (end.next === "paginate") {
          state.fellBack = true;
          logger.info(
            "The server does not stream the listing of {path} ({why}); listing it in pages.",
            { path, why: end.failure ?? "" },
          );
          continue;
        }
      } else {
        try {
          yield* listInParts(api, state, options, pageSize, position);
        } catch (e) {
          if (signal?.aborted) return;
          throw e;
        }
      }
      for (;;) {
        if (end === undefined) {
          const opened = clock.now();
          end = yield* streamOnce(api, state, options, position);
          lasted = clock.now() - opened;
        }
        if (end.next === "stop" || signal?.aborted) return;
        // A pause before reconnecting or re-listing: a short one after a stream that worked,
        // a growing one after failures, so that a misbehaving server is never flooded.
        // Unfinished listings never start the pauses over: each attempt lists everything.
        let pause = reconnectBackoffOf(api.watching);
        if (end.failure !== undefined) {
          pause = health.failed(end.failure, end.unfinished ? 0 : lasted, pause);
        }
        if (end.unfinished && ++unfinished >= UNFINISHED_STREAMED_LISTINGS && mode === "auto") {
          // A server that ignores the parameters streams no end of the initial events.
          state.fellBack = true;
          logger.info(
            "The streamed listings of {path} ended unfinished {count} times in a row; " +
              "listing it in pages.",
            { path, count: unfinished },
          );
        }
        if (!end.unfinished) unfinished = 0;
        health.pausing(pause);
        if (!(await sleep(pause, signal, clock))) return;
        if (end.next === "relist" || end.next === "paginate") {
          metrics?.watchRelists.inc([heard.resource]);
          continue relisting;
        }
        metrics?.watchReconnects.inc([heard.resource]);
        end = undefined;
      }
    }
  } finally {
    metrics?.watches.delete(heard);
  }
}

/** A paginated listing, yielded in parts: `LISTING` per page, `LISTED` with the last. */
async function* listInParts(
  api: ApiClient,
  state: WatchState,
  options: WatchObjectsOptions,
  pageSize: number,
  position: { resourceVersion: string },
): AsyncGenerator<WatchItem, void, undefined> {
  const pages = listPages(api, state.resource, {
    namespace: state.namespace,
    labelSelector: options.labelSelector,
    fieldSelector: options.fieldSelector,
    metadataOnly: options.metadataOnly,
    limit: pageSize,
    signal: options.signal,
    backoff: options.backoff,
  });
  for await (const page of pages) {
    if (!page.last) {
      yield { type: "LISTING", objects: page.items, continued: page.continued };
      continue;
    }
    position.resourceVersion = page.resourceVersion;
    // A complete listing proves the watch healthy again.
    state.health.streak.succeeded();
    const { items: objects, resourceVersion, continued } = page;
    yield { type: "LISTED", objects, resourceVersion, continued };
    return;
  }
}
