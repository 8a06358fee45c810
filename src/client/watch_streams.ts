/**
 * One watch request of a watch (`watch.ts`): its stream read line by line as the chunks
 * arrive, its initial events when it streams a listing, its live events, its timeouts
 * (the client's, and the inactivity one), and how it ended -- to resume from the last
 * resourceVersion, to list again, or to fall back to paginated listings.
 *
 * @module
 */
import { getLogger } from "../platform/log_routing.ts";
import type { RawBody, RawStatus } from "../structs/bodies.ts";
import type { Resource } from "../structs/resources.ts";
import type { OperatorMetrics } from "../structs/operator_metrics.ts";
import { realClock } from "../structs/clock.ts";
import { type ApiClient, metricsOf } from "./api.ts";
import {
  APIBadRequestError,
  APIError,
  apiErrorFor,
  APIGoneError,
  APIServerError,
  APIUnprocessableError,
} from "./api_errors.ts";
import { JsonLineError, JsonLines, NO_LINE, parseJsonLine } from "./json_lines.ts";
import { modifiedObjectVersion, type ObjectVersion } from "../structs/json_members.ts";
import { inactivityTimeoutOf, timeoutOf } from "./tuning.ts";
import { type ChildController, childController } from "./abort_controllers.ts";
import { type ChunkReader, chunkReaderOf } from "../platform/chunk_readers.ts";
import { SHORTEST_HEALTHY_STREAM, type WatchHealth } from "./watch_recovery.ts";
import type { WatchItem } from "./watch_items.ts";
import { METADATA_ACCEPT } from "./metadata_only.ts";

/**
 * Why one watch request ended, and whether that was a failure (then: why); `paginate`
 * when a streamed listing is not supported by the server.
 */
export interface StreamEnd {
  readonly next: "reconnect" | "relist" | "stop" | "paginate";
  readonly failure?: string;
  /** A streamed listing ended before its initial-events-end bookmark. */
  readonly unfinished?: boolean;
}

/** How a watch request that streams a listing passes it on, and how strictly. */
export interface StreamedListing {
  /** The most objects in one `LISTING` part. */
  readonly pageSize: number;
  /** True if the listing must be streamed: no fallback to pages when the server refuses. */
  readonly strict: boolean;
}

/** What a watch keeps across its requests and re-listings. */
export interface WatchState {
  readonly resource: Resource;
  /** The namespace watched; `undefined` for a cluster-wide watch. */
  readonly namespace: string | undefined;
  /** The collection's path. */
  readonly path: string;
  /** The watch's backoff and failure streak. */
  readonly health: WatchHealth;
  /** When the watch last heard anything (a metric's entry, by the resource's label). */
  readonly heard: { readonly resource: string; heardAt: number };
  readonly metrics: OperatorMetrics | undefined;
  /** Whether `auto` has fallen back to pages, for good: the server does not stream. */
  fellBack: boolean;
}

/** What one request asks for besides the state: selectors, metadata only, the stop signal. */
export interface StreamRequest {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Events with the objects' metadata only (`PartialObjectMetadata`), as they come. */
  readonly metadataOnly?: boolean;
  readonly signal?: AbortSignal;
  /** Live `MODIFIED` events the consumer takes from their text: not parsed, not yielded. */
  readonly knows?: (object: ObjectVersion, text: string) => boolean;
}

/** The annotation of the bookmark that ends a streamed listing's initial events. */
const INITIAL_EVENTS_END = "k8s.io/initial-events-end";

/** A stream that has delivered events for this long proves that a failure streak is over. */
const PROVEN_HEALTHY_STREAM = 10;

const logger = getLogger(["kopf", "client", "watch"]);

class WatchTimeout extends Error {
  override name = "WatchTimeout";
}

/**
 * One watch request from the position (or, with `listing`, a streamed listing): yields its
 * items, and tells how it ended. Failures that reconnecting cannot heal are thrown.
 */
export function streamOnce(
  api: ApiClient,
  state: WatchState,
  request: StreamRequest,
  position: { resourceVersion: string },
  listing?: StreamedListing,
): AsyncGenerator<WatchItem, StreamEnd, undefined> {
  return new WatchStream(api, state, request, position, listing).run();
}

/** One watch request; see {@link streamOnce}. */
class WatchStream {
  readonly #openedAt = realClock.now();
  /** Live events (or initial ones) passed on. */
  #events = 0;
  /** The streamed listing's objects not yet passed on, and how many parts were. */
  #part: RawBody[] = [];
  #parts = 0;
  /** Whether the initial events are over (or were not asked for). */
  #listed: boolean;
  readonly #child: ChildController;
  readonly #timers: StreamTimers;

  constructor(
    readonly api: ApiClient,
    readonly state: WatchState,
    readonly request: StreamRequest,
    readonly position: { resourceVersion: string },
    readonly listing: StreamedListing | undefined,
  ) {
    this.#listed = listing === undefined;
    this.#child = childController(request.signal);
    this.#timers = new StreamTimers(this.#child.controller, api);
  }

  async *run(): AsyncGenerator<WatchItem, StreamEnd, undefined> {
    const { api, state, position, listing } = this;
    const knows = this.request.knows;
    const timers = this.#timers;
    let reader: ChunkReader | undefined;
    try {
      const stream = await api.openStream(state.path, {
        query: this.#query(),
        accept: this.request.metadataOnly ? METADATA_ACCEPT : undefined,
        signal: this.#child.signal,
      });
      reader = chunkReaderOf(stream.body);
      metricsOf(api)?.watchConnects.inc([state.heard.resource]);
      state.heard.heardAt = realClock.now();
      timers.active();
      // Lines are parsed as chunks arrive, without generators between the reads and here.
      const lines = new JsonLines();
      for (let done = false; !done;) {
        const chunk = await reader.read();
        done = chunk === undefined;
        // One reading of the clock for the chunk: its lines were all heard with it.
        const heardAt = realClock.now();
        if (chunk === undefined) lines.end();
        else {
          timers.active(heardAt);
          lines.push(chunk);
        }
        let yielded = false;
        for (let line = lines.nextLine(); line !== NO_LINE; line = lines.nextLine()) {
          state.heard.heardAt = heardAt;
          // Not a last line without its newline: a stream cut short may have cut it too.
          if (this.#listed && knows !== undefined && !done && this.#known(line, knows)) continue;
          const event = parseJsonLine(line) as { type?: string; object?: RawBody };
          const out = !this.#listed && listing !== undefined
            ? this.#initialEvent(event, listing)
            : this.#liveEvent(event);
          if (out === undefined) continue;
          if ("next" in out) {
            yield* this.#unfinishedPart();
            return out;
          }
          // Silence is the server's, not a slow consumer's: none while waiting for it.
          timers.consuming = true;
          yield out;
          timers.consuming = false;
          yielded = true;
        }
        // The consumer is back (no timer fires while it holds the chunk's lines): the silence
        // starts now.
        if (yielded) timers.active();
      }
      logger.debug("The watch of {path} ended; resuming from {resourceVersion}.", {
        path: state.path,
        resourceVersion: position.resourceVersion,
      });
      yield* this.#unfinishedPart();
      return this.#ended("reconnect", "the stream ended");
    } catch (e) {
      yield* this.#unfinishedPart();
      return this.#failed(e, reader !== undefined);
    } finally {
      timers.clear();
      this.#child.unlink();
      this.#child.controller.abort();
      await reader?.cancel().catch(() => {});
    }
  }

  #query(): Record<string, string | number | boolean | undefined> {
    const { listing, request } = this;
    const serverTimeout = timeoutOf(this.api.watching.serverTimeout);
    return {
      watch: true,
      resourceVersion: listing ? undefined : this.position.resourceVersion || undefined,
      sendInitialEvents: listing ? true : undefined,
      resourceVersionMatch: listing ? "NotOlderThan" : undefined,
      allowWatchBookmarks: true,
      timeoutSeconds: serverTimeout === undefined ? undefined : Math.round(serverTimeout),
      labelSelector: request.labelSelector || undefined,
      fieldSelector: request.fieldSelector || undefined,
    };
  }

  /**
   * The initial events that came of a streamed listing that ends before its bookmark, as one
   * more part of it: those objects were there. The listing begins anew, but a consumer that
   * took them in knows them, and tells at the next listing's end which of them went away --
   * a child that came and went while its watch kept breaking off, else never seen at all.
   */
  *#unfinishedPart(): Generator<WatchItem, void, undefined> {
    if (this.#listed || this.#part.length === 0) return;
    const objects = this.#part;
    this.#part = [];
    yield { type: "LISTING", objects, continued: this.#parts++ > 0 };
  }

  /**
   * An initial event of a streamed listing: passed on in parts of up to a page, until the
   * bookmark that ends them. An item to yield, `undefined` for none, or how the stream ends.
   */
  #initialEvent(
    event: { type?: string; object?: RawBody },
    listing: StreamedListing,
  ): WatchItem | StreamEnd | undefined {
    const object = event.object ?? {};
    if (event.type === "ADDED") {
      this.#events++;
      this.#part.push(object);
      if (this.#part.length < listing.pageSize) return undefined;
      const objects = this.#part;
      this.#part = [];
      return { type: "LISTING", objects, continued: this.#parts++ > 0 };
    }
    const meta = object.metadata;
    if (event.type === "BOOKMARK" && meta?.annotations?.[INITIAL_EVENTS_END] === "true") {
      const rv = meta.resourceVersion;
      if (typeof rv === "string" && rv) this.position.resourceVersion = rv;
      this.#listed = true;
      this.state.health.streak.succeeded();
      const objects = this.#part;
      this.#part = [];
      const resourceVersion = this.position.resourceVersion;
      return { type: "LISTED", objects, resourceVersion, continued: this.#parts > 0 };
    }
    if (event.type === "BOOKMARK" || event.type === "MODIFIED" || event.type === "DELETED") {
      return this.#notStreamed(
        `a ${event.type} event came before the bookmark that ends the initial events`,
      );
    }
    return this.#liveEvent(event);
  }

  /** A live event: an item to yield, `undefined` for none, or how the stream ends. */
  #liveEvent(event: { type?: string; object?: RawBody }): WatchItem | StreamEnd | undefined {
    const object = event.object ?? {};
    const rv = object.metadata?.resourceVersion;
    switch (event.type) {
      case "ADDED":
      case "MODIFIED":
      case "DELETED":
        if (typeof rv === "string" && rv) this.position.resourceVersion = rv;
        this.#counted();
        return { type: event.type, object };
      case "BOOKMARK":
        if (typeof rv === "string" && rv) this.position.resourceVersion = rv;
        return undefined;
      case "ERROR":
        return this.#errorEvent(object as RawStatus);
      default:
        logger.warn("Ignoring a watch event of an unknown type {type} from {path}.", {
          type: String(event.type),
          path: this.state.path,
        });
        return undefined;
    }
  }

  /** A live event came: events for a while prove the watch healthy again (as a clean end does). */
  #counted(): void {
    this.#events++;
    if (realClock.now() - this.#openedAt >= PROVEN_HEALTHY_STREAM) {
      this.state.health.streak.succeeded();
    }
  }

  /**
   * Whether the line is a live `MODIFIED` event that the consumer takes from its text (see
   * {@link StreamRequest.knows}), told from its object's identity and version without
   * parsing it: then the watch moves past it, as past any other event.
   */
  #known(line: string, knows: (object: ObjectVersion, text: string) => boolean): boolean {
    const version = modifiedObjectVersion(line);
    if (version === undefined || !knows(version, line)) return false;
    this.position.resourceVersion = version.resourceVersion;
    this.#counted();
    return true;
  }

  /** An `ERROR` event: 410 lists again, 5xx resumes; others are thrown. */
  #errorEvent(status: RawStatus): StreamEnd {
    const path = this.state.path;
    const code = typeof status.code === "number" ? status.code : 500;
    const error = apiErrorFor(code, status, { method: "WATCH", path });
    if (error instanceof APIGoneError) {
      logger.debug("The watch of {path} is gone ({message}); listing again.", {
        path,
        message: status.message ?? "",
      });
      return this.#ended("relist", "the watch's history was gone (410)");
    }
    if (error instanceof APIServerError) {
      return this.#resumed(`the server sent an error: ${error.message}`);
    }
    throw error;
  }

  /** The server sent what a streamed listing does not: pages then, unless streaming is a must. */
  #notStreamed(why: string): StreamEnd {
    return this.listing?.strict
      ? { next: "relist", failure: why }
      : { next: "paginate", failure: why };
  }

  /** A failure after which the stream resumes, or a listing unfinished begins anew. */
  #resumed(failure: string): StreamEnd {
    return this.#listed ? { next: "reconnect", failure } : {
      next: "relist",
      failure: `${failure} before the end of the initial events`,
      unfinished: true,
    };
  }

  /** A clean end: a failure if the stream was too short to have been of any use. */
  #ended(next: "reconnect" | "relist", why: string): StreamEnd {
    if (!this.#listed) return this.#resumed(why);
    if (this.#events === 0 && realClock.now() - this.#openedAt < SHORTEST_HEALTHY_STREAM) {
      return { next, failure: `${why} within ${SHORTEST_HEALTHY_STREAM}s and without events` };
    }
    if (this.#events > 0) this.state.health.streak.succeeded();
    return { next };
  }

  /** How a failed request ends; failures that reconnecting cannot heal are thrown. */
  #failed(e: unknown, reading: boolean): StreamEnd {
    if (this.request.signal?.aborted) return { next: "stop" };
    if (e instanceof APIGoneError) {
      return this.#ended("relist", "the watch's history was gone (410)");
    }
    const controller = this.#child.controller;
    const reason = controller.signal.reason;
    if (controller.signal.aborted && reason instanceof WatchTimeout) {
      logger.debug("Reconnecting the watch of {path} after {why}.", {
        path: this.state.path,
        why: reason.message,
      });
      return this.#listed ? { next: "reconnect" } : this.#resumed(reason.message);
    }
    if (
      this.listing !== undefined && !this.#listed &&
      (e instanceof APIBadRequestError || e instanceof APIUnprocessableError)
    ) {
      // Older servers refuse the streaming list's parameters (422), as do odd proxies (400);
      // where streaming is a must, that is an error for the caller.
      if (this.listing.strict) throw e;
      return this.#notStreamed(`the server refused it: ${e.message}`);
    }
    if (e instanceof APIError) throw e;
    // A stream that breaks mid-way (or sends garbage) resumes like a clean close, after a
    // pause; failures to (re)connect have already been retried by the client: they escalate.
    if (reading || e instanceof JsonLineError) {
      const why = e instanceof Error ? e.message : String(e);
      return this.#resumed(`the stream broke: ${why}`);
    }
    throw e;
  }
}

/**
 * The timeouts of one stream: the client's (the whole stream), and the inactivity one.
 * Network chunks only note the time, and one timer at a time checks, when it fires,
 * whether the silence has lasted long enough, or waits for the rest of it. While the
 * consumer holds an item (`consuming`), the silence is not the server's: the timer does
 * nothing then, and the silence starts again when the consumer is back.
 */
class StreamTimers {
  /** Whether the consumer holds an item. */
  consuming = false;
  readonly #controller: AbortController;
  readonly #clientTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #inactivity: number | undefined;
  readonly #silenceLimit: number | undefined;
  #lastActivity = 0;
  #silenceTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(controller: AbortController, api: ApiClient) {
    this.#controller = controller;
    const clientTimeout = timeoutOf(api.watching.clientTimeout);
    this.#clientTimer = clientTimeout === undefined ? undefined : setTimeout(() => {
      controller.abort(new WatchTimeout(`the client timeout of ${clientTimeout} s`));
    }, clientTimeout * 1000);
    this.#inactivity = inactivityTimeoutOf(api.watching);
    this.#silenceLimit = this.#inactivity === undefined ? undefined : this.#inactivity * 1000;
  }

  /** Something arrived (or the consumer is back): the silence starts now (or `at`). */
  active(at?: number): void {
    if (this.#silenceLimit === undefined) return;
    this.#lastActivity = (at ?? realClock.now()) * 1000;
    this.#silenceTimer ??= setTimeout(this.#check, this.#silenceLimit);
  }

  /** Stop both timers. */
  clear(): void {
    clearTimeout(this.#clientTimer);
    clearTimeout(this.#silenceTimer);
  }

  readonly #check = (): void => {
    this.#silenceTimer = undefined;
    if (this.consuming || this.#silenceLimit === undefined) return;
    const remaining = this.#lastActivity + this.#silenceLimit - realClock.now() * 1000;
    if (remaining > 0) this.#silenceTimer = setTimeout(this.#check, remaining);
    else this.#controller.abort(new WatchTimeout(`no data for ${this.#inactivity} s`));
  };
}
