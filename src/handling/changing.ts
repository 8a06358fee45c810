/**
 * The resource-changing handling cycle of one object state: the handlers due for the
 * detected cause run in declaration order, each inside the object's scope and a
 * sub-handler scope (so that `kopf.subhandler()`, `kopf.register()` and `kopf.execute()`
 * work in them); their outcomes update the progress state; results go to the status;
 * when all are done, the progress is purged and the diff-base is stored.
 *
 * Everything is written into the cause's patch; applying it is the caller's job.
 *
 * @module
 */

import type { BodySource, RawBody } from "../structs/bodies.ts";

import type { Index } from "../structs/indices.ts";
import type { ObjectLogger } from "../structs/loggers.ts";
import type { ObjectReference } from "../structs/object_refs.ts";
import { Patch } from "../structs/patches.ts";
import { isThenable } from "../structs/thenables.ts";
import type { Resource } from "../structs/resources.ts";
import type { OperatorSettings } from "../settings/operator_settings.ts";
import { storingIsUndoneByPurging } from "../settings/multi_progress_storages.ts";
import { maskDigests } from "../settings/sensitive_fields.ts";
import type { ChangingHandler } from "../intents/handlers.ts";
import { matchesFilters } from "../intents/filters.ts";
import { buildChangingKwargs, changeFor } from "../intents/kwargs_builders.ts";
import type { ChangingKwargs } from "../intents/kwargs.ts";
import type { Reason } from "../intents/reasons.ts";
import type { Clock } from "../structs/clock.ts";
import { type CauseMatch, deduplicate } from "../intents/handler_matching.ts";
import type { Cause } from "../intents/causes.ts";
import { matcherOf, type OperatorRegistry } from "../intents/registry.ts";
import { type SubhandlerScope, subhandlerScope } from "../intents/subhandlers.ts";
import { AsyncContext, type Binding } from "../platform/async_context.ts";
import { getDefaultLifecycle, type LifeCycleFn, planHandlers } from "../intents/lifecycles.ts";
import { capitalize, TITLES } from "./cause_detection.ts";
import { changingRuns, type ExecutingRun, type SubhandlerRun } from "./changing_runs.ts";
import {
  executeHandlerOnce,
  HandlerChildrenRetry,
  type HandlerRunExtras,
  type HandlerRunObserver,
  observeRuns,
} from "./execution.ts";
import type { Attributes } from "../platform/tracing.ts";
import type { OperatorMetrics } from "../structs/operator_metrics.ts";
import { isLoggedAt, type ObjectScope, runInObjectScope } from "./object_loggers.ts";
import { requestPriorityBinding } from "../client/request_priorities.ts";
import { deliverResults, storableResult } from "./handler_results.ts";
import { type HandlerFate, State } from "./handler_states.ts";
import type { HandlerState, Outcome } from "./handler_progress.ts";

/** The argument type of handler functions in records. */
type HandlerArgs = Parameters<ChangingHandler["fn"]>[0];

/**
 * The object a cycle works on: its state, where its changes go, its logger and reference;
 * it is also the object scope the handlers run in (one for all of them).
 */
export interface CycleTarget extends ObjectScope {
  /** The object's resource. */
  readonly resource: Resource;
  /** The operator's declared indices by name, given to the handlers. */
  readonly indices?: Readonly<Record<string, Index>>;
  /** The object (the same as the cause's). */
  readonly body: RawBody;
  /** For an object known by its metadata only: where its whole object is read. */
  readonly source?: BodySource;
  /** Where changes accumulate. */
  readonly patch: Patch;
  /** The object's logger. */
  readonly logger: ObjectLogger;
  /** The object's reference, shared by its logger and scope. */
  readonly ref: ObjectReference;
  /** Where the object's memo is: read only when a handler's arguments are built. */
  readonly memory: { readonly memo: unknown };
}

/** What the cycle needs besides the cause. */
export interface CycleContext {
  /** The operator's settings (the progress storage is taken from there). */
  readonly settings: OperatorSettings;
  /** The clock of progress records; the real one by default. */
  readonly clock?: Clock;
  /** Where handler runs are counted; nowhere by default. */
  readonly metrics?: OperatorMetrics;
  /**
   * Which of the due handlers run in a cycle (and, unless `kopf.execute()` says otherwise,
   * of the due sub-handlers); the process's default lifecycle if omitted.
   */
  readonly lifecycle?: LifeCycleFn;
  /**
   * Keep the handlers' progress when the cause completes, rather than purge it: when no
   * diff-base can be stored, the progress is what tells that they are done.
   */
  readonly keepProgress?: boolean;
}

/** What came of the cycle. */
export interface CycleResult {
  /** All handlers of the cause are finished (or there were none). */
  readonly done: boolean;
  /** Seconds until each unfinished handler is due. */
  readonly delays: readonly number[];
  /**
   * When a deletion's cycle finished handlers: the changes to apply instead of the cause's
   * patch if the guarded request of a finalizer removal is refused -- the progress kept as done
   * rather than purged, so that the handlers do not run again.
   */
  readonly fallback?: Patch;
  /** The ids of the handlers run in this cycle (their outcomes are in the patch). */
  readonly ran: readonly string[];
  /**
   * Where each handler of the cause stands after the cycle (the status conditions tell it);
   * none when no handler was selected for the cause: it had nothing to do.
   */
  readonly fates: readonly HandlerFate[];
}

/** No handlers: the fates of a cause without any. */
const NO_FATES: readonly HandlerFate[] = Object.freeze([]);

/**
 * The cause as filters of changing handlers look at it. The callbacks' arguments are built
 * once for all the checks of it (the finalizer, the pre-match, the selection).
 */
export function causeMatch(target: CycleTarget, cause: Cause): CauseMatch {
  let kwargs: ChangingKwargs | undefined;
  return {
    body: cause.body,
    reason: cause.reason,
    initial: cause.initial,
    deleted: cause.deleted,
    old: cause.old,
    new: cause.new,
    diff: cause.diff,
    kwargs: () => kwargs ??= changingKwargs(target, cause, undefined, undefined),
  };
}

function changingKwargs(
  target: CycleTarget,
  cause: Cause,
  handler: ChangingHandler | undefined,
  state: HandlerState | undefined,
): ChangingKwargs {
  const change = handler === undefined ? cause : changeFor(handler, cause);
  return buildChangingKwargs({
    resource: target.resource,
    body: cause.body,
    source: target.source,
    patch: target.patch,
    logger: target.logger,
    memoOf: () => target.memory.memo,
    param: handler?.param,
    indices: target.indices,
  }, {
    reason: cause.reason,
    old: change.old,
    new: change.new,
    diff: change.diff,
    retry: state?.retries ?? 0,
    started: state?.startedAt ?? new Date(),
    runtime: state?.runtime ?? 0,
  });
}

/**
 * One run of one handler: the sub-handler scope that `kopf.subhandler()` and
 * `kopf.register()` fill (its data: the parent's id, the sub-registry), what
 * `kopf.execute()` needs to run sub-handlers in it, and the extras of its run. One object
 * with its methods on the prototype, rather than closures and objects per run: this is made
 * per handler call.
 */
export class ChangingRun implements SubhandlerScope, HandlerRunExtras, ExecutingRun {
  readonly parentId: string;
  /** Made by the first sub-handler registered: most handlers register none. */
  registry: OperatorRegistry | undefined = undefined;
  /**
   * Whether the sub-handlers registered with `kopf.subhandler()` have been run by
   * `kopf.execute()` without arguments: then they are not run again after the handler.
   */
  subexecuted = false;
  readonly onRun: HandlerRunObserver | undefined;
  readonly traced: Attributes | undefined;
  readonly #target: CycleTarget;
  readonly #cause: Cause;
  readonly #context: CycleContext;
  readonly #chain: readonly Set<string>[];
  // Made only if the handler executes sub-handlers: most never do.
  #subrefs: Set<string> | undefined;

  constructor(
    handler: ChangingHandler,
    target: CycleTarget,
    cause: Cause,
    context: CycleContext,
    chain: readonly Set<string>[],
  ) {
    this.parentId = handler.id;
    const observers = observeRuns(context.metrics, target.resource, handler.id, cause.body);
    this.onRun = observers.onRun;
    this.traced = observers.traced;
    this.#target = target;
    this.#cause = cause;
    this.#context = context;
    this.#chain = chain;
  }

  /** The object's logger: warnings about the sub-handlers' registration go there. */
  get logger(): ObjectLogger {
    return this.#target.logger;
  }

  /** The sub-handlers registered with `kopf.subhandler()`/`kopf.register()` so far. */
  get registered(): readonly ChangingHandler[] {
    if (this.registry === undefined) return [];
    return matcherOf(this.registry).handlers.filter((h): h is ChangingHandler =>
      h.kind === "changing"
    );
  }

  /** The bindings of the contexts a handler runs in with this run as its scope. */
  get bindings(): readonly Binding[] {
    return [[subhandlerScope, this], [changingRuns, this]];
  }

  /** The ids of the sub-handlers run, at all depths (none until some are executed). */
  get subrefs(): ReadonlySet<string> | undefined {
    return this.#subrefs;
  }

  /**
   * Run the given sub-handler records to completion, as the handling cycle does with
   * handlers (progress, retries, errors), under the given lifecycle (the operator's by
   * default) and for the cause changed as given.
   */
  async execute(handlers: readonly ChangingHandler[], run?: SubhandlerRun): Promise<void> {
    const subrefs = this.#subrefs ??= new Set();
    const chain = [...this.#chain, subrefs];
    await executeSubhandlers(handlers, this.#target, this.#cause, this.#context, chain, run);
  }
}

/** Run one handler once, with its sub-handler scope; `chain` collects sub-handler ids. */
function invokeChangingHandler(
  handler: ChangingHandler,
  target: CycleTarget,
  cause: Cause,
  state: HandlerState,
  context: CycleContext,
  chain: readonly Set<string>[],
): Promise<Outcome> {
  const scope = new ChangingRun(handler, target, cause, context, chain);
  return executeHandlerOnce(handler, state, target.logger, () => {
    const kwargs = changingKwargs(target, cause, handler, state);
    // The sub-handler scope is set along with the object's, in one switch of contexts.
    const result = runInObjectScope(
      target,
      () => handler.fn(kwargs as unknown as HandlerArgs),
      // Resumes and retries can wait: their requests go after those of live changes.
      cause.reason === "resume" || state.retries > 0
        ? [...scope.bindings, requestPriorityBinding("deferred")]
        : scope.bindings,
    );
    // A handler that returns a value, with no sub-handlers left to run, is done at once.
    if (!isThenable(result) && (scope.subexecuted || scope.registry === undefined)) {
      return storableResult(result);
    }
    return finishRun(scope, result);
  }, scope);
}

/**
 * The rest of a handler's run: its result when it comes, then the sub-handlers registered
 * but not executed by `kopf.execute()`, which run right after their parent (in its
 * sub-handler scope, outside the object's, as the handler's own code after it).
 */
async function finishRun(scope: ChangingRun, pending: unknown): Promise<unknown> {
  const result = await pending;
  if (!scope.subexecuted && scope.registry !== undefined) {
    scope.subexecuted = true;
    const registered = scope.registered;
    if (registered.length > 0) {
      await AsyncContext.runAll(scope.bindings, () => scope.execute(registered));
    }
  }
  return storableResult(result);
}

/**
 * Run those of the due handlers that the lifecycle chooses, in its order; their outcomes
 * by id.
 */
async function runDueHandlers(
  handlers: readonly ChangingHandler[],
  target: CycleTarget,
  cause: Cause,
  state: State,
  context: CycleContext,
  chain: readonly Set<string>[],
  lifecycle: LifeCycleFn,
): Promise<Map<string, Outcome>> {
  const outcomes = new Map<string, Outcome>();
  for (const handler of planHandlers(lifecycle, state.selectAwakened(handlers), state)) {
    const handlerState = state.get(handler.id)!;
    outcomes.set(
      handler.id,
      await invokeChangingHandler(handler, target, cause, handlerState, context, chain),
    );
  }
  return outcomes;
}

/** The fields of an object that are not `undefined` (so that they override). */
function definedOnly<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined),
  ) as Partial<T>;
}

/**
 * Run sub-handlers to completion as far as possible now (`kopf.execute()`): their progress
 * is stored like any handler's, their ids are added to every ancestor's subrefs; if some
 * are not finished, the parent is retried when the first of them is due.
 */
async function executeSubhandlers(
  handlers: readonly ChangingHandler[],
  target: CycleTarget,
  parentCause: Cause,
  context: CycleContext,
  chain: readonly Set<string>[],
  run: SubhandlerRun = {},
): Promise<void> {
  const storage = context.settings.persistence.progressStorage;
  const cause: Cause = run.cause === undefined
    ? parentCause
    : { ...parentCause, ...definedOnly(run.cause) as Partial<Cause> };
  const lifecycle = run.lifecycle ?? context.lifecycle ?? getDefaultLifecycle();
  const data = causeMatch(target, cause);
  const selected = deduplicate(handlers.filter((h) => matchesFilters(h, data)));
  let state = await State.fromStorage({
    body: cause.body,
    storage,
    handlers,
    clock: context.clock,
  });
  state = state.withPurpose(cause.reason).withHandlers(selected);
  const outcomes = await runDueHandlers(selected, target, cause, state, context, chain, lifecycle);
  state = state.withOutcomes(outcomes);
  await state.store({ body: cause.body, patch: target.patch, storage });
  deliverResults(outcomes, target.patch, true);
  for (const id of state.ids()) for (const refs of chain) refs.add(id);
  if (!state.done) throw new HandlerChildrenRetry(state.delay);
}

/**
 * The handling cycle for a cause with handler reasons (create, update, delete, resume):
 * see the module docs. `owned` are all changing handlers of the resource (their records
 * are purged when done); `handlers` are those selected for this cause.
 */
export async function runChangingCycle(
  target: CycleTarget,
  cause: Cause,
  owned: readonly ChangingHandler[],
  handlers: readonly ChangingHandler[],
  context: CycleContext,
): Promise<CycleResult> {
  const { logger, patch } = target;
  const body = cause.body;
  const storage = context.settings.persistence.progressStorage;
  const title = TITLES[cause.reason];
  // The built-in storages answer at once: only promises are awaited (each takes a turn).
  const loaded = State.fromStorage({ body, storage, handlers: owned, clock: context.clock });
  let state = isThenable(loaded) ? await loaded : loaded;
  state = state.withPurpose(cause.reason).withHandlers(handlers);

  // Report the handlers of other causes superseded by this one; those still selected
  // continue under the current purpose, the others are purged.
  // (Counted only if there are any: most cycles have none.)
  if (state.hasExtras) {
    for (const [purpose, counts] of state.extras) {
      const extra = TITLES[purpose as Reason] ?? purpose;
      logger.info(
        `${capitalize(extra)} is superseded by ${title}: ${counts.success} succeeded; ` +
          `${counts.failure} failed; ${counts.running} left to the moment.`,
      );
    }
    state = state.withPurpose(cause.reason, handlers.filter((h) => state.has(h.id)));
    if (state.hasExtras) {
      const purged = state.purge({ body, patch, storage, handlers: owned });
      if (isThenable(purged)) await purged;
    }
  }

  // The messages (the whole diff as JSON too) are made only if the records are printed or
  // posted: this runs for every object. Sensitive values are digests in the diff, and even
  // those are masked: a short secret could be guessed from its digest.
  if (isLoggedAt(logger, "debug")) {
    logger.debug(`${capitalize(title)} is in progress.`);
    if (cause.diff.length > 0 && cause.old !== null) {
      logger.debug(`${capitalize(title)} diff: ${maskDigests(JSON.stringify(cause.diff))}`);
    }
  }
  if (handlers.length === 0) return { done: true, delays: [], ran: [], fates: NO_FATES };

  const lifecycle = context.lifecycle ?? getDefaultLifecycle();
  const outcomes = await runDueHandlers(handlers, target, cause, state, context, [], lifecycle);
  const ran = [...outcomes.keys()];
  state = state.withOutcomes(outcomes);
  // A cycle that finishes its cause purges every record right after (a deletion's keeps
  // them for its fallback): with the built-in storages, storing them first changes nothing.
  const keep = context.keepProgress === true;
  if (!(state.done && !keep && cause.reason !== "delete" && storingIsUndoneByPurging(storage))) {
    const stored = state.store({ body, patch, storage });
    if (isThenable(stored)) await stored;
  }
  deliverResults(outcomes, patch, true);
  if (!state.done) return { done: false, delays: state.delays, ran, fates: state.fates };

  if (isLoggedAt(logger, "info")) {
    const counts = state.counts;
    logger.info(
      `${capitalize(title)} is processed: ${counts.success} succeeded; ${counts.failure} failed.`,
    );
  }
  // Only a deletion removes our finalizer along with its outcome (and may be refused for a
  // conflict, then stores the outcome alone): no other cycle needs the copy.
  const fallback = outcomes.size > 0 && cause.reason === "delete"
    ? new Patch(patch.toMergePatch())
    : undefined;
  if (!keep) {
    const purged = state.purge({ body, patch, storage, handlers: owned });
    if (isThenable(purged)) await purged;
  }
  return { done: true, delays: [], fallback, ran, fates: state.fates };
}
