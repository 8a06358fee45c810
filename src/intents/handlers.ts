/**
 * Handler records: everything the handling cycle and the engines need to know about
 * one registered handler, normalised and frozen at registration.
 *
 * @module
 */
import type { ErrorsMode } from "../structs/errors.ts";
import type { Selector } from "../structs/resource_selectors.ts";
import type { HandlerFilters } from "./filters.ts";
import type { AdmissionOperation } from "../structs/admission_reviews.ts";
import type { Activity, HandlerReason, WebhookType } from "./reasons.ts";

/**
 * A handler function as stored in records: the handling layer calls it with the
 * arguments object it built (see the `build*Kwargs` functions).
 */
export type HandlerFn = (kwargs: object) => unknown;

/** The kinds of handlers. */
export type HandlerKind =
  | "changing"
  | "event"
  | "daemon"
  | "timer"
  | "index"
  | "webhook"
  | "activity";

/** Fields of every handler. */
export interface BaseHandler {
  /** The kind of handler. */
  readonly kind: HandlerKind;
  /** The function to call. */
  readonly fn: HandlerFn;
  /** The handler id: progress, results and logs are keyed by it. */
  readonly id: string;
  /** The `param` option, passed to the function as `param`. */
  readonly param: unknown;
  /** How it was registered, e.g. `kopf.on.create`; for messages. */
  readonly registrar: string;
  /** What its own API calls need, as `RESOURCE:VERBS` (the `rbac` option), if declared. */
  readonly rbac?: readonly string[];
}

/** Error handling of retried handlers. */
export interface RetryPolicy {
  /** What to do with arbitrary errors. */
  readonly errors: ErrorsMode;
  /** Seconds after the first attempt when it fails for good; `null`: never. */
  readonly timeout: number | null;
  /** How many retries before it fails for good; `null`: unlimited. */
  readonly retries: number | null;
  /** Seconds before retrying after an arbitrary error. */
  readonly backoff: number;
}

/** Whether a handler needs whole objects from the watch, or their metadata only. */
export interface WatchedNeeds {
  /** It needs the objects' metadata only (the `metadataOnly` option); whole ones if unset. */
  readonly metadataOnly?: boolean;
}

/** Fields of handlers bound to resources. */
export interface ResourceBoundHandler extends BaseHandler, HandlerFilters, WatchedNeeds {
  /** Which resources it serves. */
  readonly selector: Selector;
}

/** A resource-changing handler: `on.create/update/delete/resume/field`, or a sub-handler. */
export interface ChangingHandler extends BaseHandler, HandlerFilters, RetryPolicy, WatchedNeeds {
  /** The kind of handler. */
  readonly kind: "changing";
  /** Which resources it serves; `null` for sub-handlers (they serve their parent's). */
  readonly selector: Selector | null;
  /** The reason it runs for; `null` for any (resume, field and sub-handlers). */
  readonly reason: HandlerReason | null;
  /** Runs only in the first handling of an object by this operator (resume). */
  readonly initial: boolean;
  /** An initial handler that also runs for objects already marked for deletion. */
  readonly deleted: boolean;
  /** Its presence requires the operator's finalizer on matching objects. */
  readonly requiresFinalizer: boolean;
}

/** An event-watching handler: `on.event`. Never retried; errors are logged. */
export interface EventHandler extends ResourceBoundHandler {
  /** The kind of handler. */
  readonly kind: "event";
}

/** A daemon: `daemon` / `on.daemon`. */
export interface DaemonHandler extends ResourceBoundHandler, RetryPolicy {
  /** The kind of handler. */
  readonly kind: "daemon";
  /** Seconds to wait before the first start; `null`: none. */
  readonly initialDelay: number | null;
  /** Seconds between setting the stop-flag and cancelling; `null`: no wait. */
  readonly cancellationBackoff: number | null;
  /** Seconds to wait for a cancelled daemon before abandoning it; `null`: forever. */
  readonly cancellationTimeout: number | null;
  /** Seconds between checks whether a stopping daemon has exited; `null`: the setting. */
  readonly cancellationPolling: number | null;
  /** Always true: running daemons keep the finalizer on their objects. */
  readonly requiresFinalizer: boolean;
}

/** A timer: `timer` / `on.timer`. */
export interface TimerHandler extends ResourceBoundHandler, RetryPolicy {
  /** The kind of handler. */
  readonly kind: "timer";
  /** Seconds between invocations; `null`: only after idling. */
  readonly interval: number | null;
  /** Seconds the object must be unchanged before invocations; `null`: no idling. */
  readonly idle: number | null;
  /** Keep the interval aligned to the schedule rather than after each run. */
  readonly sharp: boolean;
  /** Seconds to wait before the first invocation; `null`: none. */
  readonly initialDelay: number | null;
  /** Always true: running timers keep the finalizer on their objects. */
  readonly requiresFinalizer: boolean;
}

/** An indexing function: `index` / `on.index`. Its id is the index's name. */
export interface IndexingHandler extends ResourceBoundHandler, RetryPolicy {
  /** The kind of handler. */
  readonly kind: "index";
}

/** An admission handler: `on.validate` / `on.mutate`. Never retried. */
export interface WebhookHandler extends ResourceBoundHandler {
  /** The kind of handler. */
  readonly kind: "webhook";
  /** Validating or mutating. */
  readonly type: WebhookType;
  /** The operations it admits; `null`: all. */
  readonly operations: readonly AdmissionOperation[] | null;
  /** The subresource it admits: `null` the main body only, `"*"` everything. */
  readonly subresource: string | null;
  /** Keep the webhook configured when the operator exits. */
  readonly persistent: boolean;
  /** The handler has side effects outside the object (skipped on dry runs). */
  readonly sideEffects: boolean;
  /** Admit the request when the webhook fails or is unreachable. */
  readonly ignoreFailures: boolean;
}

/** An activity handler: `on.startup/cleanup/login/probe`. */
export interface ActivityHandler extends BaseHandler, RetryPolicy {
  /** The kind of handler. */
  readonly kind: "activity";
  /** The activity it serves. */
  readonly activity: Activity;
}

/** Any handler record. */
export type Handler =
  | ChangingHandler
  | EventHandler
  | DaemonHandler
  | TimerHandler
  | IndexingHandler
  | WebhookHandler
  | ActivityHandler;

/** Any handler record bound to resources (sub-handlers excluded). */
export type ResourceHandler =
  | (ChangingHandler & { readonly selector: Selector })
  | EventHandler
  | DaemonHandler
  | TimerHandler
  | IndexingHandler
  | WebhookHandler;
