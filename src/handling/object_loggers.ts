/**
 * Per-object loggers and the scope of the object being handled.
 *
 * A per-object logger prints through logtape under `kopf.objects` with the object's reference
 * (so lines start with `[namespace/name]` and JSON lines carry the reference), and queues the
 * records at the posting level and above as Kubernetes Events about that object.
 *
 * The object scope is an async context: inside it, `kopf.adopt()`, `kopf.label()` and friends
 * default their owner to the object, and every log record knows the object.
 *
 * @module
 */
import { getConfig, getLogger, type Logger, type LogLevel } from "../platform/log_routing.ts";
import { AsyncContext, type Binding } from "../platform/async_context.ts";
import { isLogged, logContext, OBJECTS_CATEGORY } from "../platform/logging.ts";
import {
  describeError,
  ERROR_PROPERTY,
  LOCAL_ONLY_PROPERTY,
  OBJECT_REF_PROPERTY,
} from "../structs/log_formats.ts";
import { UsageError } from "../structs/errors.ts";
import type { ObjectLogger } from "../structs/loggers.ts";
import {
  buildObjectReference,
  type ObjectLike,
  type ObjectReference,
} from "../structs/object_refs.ts";
import {
  currentPostingTarget,
  enqueueEvent,
  isPosted,
  type PostingTarget,
} from "./posting_queue.ts";

/** Options of {@link createObjectLogger}. */
export interface ObjectLoggerOptions {
  /**
   * Where events go. By default, the posting target of the current async flow at the time of
   * each call (the operator's own).
   */
  readonly posting?: PostingTarget;
  /** Print only, never post events (for chatty framework messages, e.g. of event handlers). */
  readonly local?: boolean;
}

const EVENT_TYPES: Record<LogLevel, string> = {
  trace: "Debug",
  debug: "Debug",
  info: "Normal",
  warning: "Warning",
  error: "Error",
  fatal: "Fatal",
};

const objectsLogger = getLogger([...OBJECTS_CATEGORY]);

/** Whether object records are printed, by level, under the logtape configuration asked. */
let objectsPrinted: { config: unknown; levels: Map<LogLevel, boolean> } | undefined;

/**
 * Whether the logger's records of the level are printed: {@link isLogged}, with the answers
 * for object loggers kept at hand (asked at every record and check of every object's logger).
 */
function isPrinted(logger: Logger, level: LogLevel): boolean {
  if (logger !== objectsLogger) return isLogged(logger.category, level);
  const config = getConfig();
  if (objectsPrinted?.config !== config) objectsPrinted = { config, levels: new Map() };
  let answer = objectsPrinted.levels.get(level);
  if (answer === undefined) {
    answer = isLogged(logger.category, level);
    objectsPrinted.levels.set(level, answer);
  }
  return answer;
}

/** The default category of activity loggers. */
export const ACTIVITIES_CATEGORY: readonly string[] = Object.freeze(["kopf", "activities"]);

/**
 * The per-object logger (see {@link createObjectLogger}); without a reference, the operator's
 * own logger for activities (see {@link createActivityLogger}), which never posts.
 */
class KopfObjectLogger implements ObjectLogger {
  readonly #ref: ObjectReference | undefined;
  readonly #posting: PostingTarget | undefined;
  readonly #local: boolean;
  readonly #logger: Logger;

  constructor(ref: ObjectReference | undefined, options: ObjectLoggerOptions, logger: Logger) {
    this.#ref = ref === undefined ? undefined : Object.freeze(ref);
    this.#posting = options.posting;
    this.#local = ref === undefined || (options.local ?? false);
    this.#logger = logger;
  }

  /** Whether a record of the level would be printed or posted (else it need not be made). */
  isUsed(level: LogLevel): boolean {
    return isPrinted(this.#logger, level) || this.#target(level) !== undefined;
  }

  /**
   * Where a record of the level is posted: nowhere for local loggers, outside any operator,
   * or below the posting level (then no event request is built just to be dropped).
   */
  #target(level: LogLevel): PostingTarget | undefined {
    if (this.#local || this.#ref === undefined) return undefined;
    const target = this.#posting ?? currentPostingTarget();
    return target !== undefined && isPosted(target, level) ? target : undefined;
  }

  debug(message: string, properties?: Record<string, unknown>): void {
    this.#log("debug", message, properties);
  }

  info(message: string, properties?: Record<string, unknown>): void {
    this.#log("info", message, properties);
  }

  warning(message: string, properties?: Record<string, unknown>): void {
    this.#log("warning", message, properties);
  }

  error(message: string, properties?: Record<string, unknown>): void {
    this.#log("error", message, properties);
  }

  exception(message: string, error?: unknown, properties?: Record<string, unknown>): void {
    this.#log("error", message, properties, error, error !== undefined);
  }

  #log(
    level: LogLevel,
    message: string,
    extra?: Record<string, unknown>,
    error?: unknown,
    withError = false,
  ): void {
    const text = String(message);
    if (isPrinted(this.#logger, level)) {
      const properties: Record<string, unknown> = { ...extra };
      if (this.#ref !== undefined) properties[OBJECT_REF_PROPERTY] = this.#ref;
      if (withError) properties[ERROR_PROPERTY] = error;
      if (this.#local) properties[LOCAL_ONLY_PROPERTY] = true;
      this.#logger.emit({
        level,
        message: [text],
        rawMessage: text,
        timestamp: Date.now(),
        properties,
      });
    }
    const target = this.#target(level);
    if (target === undefined) return;
    enqueueEvent(target, {
      ref: this.#ref!,
      type: EVENT_TYPES[level],
      reason: "Logging",
      message: withError ? `${text}\n${describeError(error)}` : text,
    }, level);
  }
}

/**
 * A logger for one object. Its identity (apiVersion, kind, name, uid, namespace) is copied at
 * creation, so later changes of the body do not change what old records say.
 */
export function createObjectLogger(
  body: ObjectLike,
  options: ObjectLoggerOptions = {},
): ObjectLogger {
  return new KopfObjectLogger(buildObjectReference(body), options, objectsLogger);
}

/**
 * Kopf's `LocalObjectLogger`: a logger about one object that only prints -- under
 * `kopf.objects`, with the object's `[namespace/name]` prefix and, in JSON lines, its
 * reference -- and never posts Kubernetes Events, whatever the posting level. Handlers'
 * own `logger` posts at `settings.posting.level`; use this one for chatty or sensitive
 * messages about the object, e.g. from a daemon's loop.
 *
 * @example Log every tick of a timer without flooding the object's events
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.timer("kopfexamples", { interval: 10 }, ({ body }) => {
 *   const logger = new kopf.LocalObjectLogger({ body });
 *   logger.info("Still here."); // printed, never an Event
 * });
 * ```
 */
export class LocalObjectLogger implements ObjectLogger {
  readonly #logger: KopfObjectLogger;

  /** A logger about the object of `options.body` (its identity is copied now). */
  constructor(options: {
    /** The object the records are about: any body, view or client model. */
    readonly body: ObjectLike;
  }) {
    if (typeof options !== "object" || options === null || typeof options.body !== "object") {
      throw new UsageError("new kopf.LocalObjectLogger() takes { body }: the object to log about.");
    }
    this.#logger = new KopfObjectLogger(
      buildObjectReference(options.body),
      { local: true },
      objectsLogger,
    );
  }

  /** Details useful when debugging. */
  debug(message: string, properties?: Record<string, unknown>): void {
    this.#logger.debug(message, properties);
  }

  /** Normal progress. */
  info(message: string, properties?: Record<string, unknown>): void {
    this.#logger.info(message, properties);
  }

  /** Something unexpected that does not stop the work. */
  warning(message: string, properties?: Record<string, unknown>): void {
    this.#logger.warning(message, properties);
  }

  /** A failure. */
  error(message: string, properties?: Record<string, unknown>): void {
    this.#logger.error(message, properties);
  }

  /** A failure with its error (and stack trace). */
  exception(message: string, error?: unknown, properties?: Record<string, unknown>): void {
    this.#logger.exception(message, error, properties);
  }
}

/**
 * Whether a record of the level made with the logger would be printed or posted: when not,
 * costly messages (e.g. a whole diff as JSON) need not be built. Loggers of other making
 * are assumed to use all records.
 */
export function isLoggedAt(logger: ObjectLogger, level: LogLevel): boolean {
  return !(logger instanceof KopfObjectLogger) || logger.isUsed(level);
}

/**
 * The operator's own logger with the same methods, for activity handlers (startup, cleanup,
 * login, probe): printed under `category`, never posted, since there is no object to post about.
 */
export function createActivityLogger(
  category: readonly string[] = ACTIVITIES_CATEGORY,
): ObjectLogger {
  return new KopfObjectLogger(undefined, {}, getLogger([...category]));
}

/** What is known about the object being handled in the current async flow. */
export interface ObjectScope {
  /** The object's body (usually a read-only view of the latest state). */
  readonly body: ObjectLike;
  /** The object's logger. */
  readonly logger: ObjectLogger;
  /** The body's reference, if already built: else it is built from the body at every run. */
  readonly ref?: ObjectReference;
}

/**
 * The scope of one object state, for all the handlers run for it: its logger (see
 * {@link createObjectLogger}) and the scope share one reference, built once (or given).
 */
export function createObjectScope(
  body: ObjectLike,
  options: ObjectLoggerOptions = {},
  ref: ObjectReference = buildObjectReference(body),
): ObjectScope & { readonly ref: ObjectReference } {
  return { body, ref, logger: new KopfObjectLogger(ref, options, objectsLogger) };
}

const objectScope = new AsyncContext<ObjectScope>();

/**
 * Run `fn` as the handling of one object: helpers called from it default to this object, and
 * every log record made inside it (by any logger) carries the object's reference. `also`
 * sets more contexts for `fn` (in the same switch of contexts: this runs per handler call).
 */
export function runInObjectScope<R>(
  scope: ObjectScope,
  fn: () => R,
  also?: readonly Binding[],
): R {
  const ref = scope.ref ?? buildObjectReference(scope.body);
  // Set after the copy, not as a key of its literal: a key after a spread is defined by a
  // call into V8's runtime, which this, once per handler call, should not cost.
  const logProperties: Record<string, unknown> = { ...logContext.get() };
  logProperties[OBJECT_REF_PROPERTY] = ref;
  return AsyncContext.runAll(
    also === undefined
      ? [[objectScope, scope], [logContext, logProperties]]
      : [...also, [objectScope, scope], [logContext, logProperties]],
    fn,
  );
}

/** The object being handled in the current async flow, if any. */
export function currentObjectScope(): ObjectScope | undefined {
  return objectScope.get();
}
