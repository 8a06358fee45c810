/**
 * Operator-level activities: startup, cleanup, login and probe handlers.
 *
 * All handlers of an activity run until each has succeeded or failed for good, with the
 * same retry semantics as resource handlers (`TemporaryError` delays, `PermanentError`,
 * `errors`, `timeout`, `retries`, `backoff`). If any fails for good, the activity fails
 * with an {@link ActivityError} (e.g. the operator does not start).
 *
 * - Startup handlers run before anything else, and may tune the settings.
 * - Login handlers produce credentials (`ConnectionInfo`) for the vault; without any,
 *   the default login is used.
 * - Cleanup handlers run when the operator exits.
 * - Probe handlers run on demand; their results are what the liveness endpoint reports.
 *
 * @module
 */

import type { ConnectionInfo } from "../structs/credentials.ts";
import { LoginError } from "../structs/errors.ts";
import type { Index } from "../structs/indices.ts";
import type { ObjectLogger } from "../structs/loggers.ts";
import { type Clock, realClock, sleep } from "../structs/clock.ts";
import type { OperatorSettings } from "../settings/operator_settings.ts";
import type { ActivityHandler } from "../intents/handlers.ts";
import { buildActivityKwargs } from "../intents/kwargs_builders.ts";
import type { Activity } from "../intents/reasons.ts";
import { matcherOf, type OperatorRegistry } from "../intents/registry.ts";
import { executeHandlerOnce } from "../handling/execution.ts";
import { createActivityLogger } from "../handling/object_loggers.ts";
import type { Outcome } from "../handling/handler_progress.ts";
import { State } from "../handling/handler_states.ts";

/** The longest single sleep between retries; the loop re-checks the state afterwards. */
const KEEPALIVE_SECONDS = 600;

/**
 * One or more handlers of an activity failed for good.
 *
 * @example See which startup handler stopped the operator, and why
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(async function checkLicense() {
 *   const response = await fetch("https://example.com/license");
 *   if (!response.ok) throw new kopf.PermanentError("no valid license");
 * });
 * try {
 *   await kopf.operator({ namespaces: ["default"] });
 * } catch (error) {
 *   if (!(error instanceof kopf.ActivityError)) throw error;
 *   for (const [id, outcome] of error.outcomes) console.error(`${id}: ${outcome.error}`);
 * }
 * ```
 */
export class ActivityError extends Error {
  /** The error's name, for logs and stack traces. */
  override name = "ActivityError";
  /** The outcomes of all handlers, by id. */
  readonly outcomes: ReadonlyMap<string, Outcome>;

  /** An activity failure with the handlers' outcomes; the first failure is the cause. */
  constructor(message: string, outcomes: ReadonlyMap<string, Outcome>, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.outcomes = outcomes;
  }
}

/** What running an activity needs. */
export interface ActivityContext {
  /** The handlers. */
  readonly registry: OperatorRegistry;
  /** The operator's settings (handlers get them and may change them). */
  readonly settings: OperatorSettings;
  /** The operator's memo. */
  readonly memo: unknown;
  /** Stops the waits between retries; the activity then fails with the signal's reason. */
  readonly signal?: AbortSignal;
  /** The activities' logger; the `kopf.activities` logger by default. */
  readonly logger?: ObjectLogger;
  /** The clock of the retry state and of the waits between retries; the real one by default. */
  readonly clock?: Clock;
  /** The operator's declared indices by name (possibly still filling up). */
  readonly indices?: Readonly<Record<string, Index>>;
}

/**
 * Run all handlers of an activity to their end; resolve with their non-`undefined`
 * results by handler id, or reject with an {@link ActivityError} if any failed for good.
 */
export async function runActivity(
  activity: Activity,
  options: ActivityContext,
): Promise<Map<string, unknown>> {
  const handlers = matcherOf(options.registry).activityHandlers(activity);
  const logger = options.logger ?? createActivityLogger();
  const clock = options.clock ?? realClock;
  let state = State.fromScratch({ clock }).withHandlers(handlers);
  const outcomes = new Map<string, Outcome>();
  while (!state.done) {
    options.signal?.throwIfAborted();
    const current = new Map<string, Outcome>();
    for (const handler of state.selectAwakened(handlers)) {
      const handlerState = state.get(handler.id)!;
      current.set(
        handler.id,
        await executeHandlerOnce(
          handler,
          handlerState,
          logger,
          () =>
            invoke(handler, activity, options, logger, {
              retry: handlerState.retries,
              started: handlerState.startedAt,
              runtime: handlerState.runtime,
            }),
        ),
      );
    }
    for (const [id, outcome] of current) outcomes.set(id, outcome);
    state = state.withOutcomes(current);
    const delay = state.delay;
    if (delay !== null && delay > 0) {
      await sleep(Math.min(delay, KEEPALIVE_SECONDS), options.signal, clock);
    }
  }
  const failures = [...outcomes].filter(([, o]) => o.final && o.error !== undefined);
  if (failures.length > 0) {
    const ids = failures.map(([id]) => id).join(", ");
    const first = failures[0][1].error;
    const why = first instanceof Error ? first.message : String(first);
    throw new ActivityError(
      `The ${activity} handler(s) ${ids} failed for good: ${why}`,
      outcomes,
      first,
    );
  }
  const results = new Map<string, unknown>();
  for (const [id, outcome] of outcomes) {
    if (outcome.result !== undefined) results.set(id, outcome.result);
  }
  return results;
}

function invoke(
  handler: ActivityHandler,
  activity: Activity,
  options: ActivityContext,
  logger: ObjectLogger,
  retry: { retry: number; started: Date; runtime: number },
): unknown {
  const kwargs = buildActivityKwargs({
    activity,
    settings: options.settings,
    logger,
    memo: options.memo,
    param: handler.param,
    indices: options.indices,
    ...retry,
  });
  return handler.fn(kwargs as unknown as Parameters<typeof handler.fn>[0]);
}

/** A login used when no login handlers are registered. */
export type DefaultLogin = () => Promise<ConnectionInfo | null | undefined>;

/** Options of {@link runLogin}. */
export interface LoginOptions extends ActivityContext {
  /** The login when no login handlers are registered. */
  readonly defaultLogin?: DefaultLogin;
}

/**
 * Run the login handlers (or the default login when none are registered) and return the
 * credentials they produced, by handler id, for the vault.
 */
export async function runLogin(options: LoginOptions): Promise<Map<string, ConnectionInfo>> {
  const credentials = new Map<string, ConnectionInfo>();
  if (matcherOf(options.registry).activityHandlers("login").length === 0) {
    if (options.defaultLogin === undefined) {
      throw new LoginError(
        "No login handlers are registered and no default login is available: register " +
          "kopf.on.login(...) returning a ConnectionInfo.",
      );
    }
    const info = await options.defaultLogin();
    if (info) credentials.set("default", info);
  } else {
    for (const [id, result] of await runActivity("login", options)) {
      if (result !== null && typeof result === "object") {
        credentials.set(id, result as ConnectionInfo);
      }
    }
  }
  if (credentials.size === 0) {
    throw new LoginError("Login produced no credentials: every login returned nothing.");
  }
  return credentials;
}

/** Run the probe handlers now; their results by handler id (for the liveness endpoint). */
export async function runProbes(options: ActivityContext): Promise<Record<string, unknown>> {
  return Object.fromEntries(await runActivity("probe", options));
}
