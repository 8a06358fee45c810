/**
 * Watching a resource, continuously: list, then watch from the list's resourceVersion.
 *
 * - A stream that ends cleanly (server timeout, load balancer) is reopened from the last
 *   resourceVersion seen, without listing again.
 * - A 410 Gone — as the HTTP status, or as an `ERROR` event with code 410 — means that
 *   resourceVersion is too old: the resource is listed afresh.
 * - Bookmarks move the resourceVersion and are never passed on.
 * - A stream silent for longer than the inactivity timeout is reopened.
 * - A stream that breaks (mid-line, garbage, an `ERROR` event of the server), and one that
 *   ends within a second without a single event, count as failures: the next attempt waits
 *   along a capped exponential backoff with jitter (client-go's: 0.8 s doubling up to
 *   30 s, reset after two healthy minutes), so a misbehaving server is never hammered.
 *   A stream that stayed up longer than the pause before it (and a second at least)
 *   starts the backoff over: connections cut every few seconds (a load balancer, a flaky
 *   network) cost a short pause each, not 30 s of blindness after every few seconds of
 *   watching.
 *   The first failure of a streak is a WARNING, escalations again, the recovery an INFO;
 *   the attempts between them are logged at DEBUG only.
 * - The body is parsed incrementally, so lines and UTF-8 characters split across network
 *   chunks are fine.
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
 *   on the same stream. A stream that breaks before that bookmark is listed again.
 * - Paginated: list requests of `listPageSize` objects (`limit`, `continue`), one consistent
 *   snapshot; the watch starts at the resourceVersion of its pages. An expired continuation
 *   (410) begins the listing anew.
 *
 * In the `auto` mode, streaming is tried first; a server that refuses it (400 or 422: an
 * older server, or one with the WatchList feature off), or that sends live events or a
 * plain bookmark before the initial-events-end one, or ends the stream without it, gets
 * paginated listings from then on, for the life of this watch.
 *
 * With `listParts`, a listing comes in parts as it arrives — `LISTING` items of up to a
 * page each, then `LISTED` with the rest — so that neither the client nor the consumer
 * need hold all the objects at once; otherwise in one `LISTED` item.
 *
 * @module
 */
import { getLogger } from "@logtape/logtape";
import type { RawBody, RawStatus } from "../structs/bodies.ts";
import type { Resource } from "../structs/resources.ts";
import { type ApiClient, metricsOf } from "./api.ts";
import {
  APIBadRequestError,
  APIError,
  apiErrorFor,
  APIGoneError,
  APIServerError,
  APIUnprocessableError,
} from "./api_errors.ts";
import { JsonLineError, JsonLines, NO_LINE } from "./json_lines.ts";
import { listPages } from "./objects.ts";
import {
  inactivityTimeoutOf,
  listModeOf,
  listPageSizeOf,
  reconnectBackoffOf,
  timeoutOf,
} from "./tuning.ts";
import { childController } from "./abort_controllers.ts";
import { realClock, sleep } from "../structs/clock.ts";
import { Backoff, type BackoffOptions } from "../structs/backoffs.ts";
import { FailureStreak } from "../structs/failure_streaks.ts";
import type { Logger } from "../structs/loggers.ts";
import { resourceLabel } from "../structs/operator_metrics.ts";
import { categoryLogger } from "../platform/logging.ts";
import { type ChunkReader, chunkReaderOf } from "../platform/http_client.ts";

/**
 * What a watch yields: live events, and the full state after every (re)listing — in one
 * `LISTED` item, or (with `listParts`) in `LISTING` parts completed by a `LISTED` item.
 */
export type WatchItem =
  | { type: "ADDED" | "MODIFIED" | "DELETED"; object: RawBody }
  | {
    /** A part of a listing in progress (only with `listParts`). */
    type: "LISTING";
    objects: RawBody[];
    /** False when this part begins a listing: parts of an unfinished one are void. */
    continued: boolean;
  }
  | {
    /** A listing is complete: the objects of its `LISTING` parts and these are all there are. */
    type: "LISTED";
    objects: RawBody[];
    resourceVersion: string;
    /** True when `LISTING` parts of this listing came before; false or absent otherwise. */
    continued?: boolean;
  };

/** Options of {@link watchObjects}. */
export interface WatchObjectsOptions {
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
  /** Stops the watch: the generator returns promptly. */
  signal?: AbortSignal;
  /** The pauses after failed streams; client-go's reflector backoff by default. */
  backoff?: BackoffOptions;
  /** Where failures and recoveries are reported; the `kopf.client.watch` logger by default. */
  logger?: Logger;
}

/**
 * Why one watch request ended, and whether that was a failure (then: why); `paginate`
 * when a streamed listing is not supported by the server.
 */
interface StreamEnd {
  readonly next: "reconnect" | "relist" | "stop" | "paginate";
  readonly failure?: string;
  /** A streamed listing ended before its initial-events-end bookmark. */
  readonly unfinished?: boolean;
}

/** After this many streamed listings in a row end unfinished, `auto` lists in pages. */
const UNFINISHED_STREAMED_LISTINGS = 2;

/** The annotation of the bookmark that ends a streamed listing's initial events. */
const INITIAL_EVENTS_END = "k8s.io/initial-events-end";

/** A stream shorter than this, without a single event, is a failure: a healthy one lasts. */
const SHORTEST_HEALTHY_STREAM = 1;

/** A stream that has delivered events for this long proves that a failure streak is over. */
const PROVEN_HEALTHY_STREAM = 10;

const logger = getLogger(["kopf", "client", "watch"]);

class WatchTimeout extends Error {
  override name = "WatchTimeout";
}

/** What a watch yields when listings come whole: no `LISTING` parts. */
export type WholeWatchItem = Exclude<WatchItem, { type: "LISTING" }>;

/**
 * Watch a resource until the signal aborts (or the consumer stops iterating). Yields
 * `LISTING` parts and `LISTED` first, then live events; again after every re-listing.
 * Failures that retries cannot heal (403, 404 of a deleted CRD, exhausted retries) are
 * thrown.
 */
export function watchObjects(
  api: ApiClient,
  resource: Resource,
  options: WatchObjectsOptions & { listParts: true },
): AsyncGenerator<WatchItem, void, undefined>;
/**
 * Watch a resource until the signal aborts (or the consumer stops iterating). Yields
 * `LISTED` first, then live events; again `LISTED` after every re-listing. Failures that
 * retries cannot heal (403, 404 of a deleted CRD, exhausted retries) are thrown.
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
  const items = watchInParts(api, resource, options);
  return options.listParts ? items : wholeListings(items);
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

async function* watchInParts(
  api: ApiClient,
  resource: Resource,
  options: WatchObjectsOptions,
): AsyncGenerator<WatchItem, void, undefined> {
  const signal = options.signal;
  const namespace = resource.namespaced ? options.namespace : undefined;
  const path = resource.getUrl({ namespace });
  const backoff = new Backoff(options.backoff);
  const streak = new FailureStreak({
    logger: options.logger ?? categoryLogger(["kopf", "client", "watch"]),
    what: `The watch of ${path}`,
  });
  const metrics = metricsOf(api);
  const label = resourceLabel(resource);
  const heard = { resource: label, heardAt: realClock.now() };
  const health: StreamHealth = { streak, backoff, heard };
  /** Whether `auto` has fallen back to pages, for good: the server does not stream. */
  let fellBack = false;
  /** How many streamed listings in a row have ended before their end. */
  let unfinished = 0;
  /** The last pause before a stream, and how long the last stream was open (seconds). */
  let lastPause = 0;
  let lasted = 0;
  metrics?.watches.set(heard, heard);
  try {
    relisting: while (!signal?.aborted) {
      const mode = options.listMode ?? listModeOf(api.watching);
      const pageSize = options.listLimit ?? listPageSizeOf(api.watching);
      const position = { resourceVersion: "" };
      let end: StreamEnd | undefined;
      if (mode === "stream" || (mode === "auto" && !fellBack)) {
        const listing: StreamedListing = { pageSize, strict: mode === "stream" };
        const opened = realClock.now();
        end = yield* streamOnce(api, resource, namespace, options, position, health, listing);
        lasted = realClock.now() - opened;
        if (end.next === "paginate") {
          fellBack = true;
          logger.info(
            "The server does not stream the listing of {path} ({why}); listing it in pages.",
            { path, why: end.failure ?? "" },
          );
          continue;
        }
      } else {
        try {
          yield* listInParts(api, resource, namespace, options, pageSize, position);
        } catch (e) {
          if (signal?.aborted) return;
          throw e;
        }
      }
      for (;;) {
        if (end === undefined) {
          const opened = realClock.now();
          end = yield* streamOnce(api, resource, namespace, options, position, health);
          lasted = realClock.now() - opened;
        }
        if (end.next === "stop" || signal?.aborted) return;
        // A pause before reconnecting or re-listing: a short one after a stream that worked,
        // a growing one after failures, so that a misbehaving server is never flooded.
        let pause = reconnectBackoffOf(api.watching);
        if (end.failure !== undefined) {
          // A stream that stayed up longer than the pause before it (a second at least) was
          // of use: the pauses start over. So a connection cut now and then (by a load
          // balancer, say) costs a short pause each time, never the cap, while streams that
          // break at once still wait longer each time. Not for unfinished listings: each
          // attempt lists everything again.
          if (!end.unfinished && lasted >= Math.max(SHORTEST_HEALTHY_STREAM, lastPause)) {
            backoff.reset();
          }
          pause = Math.max(pause, backoff.next());
          streak.failed({ reason: end.failure, retryIn: pause });
          metrics?.watchErrors.inc([label]);
        }
        if (end.unfinished && ++unfinished >= UNFINISHED_STREAMED_LISTINGS && mode === "auto") {
          // A server that ignores the parameters streams no end of the initial events.
          fellBack = true;
          logger.info(
            "The streamed listings of {path} ended unfinished {count} times in a row; listing " +
              "it in pages.",
            { path, count: unfinished },
          );
        }
        if (!end.unfinished) unfinished = 0;
        lastPause = pause;
        if (!(await sleep(pause, signal))) return;
        if (end.next === "relist" || end.next === "paginate") {
          metrics?.watchRelists.inc([label]);
          continue relisting;
        }
        metrics?.watchReconnects.inc([label]);
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
  resource: Resource,
  namespace: string | undefined,
  options: WatchObjectsOptions,
  pageSize: number,
  position: { resourceVersion: string },
): AsyncGenerator<WatchItem, void, undefined> {
  const pages = listPages(api, resource, {
    namespace,
    labelSelector: options.labelSelector,
    fieldSelector: options.fieldSelector,
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
    const { items: objects, resourceVersion, continued } = page;
    yield { type: "LISTED", objects, resourceVersion, continued };
    return;
  }
}

/** How a watch request that streams a listing passes it on, and how strictly. */
interface StreamedListing {
  /** The most objects in one `LISTING` part. */
  readonly pageSize: number;
  /** True if the listing must be streamed: no fallback to pages when the server refuses. */
  readonly strict: boolean;
}

/** The watch's record of failures, shared by its streams, and when it last heard anything. */
interface StreamHealth {
  readonly streak: FailureStreak;
  readonly backoff: Backoff;
  readonly heard: { heardAt: number };
}

/** One watch request: yields its events, and tells how it ended. */
async function* streamOnce(
  api: ApiClient,
  resource: Resource,
  namespace: string | undefined,
  options: WatchObjectsOptions,
  position: { resourceVersion: string },
  health: StreamHealth,
  listing?: StreamedListing,
): AsyncGenerator<WatchItem, StreamEnd, undefined> {
  const openedAt = realClock.now();
  let events = 0;
  /** The streamed listing's objects not yet passed on, and how many parts were. */
  let part: RawBody[] = [];
  let parts = 0;
  /** Whether the initial events are over (or were not asked for). */
  let listed = listing === undefined;
  /** The server sent what a streamed listing does not: pages then, unless streaming is a must. */
  const notStreamed = (why: string): StreamEnd =>
    listing?.strict ? { next: "relist", failure: why } : { next: "paginate", failure: why };
  /** A failure after which the stream resumes, or a listing unfinished begins anew. */
  const resumed = (failure: string): StreamEnd =>
    listed ? { next: "reconnect", failure } : {
      next: "relist",
      failure: `${failure} before the end of the initial events`,
      unfinished: true,
    };
  /** A clean end: a failure if the stream was too short to have been of any use. */
  const ended = (next: "reconnect" | "relist", why: string): StreamEnd => {
    if (!listed) return resumed(why);
    if (events === 0 && realClock.now() - openedAt < SHORTEST_HEALTHY_STREAM) {
      return { next, failure: `${why} within ${SHORTEST_HEALTHY_STREAM}s and without events` };
    }
    if (events > 0) health.streak.succeeded();
    return { next };
  };
  const outer = options.signal;
  const child = childController(outer);
  const { controller, signal } = child;
  const watching = api.watching;
  const clientTimeout = timeoutOf(watching.clientTimeout);
  const inactivityTimeout = inactivityTimeoutOf(watching);
  const serverTimeout = timeoutOf(watching.serverTimeout);
  const clientTimer = clientTimeout === undefined ? undefined : setTimeout(() => {
    controller.abort(new WatchTimeout(`the client timeout of ${clientTimeout} s`));
  }, clientTimeout * 1000);
  // The inactivity timeout: network chunks only note the time, and one timer at a time
  // checks, when it fires, whether the silence has lasted long enough, or waits for the
  // rest of it. While the consumer holds an event, the silence is not the server's: the
  // timer does nothing then, and the silence starts again when the consumer is back.
  const silenceLimit = inactivityTimeout === undefined ? undefined : inactivityTimeout * 1000;
  let lastActivity = 0;
  let consuming = false;
  let silenceTimer: ReturnType<typeof setTimeout> | undefined;
  const checkSilence = () => {
    silenceTimer = undefined;
    if (consuming || silenceLimit === undefined) return;
    const remaining = lastActivity + silenceLimit - realClock.now() * 1000;
    if (remaining > 0) silenceTimer = setTimeout(checkSilence, remaining);
    else controller.abort(new WatchTimeout(`no data for ${inactivityTimeout} s`));
  };
  const active = () => {
    if (silenceLimit === undefined) return;
    lastActivity = realClock.now() * 1000;
    silenceTimer ??= setTimeout(checkSilence, silenceLimit);
  };
  const path = resource.getUrl({ namespace });
  let reader: ChunkReader | undefined;
  try {
    const stream = await api.openStream(path, {
      query: {
        watch: true,
        resourceVersion: listing ? undefined : position.resourceVersion || undefined,
        sendInitialEvents: listing ? true : undefined,
        resourceVersionMatch: listing ? "NotOlderThan" : undefined,
        allowWatchBookmarks: true,
        timeoutSeconds: serverTimeout === undefined ? undefined : Math.round(serverTimeout),
        labelSelector: options.labelSelector || undefined,
        fieldSelector: options.fieldSelector || undefined,
      },
      signal,
    });
    reader = chunkReaderOf(stream.body);
    metricsOf(api)?.watchConnects.inc([resourceLabel(resource)]);
    health.heard.heardAt = realClock.now();
    active();
    // Lines are parsed as chunks arrive, without generators between the reads and here.
    const lines = new JsonLines();
    let done = false;
    while (!done) {
      const chunk = await reader.read();
      done = chunk === undefined;
      if (chunk === undefined) {
        lines.end();
      } else {
        active();
        lines.push(chunk);
      }
      for (let raw = lines.next(); raw !== NO_LINE; raw = lines.next()) {
        const event = raw as { type?: string; object?: RawBody };
        const object = event.object ?? {};
        const rv = object.metadata?.resourceVersion;
        health.heard.heardAt = realClock.now();
        if (!listed && listing !== undefined) {
          // The initial events: passed on in parts of up to a page, until the bookmark.
          const annotations = object.metadata?.annotations;
          if (event.type === "ADDED") {
            events++;
            part.push(object);
            if (part.length < listing.pageSize) continue;
            const objects = part;
            part = [];
            consuming = true;
            yield { type: "LISTING", objects, continued: parts++ > 0 };
            consuming = false;
            active();
            continue;
          } else if (event.type === "BOOKMARK" && annotations?.[INITIAL_EVENTS_END] === "true") {
            if (typeof rv === "string" && rv) position.resourceVersion = rv;
            listed = true;
            health.streak.succeeded();
            const objects = part;
            part = [];
            consuming = true;
            const resourceVersion = position.resourceVersion;
            yield { type: "LISTED", objects, resourceVersion, continued: parts > 0 };
            consuming = false;
            active();
            continue;
          } else if (
            event.type === "BOOKMARK" || event.type === "MODIFIED" || event.type === "DELETED"
          ) {
            return notStreamed(
              `a ${event.type} event came before the bookmark that ends the initial events`,
            );
          }
        }
        switch (event.type) {
          case "ADDED":
          case "MODIFIED":
          case "DELETED":
            if (typeof rv === "string" && rv) position.resourceVersion = rv;
            // Events for a while prove the watch healthy again (a clean end proves it too).
            events++;
            if (realClock.now() - openedAt >= PROVEN_HEALTHY_STREAM) health.streak.succeeded();
            // Silence is the server's, not a slow consumer's: none while waiting for it.
            consuming = true;
            yield { type: event.type, object };
            consuming = false;
            active();
            break;
          case "BOOKMARK":
            if (typeof rv === "string" && rv) position.resourceVersion = rv;
            break;
          case "ERROR": {
            const status = object as RawStatus;
            const code = typeof status.code === "number" ? status.code : 500;
            const error = apiErrorFor(code, status, { method: "WATCH", path });
            if (error instanceof APIGoneError) {
              logger.debug("The watch of {path} is gone ({message}); listing again.", {
                path,
                message: status.message ?? "",
              });
              return ended("relist", "the watch's history was gone (410)");
            }
            if (error instanceof APIServerError) {
              return resumed(`the server sent an error: ${error.message}`);
            }
            throw error;
          }
          default:
            logger.warn("Ignoring a watch event of an unknown type {type} from {path}.", {
              type: String(event.type),
              path,
            });
        }
      }
    }
    logger.debug("The watch of {path} ended; resuming from {resourceVersion}.", {
      path,
      resourceVersion: position.resourceVersion,
    });
    return ended("reconnect", "the stream ended");
  } catch (e) {
    if (outer?.aborted) return { next: "stop" };
    if (e instanceof APIGoneError) return ended("relist", "the watch's history was gone (410)");
    const reason = controller.signal.reason;
    if (controller.signal.aborted && reason instanceof WatchTimeout) {
      logger.debug("Reconnecting the watch of {path} after {why}.", { path, why: reason.message });
      return listed ? { next: "reconnect" } : resumed(reason.message);
    }
    if (
      listing !== undefined && !listed &&
      (e instanceof APIBadRequestError || e instanceof APIUnprocessableError)
    ) {
      // Older servers refuse the streaming list's parameters (422), as do odd proxies (400);
      // where streaming is a must, that is an error for the caller.
      if (listing.strict) throw e;
      return notStreamed(`the server refused it: ${e.message}`);
    }
    if (e instanceof APIError) throw e;
    // A stream that breaks mid-way (or sends garbage) resumes like a clean close, after a
    // pause; failures to (re)connect have already been retried by the client: they escalate.
    if (reader !== undefined || e instanceof JsonLineError) {
      const why = e instanceof Error ? e.message : String(e);
      return resumed(`the stream broke: ${why}`);
    }
    throw e;
  } finally {
    clearTimeout(clientTimer);
    clearTimeout(silenceTimer);
    child.unlink();
    controller.abort();
    await reader?.cancel().catch(() => {});
  }
}
