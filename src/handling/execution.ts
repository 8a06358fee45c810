/**
 * Running one retried handler once: the checks of its `timeout` and `retries`, the call,
 * and the translation of what it returned or threw into an {@link Outcome} -- Kopf's
 * error semantics, shared by resource-changing handlers, sub-handlers and activities.
 *
 * | what the handler did | outcome |
 * |---|---|
 * | returned | success (final), the value becomes its result |
 * | threw `TemporaryError` | retry after the error's `delay` |
 * | threw `PermanentError` (incl. timeouts and exceeded retries) | failure (final) |
 * | threw anything else, `errors: "temporary"` | retry after the handler's `backoff` |
 * | threw anything else, `errors: "permanent"` | failure (final) |
 * | threw anything else, `errors: "ignored"` | done (final), no result |
 *
 * @module
 */

import {
  HandlerRetriesError,
  HandlerTimeoutError,
  PermanentError,
  TemporaryError,
} from "../structs/errors.ts";
import type { ObjectLogger } from "../structs/loggers.ts";
import type { RawBody } from "../structs/bodies.ts";
import { type Attributes, inSpan, isTracing } from "../platform/tracing.ts";
import type { HandlerRunOutcome, OperatorMetrics } from "../structs/operator_metrics.ts";
import { resourceLabel } from "../structs/metric_labels.ts";
import type { RetryPolicy } from "../intents/handlers.ts";
import type { HandlerState, Outcome } from "./handler_progress.ts";
import { isThenable } from "../structs/thenables.ts";
import { formatSeconds } from "../structs/failure_streaks.ts";
import { isLoggedAt } from "./object_loggers.ts";
import { forbiddenHint } from "./forbidden_calls.ts";

/** Raised by `kopf.execute()` when sub-handlers are not all done: the parent retries too. */
export class HandlerChildrenRetry extends TemporaryError {
  override name = "HandlerChildrenRetry";

  /** Retry the parent after `delay` seconds (`null`: at once). */
  constructor(delay: number | null) {
    super("", { delay });
  }
}

/** A handler as the executor needs it: an id and a retry policy. */
export interface RetriedHandler extends RetryPolicy {
  /** The handler id (used in log messages). */
  readonly id: string;
  /** How it was registered, e.g. `kopf.on.create` (for the hint of a refused API call). */
  readonly registrar?: string;
  /** Its `rbac` option, if declared. */
  readonly rbac?: readonly string[];
}

/** How a handler is named in log messages: `Handler 'create_fn'`. */
export function handlerTitle(handler: { readonly id: string }): string {
  return `Handler '${handler.id}'`;
}

/** A readable duration for messages: `12.3s`. */
function seconds(value: number): string {
  return `${Math.round(value * 1000) / 1000}s`;
}

/** When a handler runs again, for log lines: `in 1m 30s`, or `now` without a delay. */
function retryWhen(delay: number | null): string {
  return delay === null || delay <= 0 ? "now" : `in ${formatSeconds(delay)}`;
}

/** `text.` -- a sentence ended once, whatever the text ends with. */
function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** The message of a thrown value, for log lines. */
function errorText(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return typeof error === "string" ? error : String(error);
}

/**
 * Run a handler once with its state (retries so far, when it started): fail it for good
 * when its `timeout` has passed or its `retries` are used up, else call `invoke` and turn
 * the result or error into an outcome. Never throws for the handler's own errors.
 *
 * `subrefs` collects the ids of sub-handlers that ran inside (see `kopf.execute()`).
 */
/** Told how each run of a handler ended, and how long it took (seconds). */
export type HandlerRunObserver = (outcome: HandlerRunOutcome, seconds: number) => void;

/** What {@link executeHandlerOnce} may be given besides the handler and its state. */
export interface HandlerRunExtras {
  /**
   * The ids of the sub-handlers it ran, at all depths, to be purged with it (read when the
   * run ends, so that it can be made by the run).
   */
  readonly subrefs?: ReadonlySet<string>;
  /** Told how the run ended (for metrics). */
  readonly onRun?: HandlerRunObserver;
  /** The attributes of the run's span (the object's reference); traced only with these. */
  readonly traced?: Attributes;
}

const NO_REFS: readonly string[] = Object.freeze([]);
const UNOBSERVED: Pick<HandlerRunExtras, "onRun" | "traced"> = Object.freeze({
  onRun: undefined,
  traced: undefined,
});

/** The ids of the sub-handlers run, as an outcome keeps them (no new list for none). */
function refsOf(subrefs: ReadonlySet<string> | undefined): readonly string[] {
  return subrefs === undefined || subrefs.size === 0 ? NO_REFS : [...subrefs];
}

/** Tell the observer, if any, how the run ended and how long it took. */
function report(
  onRun: HandlerRunObserver | undefined,
  outcome: HandlerRunOutcome,
  started: number,
): void {
  onRun?.(outcome, (performance.now() - started) / 1000);
}

/** How a run that threw ended, as spans tell it. */
function outcomeOf(error: unknown): string {
  if (error instanceof HandlerChildrenRetry) return "sub-handlers_pending";
  if (error instanceof TemporaryError) return "temporary_error";
  if (error instanceof PermanentError) return "permanent_error";
  return "exception";
}

/**
 * What watches the runs of one handler of a resource about one object: the metrics that
 * count them (if kept) and the attributes of their spans (if traced).
 */
export function observeRuns(
  metrics: OperatorMetrics | undefined,
  resource: { readonly plural: string; readonly group: string },
  id: string,
  body: RawBody,
): Pick<HandlerRunExtras, "onRun" | "traced"> {
  // Most operators neither keep metrics nor trace: then nothing is built per run.
  const tracing = isTracing();
  if (metrics === undefined && !tracing) return UNOBSERVED;
  const resourceName = resourceLabel(resource);
  const labels = [resourceName, id];
  const meta = body.metadata;
  return {
    onRun: metrics === undefined ? undefined : (outcome, seconds) => {
      metrics.handlerRuns.inc([...labels, outcome]);
      metrics.handlerDuration.observe(labels, seconds);
    },
    traced: !tracing ? undefined : {
      "kopf.handler.id": id,
      "kopf.resource": resourceName,
      "k8s.namespace.name": meta?.namespace ?? "",
      "kopf.object.name": meta?.name ?? "",
      "kopf.object.uid": meta?.uid ?? "",
    },
  };
}

export async function executeHandlerOnce(
  handler: RetriedHandler,
  state: HandlerState,
  logger: ObjectLogger,
  invoke: () => unknown,
  extras: HandlerRunExtras = {},
): Promise<Outcome> {
  const onRun = extras.onRun;
  const started = onRun === undefined ? 0 : performance.now();
  let result: unknown;
  try {
    // The message is made only if the record is printed or posted: this runs per handler call.
    if (isLoggedAt(logger, "debug")) logger.debug(`${handlerTitle(handler)} is invoked.`);
    if (handler.timeout !== null && state.runtime >= handler.timeout) {
      throw new HandlerTimeoutError(
        `${handlerTitle(handler)} has timed out after ${seconds(state.runtime)}.`,
      );
    }
    if (handler.retries !== null && state.retries >= handler.retries) {
      throw new HandlerRetriesError(
        `${handlerTitle(handler)} has exceeded ${state.retries} retries.`,
      );
    }
    if (extras.traced === undefined) {
      // What is there at once is taken so: a handler that returns a value takes no turn.
      const value = invoke();
      result = isThenable(value) ? await value : value;
    } else {
      result = await inSpan(
        `kopf handler ${handler.id}`,
        extras.traced,
        async (annotate) => {
          try {
            const value = await invoke();
            annotate({ "kopf.handler.outcome": "success" });
            return value;
          } catch (error) {
            annotate({ "kopf.handler.outcome": outcomeOf(error) });
            throw error;
          }
        },
      );
    }
  } catch (error) {
    const title = handlerTitle(handler);
    if (error instanceof HandlerChildrenRetry) {
      if (isLoggedAt(logger, "debug")) {
        logger.debug(`${title} has unfinished sub-handlers. Will retry ${retryWhen(error.delay)}.`);
      }
      return { final: false, error, delay: error.delay, subrefs: refsOf(extras.subrefs) };
    }
    if (error instanceof TemporaryError) {
      report(onRun, "temporary_error", started);
      logger.error(
        `${title} failed temporarily: ${sentence(errorText(error))} ` +
          `Will retry ${retryWhen(error.delay)}.`,
      );
      return { final: false, error, delay: error.delay, subrefs: refsOf(extras.subrefs) };
    }
    if (error instanceof HandlerTimeoutError || error instanceof HandlerRetriesError) {
      report(
        onRun,
        error instanceof HandlerTimeoutError ? "timeout" : "retries_exhausted",
        started,
      );
      logger.error(error.message);
      return { final: true, error, subrefs: refsOf(extras.subrefs) };
    }
    if (error instanceof PermanentError) {
      report(onRun, "permanent_error", started);
      logger.error(`${title} failed permanently: ${errorText(error)}`);
      return { final: true, error, subrefs: refsOf(extras.subrefs) };
    }
    // A non-Error thrown value still fails the handler; keep it readable in the records.
    const failure = error ?? new Error("null was thrown");
    report(onRun, "exception", started);
    // A 403 of its own API call: the line says how to grant it.
    const refused = forbiddenHint(handler, error);
    const failed = `${title} failed with an exception.${refused ? ` ${refused}` : ""}`;
    switch (handler.errors) {
      case "ignored":
        logger.exception(`${failed} Will ignore.`, error);
        return { final: true, subrefs: refsOf(extras.subrefs) };
      case "permanent":
        logger.exception(`${failed} Will stop.`, error);
        return { final: true, error: failure, subrefs: refsOf(extras.subrefs) };
      default:
        logger.exception(`${failed} Will retry ${retryWhen(handler.backoff)}.`, error);
        return {
          final: false,
          error: failure,
          delay: handler.backoff,
          subrefs: refsOf(extras.subrefs),
        };
    }
  }
  report(onRun, "success", started);
  if (isLoggedAt(logger, "info")) logger.info(`${handlerTitle(handler)} succeeded.`);
  return { final: true, result, subrefs: refsOf(extras.subrefs) };
}
