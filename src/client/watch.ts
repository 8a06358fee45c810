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
 *   The first failure of a streak is a WARNING, escalations again, the recovery an INFO;
 *   the attempts between them are logged at DEBUG only.
 * - The body is parsed incrementally, so lines and UTF-8 characters split across network
 *   chunks are fine.
 *
 * After each (re)listing, consumers get a `LISTED` item with the full current state, so
 * that they can notice objects deleted while the watch was interrupted.
 *
 * @module
 */
import { getLogger } from "@logtape/logtape";
import type { RawBody, RawStatus } from "../structs/bodies.ts";
import type { Resource } from "../structs/resources.ts";
import type { ApiClient } from "./api.ts";
import { APIError, apiErrorFor, APIGoneError, APIServerError } from "./api_errors.ts";
import { JsonLineError, parseJsonLines } from "./json_lines.ts";
import { listObjects, type ObjectList } from "./objects.ts";
import { inactivityTimeoutOf, reconnectBackoffOf, timeoutOf } from "./tuning.ts";
import { childController } from "./abort_controllers.ts";
import { realClock, sleep } from "../structs/clock.ts";
import { Backoff, type BackoffOptions } from "../structs/backoffs.ts";
import { FailureStreak } from "../structs/failure_streaks.ts";
import type { Logger } from "../structs/loggers.ts";
import { resourceLabel } from "../structs/operator_metrics.ts";
import { categoryLogger } from "../platform/logging.ts";

/** What a watch yields: live events, and the full state after every (re)listing. */
export type WatchItem =
  | { type: "ADDED" | "MODIFIED" | "DELETED"; object: RawBody }
  | { type: "LISTED"; objects: RawBody[]; resourceVersion: string };

/** Options of {@link watchObjects}. */
export interface WatchObjectsOptions {
  /** Watch one namespace; omit to watch cluster-wide. */
  namespace?: string;
  /** A label selector for both the listing and the watch. */
  labelSelector?: string;
  /** A field selector for both the listing and the watch. */
  fieldSelector?: string;
  /** The page size of listings. */
  listLimit?: number;
  /** Stops the watch: the generator returns promptly. */
  signal?: AbortSignal;
  /** The pauses after failed streams; client-go's reflector backoff by default. */
  backoff?: BackoffOptions;
  /** Where failures and recoveries are reported; the `kopf.client.watch` logger by default. */
  logger?: Logger;
}

/** Why one watch request ended, and whether that was a failure (then: why). */
interface StreamEnd {
  readonly next: "reconnect" | "relist" | "stop";
  readonly failure?: string;
}

/** A stream shorter than this, without a single event, is a failure: a healthy one lasts. */
const SHORTEST_HEALTHY_STREAM = 1;

/** A stream that has delivered events for this long proves that a failure streak is over. */
const PROVEN_HEALTHY_STREAM = 10;

const logger = getLogger(["kopf", "client", "watch"]);

class WatchTimeout extends Error {
  override name = "WatchTimeout";
}

/**
 * Watch a resource until the signal aborts (or the consumer stops iterating). Yields
 * `LISTED` first, then live events; again `LISTED` after every re-listing. Failures that
 * retries cannot heal (403, 404 of a deleted CRD, exhausted retries) are thrown.
 */
export async function* watchObjects(
  api: ApiClient,
  resource: Resource,
  options: WatchObjectsOptions = {},
): AsyncGenerator<WatchItem, void, undefined> {
  const signal = options.signal;
  const namespace = resource.namespaced ? options.namespace : undefined;
  const path = resource.getUrl({ namespace });
  const backoff = new Backoff(options.backoff);
  const streak = new FailureStreak({
    logger: options.logger ?? categoryLogger(["kopf", "client", "watch"]),
    what: `The watch of ${path}`,
  });
  const metrics = api.metrics;
  const label = resourceLabel(resource);
  const heard = { resource: label, heardAt: realClock.now() };
  const health: StreamHealth = { streak, backoff, heard };
  metrics?.watches.set(heard, heard);
  try {
    while (!signal?.aborted) {
      let listed: ObjectList | undefined;
      try {
        listed = await listObjects(api, resource, {
          namespace,
          labelSelector: options.labelSelector,
          fieldSelector: options.fieldSelector,
          limit: options.listLimit,
          signal,
        });
      } catch (e) {
        if (signal?.aborted) return;
        throw e;
      }
      const position = { resourceVersion: listed.resourceVersion };
      yield { type: "LISTED", objects: listed.items, resourceVersion: listed.resourceVersion };
      // The consumer has the listing: it must not stay in memory here while streaming.
      listed = undefined;
      for (;;) {
        const end = yield* streamOnce(api, resource, namespace, options, position, health);
        if (end.next === "stop" || signal?.aborted) return;
        // A pause before reconnecting or re-listing: a short one after a stream that worked,
        // a growing one after failures, so that a misbehaving server is never flooded.
        let pause = reconnectBackoffOf(api.watching);
        if (end.failure !== undefined) {
          pause = Math.max(pause, backoff.next());
          streak.failed({ reason: end.failure, retryIn: pause });
          metrics?.watchErrors.inc([label]);
        }
        if (!(await sleep(pause, signal))) return;
        if (end.next === "relist") {
          metrics?.watchRelists.inc([label]);
          break;
        }
        metrics?.watchReconnects.inc([label]);
      }
    }
  } finally {
    metrics?.watches.delete(heard);
  }
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
): AsyncGenerator<WatchItem, StreamEnd, undefined> {
  const openedAt = realClock.now();
  let events = 0;
  /** A clean end: a failure if the stream was too short to have been of any use. */
  const ended = (next: "reconnect" | "relist", why: string): StreamEnd => {
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
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    const stream = await api.openStream(path, {
      query: {
        watch: true,
        resourceVersion: position.resourceVersion || undefined,
        allowWatchBookmarks: true,
        timeoutSeconds: serverTimeout === undefined ? undefined : Math.round(serverTimeout),
        labelSelector: options.labelSelector || undefined,
        fieldSelector: options.fieldSelector || undefined,
      },
      signal,
    });
    reader = stream.body.getReader();
    api.metrics?.watchConnects.inc([resourceLabel(resource)]);
    health.heard.heardAt = realClock.now();
    active();
    const chunks = async function* (source: ReadableStreamDefaultReader<Uint8Array>) {
      for (;;) {
        const { done, value } = await source.read();
        if (done) return;
        active();
        yield value;
      }
    };
    for await (const raw of parseJsonLines(chunks(reader))) {
      const event = raw as { type?: string; object?: RawBody };
      const object = event.object ?? {};
      const rv = object.metadata?.resourceVersion;
      health.heard.heardAt = realClock.now();
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
            return { next: "reconnect", failure: `the server sent an error: ${error.message}` };
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
      return { next: "reconnect" };
    }
    if (e instanceof APIError) throw e;
    // A stream that breaks mid-way (or sends garbage) resumes like a clean close, after a
    // pause; failures to (re)connect have already been retried by the client: they escalate.
    if (reader !== undefined || e instanceof JsonLineError) {
      const why = e instanceof Error ? e.message : String(e);
      return { next: "reconnect", failure: `the stream broke: ${why}` };
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
