/**
 * Kubernetes Events about objects: `kopf.event()`, `kopf.info()`, `kopf.warn()` and
 * `kopf.exception()` queue them; the poster engine drains the queue in the background and
 * creates core v1 Events through the client. Posting failures are logged, never fatal.
 *
 * @module
 */
import { runWithRequestPriority } from "../client/request_priorities.ts";
import { getLogger } from "../platform/log_routing.ts";
import type { ApiClient } from "../client/api.ts";
import { createEvent } from "../client/events.ts";
import type { JsonObject } from "../structs/bodies.ts";
import { type Clock, realClock } from "../structs/clock.ts";
import { UsageError } from "../structs/errors.ts";
import { buildEventBody, type K8sEventRequest } from "../structs/k8s_events.ts";
import { describeValue } from "../structs/log_formats.ts";
import {
  buildObjectReference,
  eachObject,
  isEventReference,
  type ObjectLike,
} from "../structs/object_refs.ts";
import {
  currentPostingTarget,
  enqueueEvent,
  EventQueue,
  type PostingSettingsHolder,
  type PostingTarget,
  registerFallbackPostingTarget,
} from "../handling/posting_queue.ts";

const logger = getLogger(["kopf", "engines", "posting"]);

/** The namespace of events about cluster-scoped objects. */
export const CLUSTER_EVENTS_NAMESPACE = "default";

/** The part of the Kubernetes client that the poster needs. */
export interface EventCreator {
  /** Create a core v1 Event (`POST /api/v1/namespaces/{namespace}/events`); reject on failure. */
  createEvent(namespace: string, body: JsonObject, signal?: AbortSignal): Promise<unknown>;
}

/**
 * How many events are posted at once by default. Posting one at a time caps the rate at one
 * event per round trip (~ 100/s at 10 ms), far below what a busy operator logs; many at once
 * would crowd the operator's own patches, which share its connection and its API Priority and
 * Fairness flow (an API server admits 200 mutating requests in flight by default, for all
 * clients). Ten hides the round trip (~ 1,000 events/s at 10 ms) and takes a small share.
 */
export const DEFAULT_POSTING_CONCURRENCY = 10;

/** Seconds between two warnings about events dropped from a full queue. */
export const DROPS_REPORT_INTERVAL = 10;

const ABORT_GRACE_MS = 100;

/** Options of {@link runEventPoster}. */
export interface EventPosterOptions {
  /** The operator's queue. */
  readonly queue: EventQueue;
  /** The operator's settings (`posting` is read at each event, so changes apply at once). */
  readonly settings: PostingSettingsHolder;
  /** Where events are created. */
  readonly creator: EventCreator;
  /** Stops the poster; what is queued by then is still posted within {@link flushTimeout}. */
  readonly signal: AbortSignal;
  /** Seconds to keep posting the remaining events after the stop; 2 by default. */
  readonly flushTimeout?: number;
  /** How many events are posted at once; {@link DEFAULT_POSTING_CONCURRENCY} by default. */
  readonly concurrency?: number;
  /** The clock of the events' times and of the drop reports; the real one by default. */
  readonly clock?: Clock;
}

type Outcome = "posted" | "failed" | "aborted" | "skipped";

/**
 * Post one queued event; failures are logged and swallowed. (A generated name taken already
 * is the API client's to resolve, as for every create: it picks another.) An abort by
 * `signal` is not logged.
 */
async function post(
  request: K8sEventRequest,
  settings: PostingSettingsHolder,
  creator: EventCreator,
  now: Date,
  signal?: AbortSignal,
): Promise<Outcome> {
  if (isEventReference(request.ref)) return "skipped"; // also for requests queued by hand
  if (signal?.aborted) return "aborted";
  const posting = settings.posting;
  const namespace = request.ref.namespace || CLUSTER_EVENTS_NAMESPACE;
  const body = buildEventBody(request, {
    namespace,
    now,
    reportingComponent: posting.reportingComponent,
    reportingInstance: posting.reportingInstance,
    generateName: posting.eventNamePrefix,
  });
  try {
    await creator.createEvent(namespace, body, signal);
    return "posted";
  } catch (error) {
    if (signal?.aborted) return "aborted";
    logger.warning(
      "Failed to post an event; continuing without it. Error: {error}. " +
        "Event: type={type}, reason={reason}, message={message}.",
      {
        error: describeValue(error),
        type: request.type,
        reason: request.reason,
        message: JSON.stringify(body.message),
      },
    );
    return "failed";
  }
}

/** The object an event is about, as a key: its uid, else its full reference. */
function objectKey(request: K8sEventRequest): string {
  const { uid, apiVersion, kind, namespace, name } = request.ref;
  return uid || `${apiVersion}/${kind}/${namespace ?? ""}/${name}`;
}

/**
 * Drain the queue into the cluster until `signal` aborts, then post what is left within the
 * flush timeout and report (as one warning) how many events could not be posted.
 *
 * Up to `concurrency` events are posted at once; events about the same object are created one
 * after another in the order they were queued (across objects, order does not matter). Events
 * dropped from a full queue are reported as one warning per {@link DROPS_REPORT_INTERVAL}.
 */
export async function runEventPoster(options: EventPosterOptions): Promise<void> {
  const { queue, settings, creator, signal } = options;
  const clock = options.clock ?? realClock;
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? DEFAULT_POSTING_CONCURRENCY));
  const flush = new AbortController(); // ends the posts still running when the flush time is out
  const running = new Set<Promise<void>>();
  const tails = new Map<string, Promise<void>>(); // the latest post about each object
  let aborted = 0;
  let lastDropsReport = -Infinity;

  const reportDrops = (force: boolean) => {
    if (queue.dropped === 0) return;
    const at = clock.now() * 1000;
    if (!force && at - lastDropsReport < DROPS_REPORT_INTERVAL * 1000) return;
    lastDropsReport = at;
    logger.warning(
      "{count} events were dropped without posting: more than {capacity} were waiting, " +
        "so the oldest went first.",
      { count: queue.takeDropped(), capacity: queue.capacity },
    );
  };
  const dispatch = (request: K8sEventRequest) => {
    const key = objectKey(request);
    const before = tails.get(key);
    const start = () => post(request, settings, creator, new Date(clock.wall()), flush.signal);
    const posting = (before ? before.then(start) : start()).then((outcome) => {
      if (outcome === "aborted") aborted++;
    });
    tails.set(key, posting);
    const tracked: Promise<void> = posting.finally(() => {
      running.delete(tracked);
      if (tails.get(key) === posting) tails.delete(key);
    });
    running.add(tracked);
  };

  while (!signal.aborted) {
    while (running.size >= concurrency) await Promise.race(running);
    const request = await queue.next(signal);
    if (request === undefined) break;
    reportDrops(false);
    dispatch(request);
  }

  const timer = setTimeout(() => flush.abort(), (options.flushTimeout ?? 2) * 1000);
  const flushed = new Promise<void>((resolve) => {
    if (flush.signal.aborted) resolve();
    flush.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  try {
    while (queue.size > 0 && !flush.signal.aborted) {
      if (running.size >= concurrency) await Promise.race([...running, flushed]);
      else dispatch(queue.shift()!);
    }
    await Promise.race([Promise.all(running), flushed]);
  } finally {
    clearTimeout(timer);
    flush.abort();
  }
  if (running.size > 0) {
    // Aborted posts settle at once; a creator that ignores the signal is not waited for
    // longer than a moment, and what it still holds counts as not posted.
    let grace: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.all(running),
      new Promise((resolve) => grace = setTimeout(resolve, ABORT_GRACE_MS)),
    ]);
    clearTimeout(grace);
  }
  reportDrops(true);
  const unposted = queue.size + aborted + running.size;
  if (unposted > 0) {
    logger.warning("{count} events were not posted: the operator stopped before they were.", {
      count: unposted,
    });
  }
}

/** An {@link EventCreator} that creates events through the framework's API client. */
export function apiEventCreator(api: ApiClient): EventCreator {
  return {
    createEvent: (namespace, body, signal) => createEvent(api, namespace, body, signal),
  };
}

/** Options of {@link startEventPoster}. */
export interface StartEventPosterOptions extends Omit<EventPosterOptions, "queue" | "creator"> {
  /** Where events are created: an API client, or any {@link EventCreator}. */
  readonly creator: EventCreator | ApiClient;
}

/** A running poster: the target to post to, and the end of its work. */
export interface EventPosting {
  /** Pass to `runWithPostingTarget()` around the operator's work. */
  readonly target: PostingTarget;
  /** Settles when the poster has stopped and flushed (it never rejects). */
  readonly done: Promise<void>;
}

/**
 * Start posting an operator's events: a fresh queue, the poster draining it until `signal`
 * aborts, and -- while it runs -- the fallback target for code outside the operator's flow.
 */
export function startEventPoster(options: StartEventPosterOptions): EventPosting {
  const creator = "createEvent" in options.creator
    ? options.creator
    : apiEventCreator(options.creator);
  const target: PostingTarget = { settings: options.settings, queue: new EventQueue() };
  const unregister = registerFallbackPostingTarget(target);
  // Events tell of what happened; the changes happening now go before them.
  const done = runWithRequestPriority(
    "deferred",
    () => runEventPoster({ ...options, queue: target.queue, creator }),
  )
    .catch((error) => logger.error("The event poster failed: {error}", { error }))
    .finally(unregister);
  return { target, done };
}

/**
 * What an event says: {@link event} takes all but `error`, {@link info} and {@link warn} the
 * reason and the message, {@link exception} the reason, the message and the error (all
 * optional).
 */
export interface EventOptions {
  /** The event type: `Normal`, `Warning`, or anything else. */
  readonly type: string;
  /**
   * A short reason in CamelCase without spaces, e.g. `SomeReason`; for {@link exception}, the
   * error's name (e.g. `TypeError`) by default.
   */
  readonly reason: string;
  /**
   * Free text; keep it on one line (kubectl shows it in a table). For {@link exception}, the
   * text before the error's message.
   */
  readonly message?: string;
  /** The error that {@link exception} reports. */
  readonly error?: unknown;
}

function requireTarget(caller: string): PostingTarget {
  const target = currentPostingTarget();
  if (target === undefined) {
    throw new UsageError(
      `${caller} needs a running operator to post through: call it from a handler ` +
        `(or anything started by kopf.operator()/kopf.run()).`,
    );
  }
  return target;
}

function queueFor(
  caller: string,
  objs: object | Iterable<object>,
  type: string,
  reason: string,
  message: string,
  severity?: "info" | "warning" | "error",
): void {
  const target = requireTarget(caller);
  for (const obj of eachObject<ObjectLike>(objs, caller)) {
    enqueueEvent(target, { ref: buildObjectReference(obj), type, reason, message }, severity);
  }
}

/**
 * Post an event of any type about one or several objects (any Kubernetes objects, not only the
 * one being handled). Skipped when posting is disabled, and for Event objects themselves.
 *
 * @example Tell a pod's users why the operator touched it
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.event("pods", { labels: { "example.com/managed": "yes" } }, ({ body, type }) => {
 *   if (type === "ADDED") {
 *     kopf.event(body, { type: "Normal", reason: "Noticed", message: "managed by example" });
 *   }
 * });
 * ```
 */
export function event(objs: object | Iterable<object>, options: Omit<EventOptions, "error">): void {
  queueFor("kopf.event()", objs, options.type, options.reason, options.message ?? "");
}

/**
 * Post a `Normal` event, unless the posting level is above info.
 *
 * @example Record a milestone on the object, visible with kubectl describe
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.create("kopfexamples", ({ body, spec }) => {
 *   kopf.info(body, { reason: "Provisioned", message: `a ${spec.size} volume is ready` });
 * });
 * ```
 */
export function info(
  objs: object | Iterable<object>,
  options: Pick<EventOptions, "reason" | "message">,
): void {
  queueFor("kopf.info()", objs, "Normal", options.reason, options.message ?? "", "info");
}

/**
 * Post a `Warning` event, unless the posting level is above warning.
 *
 * @example Warn about a setting that works but is discouraged
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.update("kopfexamples", ({ body, spec }) => {
 *   if (spec.replicas === 1) {
 *     kopf.warn(body, { reason: "SingleReplica", message: "one replica has no redundancy" });
 *   }
 * });
 * ```
 */
export function warn(
  objs: object | Iterable<object>,
  options: Pick<EventOptions, "reason" | "message">,
): void {
  queueFor("kopf.warn()", objs, "Warning", options.reason, options.message ?? "", "warning");
}

/**
 * Post an `Error` event about an error: the reason defaults to the error's name, the message is
 * the given text followed by the error's message.
 *
 * @example Report a failed external call on the object, then retry
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.create("kopfexamples", async ({ body, name }) => {
 *   try {
 *     await fetch(`https://example.com/register/${name}`, { method: "POST" });
 *   } catch (error) {
 *     kopf.exception(body, { message: "Registration failed:", error });
 *     throw new kopf.TemporaryError("registration failed", { delay: 30 });
 *   }
 * });
 * ```
 */
export function exception(
  objs: object | Iterable<object>,
  options: Partial<Pick<EventOptions, "reason" | "message" | "error">> = {},
): void {
  const { error } = options;
  const hasError = error !== undefined && error !== null;
  const errorText = hasError ? (error instanceof Error ? error.message : describeValue(error)) : "";
  const errorName = error instanceof Error ? error.name : hasError ? typeof error : "Error";
  const reason = options.reason || errorName;
  const text = options.message ?? "";
  const message = text && hasError ? `${text} ${errorText}` : hasError ? errorText : text;
  queueFor("kopf.exception()", objs, "Error", reason, message, "error");
}
