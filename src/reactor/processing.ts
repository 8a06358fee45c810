/**
 * Processing one state of one object: what the per-object worker of the queueing calls for
 * every event. The steps, in order, each a call into the layer that knows how:
 *
 * 1. The object's memory is recalled (and forgotten on `DELETED`).
 * 2. The indices are updated from this state (the indexing engine, if the resource has
 *    indexing functions). While the operator's initial listings are not all indexed yet,
 *    everything else waits (without holding a place among the processings), so that every
 *    other handler sees complete indices. This module is the one place that coordinates
 *    the indexing: it is told which listed objects to wait for
 *    ({@link ObjectProcessor.expect}), when the listings are all queued
 *    ({@link ObjectProcessor.listingsQueued}), and when to stop waiting
 *    ({@link ObjectProcessor.halt}).
 * 3. Event handlers (`kopf.on.event`) run for every event, the initial listing included;
 *    nothing of them is persisted; their errors are logged and ignored.
 * 4. Daemons and timers (the daemons engine, if the resource has any) are told the
 *    object's new state. For an object marked for deletion, they are stopped and waited
 *    for; while some are still exiting, nothing else is done and the object keeps our
 *    finalizer (it is processed again to wait for them once more). Delete handlers run
 *    after they have all exited.
 * 5. The resource-changing cause is detected (`handling/causes.ts`). Our finalizer is
 *    added in a cycle of its own, before any handler runs, when a matching handler
 *    requires it, and removed when none does any more — or when the delete handlers are
 *    all done. Objects that match no handler's filters are handled in stealth: nothing is
 *    written and nothing is logged about them.
 * 6. The handlers due for the cause run (`handling/changing.ts`); when all are done, the
 *    diff-base is stored, the progress purged, and the object counts as fully handled.
 * 7. Everything is applied in as few requests as possible (`handling/application.ts`).
 *
 * The result tells the worker which `resourceVersion` our patch produced (so that older
 * states are not processed again) and when to process the object again if a handler is
 * delayed and no newer event comes first.
 *
 * @module
 */

import type { ObjectEvent, RawBody } from "../structs/bodies.ts";
import { type Clock, realClock } from "../structs/clock.ts";
import { diff } from "../structs/diffs.ts";
import { resolve } from "../structs/dicts.ts";
import { PRESENT } from "../structs/markers.ts";
import type { ObjectLogger } from "../structs/loggers.ts";
import { summarizeError as oneLineOf } from "../structs/log_formats.ts";
import type { ObjectReference } from "../structs/object_refs.ts";
import { Patch } from "../structs/patches.ts";
import { Semaphore } from "../structs/semaphores.ts";
import { isNewerVersion } from "../structs/identities.ts";
import type { Index } from "../structs/indices.ts";
import type { Resource } from "../structs/resources.ts";
import type { ApiClient } from "../client/api.ts";
import { APIError, APINotFoundError } from "../client/api_errors.ts";
import { getObject } from "../client/objects.ts";
import { loadEssences } from "../settings/essences.ts";
import { errorDelayAfter, type OperatorSettings } from "../settings/operator_settings.ts";
import {
  type HandlerFilters,
  KwargsCache,
  matchesFilters,
  matchesValue,
} from "../intents/filters.ts";
import type { ChangingHandler } from "../intents/handlers.ts";
import { buildEventKwargs, buildResourceKwargs } from "../intents/kwargs.ts";
import type { ChangingCause, HandlerMatcher } from "../intents/handler_matching.ts";
import { matcherOf, type OperatorRegistry } from "../intents/registry.ts";
import { applyChanges, type FinalizerChange, isRefusedOutcome } from "../handling/application.ts";
import {
  capitalize,
  detectCause,
  HANDLER_REASONS,
  hasFinalizer,
  isDeletionOngoing,
  TITLES,
} from "../handling/causes.ts";
import { changingMatchData, type HandlingCause, runChangingCycle } from "../handling/changing.ts";
import type { LifeCycleFn } from "../intents/lifecycles.ts";
import { executeHandlerOnce, observeRuns, type RetriedHandler } from "../handling/execution.ts";
import { type OperatorMetrics, resourceLabel } from "../structs/operator_metrics.ts";
import { inSpan, isTracing } from "../platform/tracing.ts";
import {
  createObjectScope,
  type ObjectScope,
  runInObjectScope,
} from "../handling/object_loggers.ts";
import type { ObjectMemories, ObjectMemory, UnstoredOutcome } from "../handling/memories.ts";
import { deliverResults, HandlerState, type Outcome } from "../handling/handler_states.ts";
import type { Spawner } from "../engines/daemons.ts";
import type { Ownership } from "../engines/leader_election.ts";
import type { OperatorIndexers } from "../engines/indexing.ts";
import type { AsideWait, ProcessingResult } from "./queueing.ts";

/** What processing is made of: one per operator. */
export interface ObjectProcessorOptions {
  /** The API client for patching. */
  readonly api: ApiClient;
  /** The handlers. */
  readonly registry: OperatorRegistry;
  /** The operator's settings. */
  readonly settings: OperatorSettings;
  /** The operator's memories of objects. */
  readonly memories: ObjectMemories;
  /** The clock of progress records; the real one by default. */
  readonly clock?: Clock;
  /**
   * How many objects may be patched at once ({@link DEFAULT_WRITE_LIMIT} by default): with
   * thousands of objects changing together, unbounded concurrent requests cost far more
   * memory and time than a queue (Kopf's HTTP client caps its connections likewise).
   * Every request in flight holds its connection's buffers and its object's half-done
   * state; at 10,000 objects, 100 at once cost ~45 MB more peak RSS than 32 at once, for
   * no gain in throughput.
   */
  readonly writeLimit?: number;
  /** The limit of writes shared with the operator's other writers (its daemons and timers). */
  readonly writes?: Semaphore;
  /** The daemons and timers, if the operator has any. */
  readonly spawner?: Spawner;
  /** The indexing functions, if the operator has any. */
  readonly indexers?: OperatorIndexers;
  /** Where cycles, patches and handler runs are counted; nowhere by default. */
  readonly metrics?: OperatorMetrics;
  /** Which due handlers run per cycle; the process's default lifecycle if omitted. */
  readonly lifecycle?: LifeCycleFn;
  /**
   * Which objects this replica handles now (leader election, sharding). Objects of other
   * replicas are only indexed: the indices stay whole, nothing runs and nothing is
   * written. All objects are this replica's when omitted.
   */
  readonly ownership?: Ownership;
}

/** How many objects are patched at once by default. */
export const DEFAULT_WRITE_LIMIT = 32;

/** The label, annotation and `when` filters of each handler, without its field ones. */
const scopes = new WeakMap<ChangingHandler, HandlerFilters>();

/** The handler's filters but the field's: built once per handler, not per event. */
function scopeFilters(handler: ChangingHandler): HandlerFilters {
  let filters = scopes.get(handler);
  if (filters === undefined) {
    filters = {
      ...handler,
      field: undefined,
      value: undefined,
      old: undefined,
      new: undefined,
      fieldNeedsChange: false,
    };
    scopes.set(handler, filters);
  }
  return filters;
}

/** The resource-changing part of one processing round. */
interface ChangingOutcome {
  readonly delays: readonly number[];
  readonly finalizerChange?: FinalizerChange;
  readonly fallback?: Patch;
  /** The handlers run in the cycle, whose outcomes the patch holds. */
  readonly ran?: readonly string[];
}

const NO_DELAYS: readonly number[] = Object.freeze([]);

/** The outcome of most rounds: nothing more to do (one for all, not one per event). */
const IDLE: ChangingOutcome = Object.freeze({ delays: NO_DELAYS });

/** The handling of all objects of one operator; call {@link ObjectProcessor.process}. */
export class ObjectProcessor {
  readonly #api: ApiClient;
  readonly #registry: HandlerMatcher;
  readonly #settings: OperatorSettings;
  readonly #memories: ObjectMemories;
  readonly #clock: Clock;
  readonly #writes: Semaphore;
  readonly #spawner: Spawner | undefined;
  readonly #indexers: OperatorIndexers | undefined;
  readonly #metrics: OperatorMetrics | undefined;
  readonly #indices: Readonly<Record<string, Index>> | undefined;
  readonly #lifecycle: LifeCycleFn | undefined;
  readonly #ownership: Ownership | undefined;

  /** A processor over the operator's parts. */
  constructor(options: ObjectProcessorOptions) {
    this.#api = options.api;
    this.#registry = matcherOf(options.registry);
    this.#settings = options.settings;
    this.#memories = options.memories;
    this.#clock = options.clock ?? realClock;
    this.#writes = options.writes ?? new Semaphore(options.writeLimit ?? DEFAULT_WRITE_LIMIT);
    this.#spawner = options.spawner;
    this.#indexers = options.indexers;
    this.#metrics = options.metrics;
    this.#indices = options.indexers?.indices;
    this.#lifecycle = options.lifecycle;
    this.#ownership = options.ownership;
  }

  /**
   * An object state has been queued for processing: if it comes from an initial listing
   * of a resource with indexing functions, the handling of all objects waits for it to be
   * indexed.
   */
  expect(resource: Resource, event: ObjectEvent): void {
    this.#indexers?.expect(resource, event);
  }

  /**
   * Whether a state needs no processing here at all: its object is another replica's
   * (see `owns`), no index handler looks at it, and no outcome of this replica's waits to
   * be dropped for it (see below, in the processing). Such states go no further than the
   * feed — no worker, no queueing — and a deletion among them forgets the object here.
   */
  skips(resource: Resource, event: ObjectEvent): boolean {
    if (this.#ownership === undefined || this.#ownership.owns(event.object)) return false;
    if (this.#registry.handlersFor(resource).index.length > 0) return false;
    const memory = this.#memories.peek(resource, event.object);
    if (memory?.unstored !== undefined) return false;
    if (memory !== undefined && event.type === "DELETED") {
      this.#memories.forget(resource, event.object);
    }
    return true;
  }

  /**
   * The initial listings have all been queued: the handling begins once the objects
   * expected so far are indexed.
   */
  listingsQueued(): void {
    this.#indexers?.listingsFed();
  }

  /** The operator stops: nothing waits for the indices any longer. */
  halt(): void {
    this.#indexers?.halt();
  }

  /**
   * Process one state of one object; see the module docs. `aside` waits for the indices
   * to be populated without holding the worker's place (the wait simply holds it without).
   */
  process(
    resource: Resource,
    event: ObjectEvent,
    signal?: AbortSignal,
    aside?: AsideWait,
  ): Promise<ProcessingResult> {
    this.#metrics?.processingCycles.inc([resourceLabel(resource)]);
    if (!isTracing()) return this.#process(resource, event, signal, aside);
    // Traced: one span per processed state, the parent of its handler runs and requests.
    const meta = event.object.metadata;
    return inSpan(`kopf process ${resourceLabel(resource)}`, {
      "kopf.resource": resourceLabel(resource),
      "kopf.event.type": event.type ?? "LISTED",
      "k8s.namespace.name": meta?.namespace ?? "",
      "kopf.object.name": meta?.name ?? "",
      "kopf.object.uid": meta?.uid ?? "",
    }, () => this.#process(resource, event, signal, aside));
  }

  async #process(
    resource: Resource,
    event: ObjectEvent,
    signal?: AbortSignal,
    aside?: AsideWait,
  ): Promise<ProcessingResult> {
    const memory = this.#memories.recall(resource, event.object, {
      noticedByListing: event.type === null,
    });
    if (event.type === "DELETED") this.#memories.forget(resource, event.object);

    // A newer state may be known already (our own patch, whose echo is late; a state read
    // afresh before a resumed watch delivers it again; a delayed revisit): then the object
    // is read as it is now, so that no handler runs again on a state that has moved on.
    let body = event.object;
    const newest = memory.newestVersion;
    if (
      newest !== undefined && event.type !== "DELETED" &&
      isNewerVersion(newest, body.metadata?.resourceVersion)
    ) {
      const fresh = await this.#reread(resource, body, signal);
      if (fresh === undefined) return {}; // gone: its deletion comes through the watch
      body = fresh;
    }
    const version = body.metadata?.resourceVersion;
    if (version !== undefined && (newest === undefined || isNewerVersion(version, newest))) {
      memory.newestVersion = version;
    }

    const patch = new Patch();
    // The object's logger and scope, built once for all the handlers run for this state.
    let scope = createObjectScope(body);
    let logger = scope.logger;

    // An outcome that the API server refused to store goes first: until it is stored,
    // nothing runs for the object, so that handlers that have succeeded do not run again.
    const owned = this.#ownership?.owns(body) ?? true;
    const unstored = memory.unstored;
    if (unstored !== undefined && !owned) {
      // Another replica handles it now: writing an older outcome could undo its work.
      memory.unstored = undefined;
      logger.warning(
        `The outcome of ${unstored.handlers.map((id) => `'${id}'`).join(", ")} was not stored ` +
          "before the object stopped being this replica's; the replica that handles it now " +
          "runs them again.",
      );
    } else if (unstored !== undefined) {
      if (event.type === "DELETED") {
        memory.unstored = undefined;
      } else {
        const stored = await this.#store(resource, body, unstored, memory, logger, signal);
        if (memory.unstored !== undefined) {
          return stored.retryIn === undefined ? {} : { delay: stored.retryIn };
        }
        if (stored.gone) return {}; // its deletion comes through the watch
        // Stored: the processing goes on with the state it produced, progress included —
        // not with the next event, since a store that changed nothing sends none.
        if (stored.body !== undefined) {
          body = stored.body;
          scope = createObjectScope(body);
          logger = scope.logger;
        }
      }
    }
    let indexingDelay: number | undefined;
    const indexing = this.#indexers;
    if (indexing !== undefined) {
      if (indexing.serves(resource)) {
        const gone = event.type === "DELETED";
        ({ delay: indexingDelay } = await indexing.process({
          resource,
          body,
          gone,
          memory,
          ref: scope.ref,
        }));
      }
      const populating = indexing.populating;
      if (populating !== undefined) {
        await (aside ?? waitInPlace)(populating);
        if (indexing.populating !== undefined) return {}; // stopped before the indices filled
      }
    }
    if (!owned) return indexingDelay === undefined ? {} : { delay: indexingDelay };
    if (this.#registry.handlersFor(resource).event.length > 0) { // no async call for nothing
      await this.#processEvent(resource, event, body, patch, scope, memory);
    }
    let spawning = this.#spawner?.serves(resource)
      ? this.#spawner.process({
        resource,
        body,
        deleted: isDeletionOngoing(body),
        gone: event.type === "DELETED",
        memory,
        logger,
        ref: scope.ref,
        signal,
      })
      : undefined;
    if (spawning?.exits !== undefined) {
      // Other objects go on meanwhile: the wait may last as long as a daemon takes to exit.
      await (aside ?? waitInPlace)(spawning.exits);
      spawning = this.#spawner!.recheck(resource, body);
    }
    const changing = spawning?.stopping
      ? { delays: [spawning.delay ?? 0] } // the rest waits until they have exited
      : await this.#processChanging(resource, event, body, patch, scope, memory);

    let expectedResourceVersion: string | undefined;
    if (event.type !== "DELETED" && (!patch.isEmpty || changing.finalizerChange !== undefined)) {
      const outcome: UnstoredOutcome = {
        patch,
        finalizerChange: changing.finalizerChange,
        fallback: changing.fallback,
        handlers: changing.ran ?? [],
        failures: 0,
      };
      const stored = await this.#store(resource, body, outcome, memory, logger, signal);
      if (stored.retryIn !== undefined || memory.unstored !== undefined) {
        return stored.retryIn === undefined ? {} : { delay: stored.retryIn };
      }
      expectedResourceVersion = stored.version;
    }
    const result: { expectedResourceVersion?: string; delay?: number } = {};
    if (expectedResourceVersion !== undefined) {
      result.expectedResourceVersion = expectedResourceVersion;
    }
    if (changing.delays.length > 0) result.delay = Math.min(...changing.delays);
    if (indexingDelay !== undefined) {
      result.delay = Math.min(result.delay ?? Infinity, indexingDelay);
    }
    return result;
  }

  /**
   * Store the outcome of a cycle. When storing fails, the handlers are not run again: the
   * outcome is kept in the object's memory and stored again after the operator's error
   * delays (Kopf's throttling), before anything else is done with the object. A refusal
   * for good (see `isRefusedOutcome`) is an ERROR, posted as an Event on the object; a
   * failure that outlasted the client's retries (5xx, throttling, a lost connection) is a
   * WARNING; the retries are DEBUG; success after failures is INFO.
   */
  async #store(
    resource: Resource,
    body: RawBody,
    outcome: UnstoredOutcome,
    memory: ObjectMemory,
    logger: ObjectLogger,
    signal: AbortSignal | undefined,
  ): Promise<{ version?: string; body?: RawBody; gone?: boolean; retryIn?: number }> {
    const finalizer = this.#settings.persistence.finalizer;
    // The request's options are made once, before waiting for a place among the writes.
    const request = {
      api: this.#api,
      resource,
      body,
      patch: outcome.patch,
      finalizer,
      finalizerChange: outcome.finalizerChange,
      signal,
    };
    let applied;
    try {
      applied = await this.#writes.run(() => applyChanges(request));
      if (applied.conflict) {
        logger.debug("The object has changed meanwhile; the finalizer waits for its new state.");
        if (outcome.fallback !== undefined) {
          const fallback = { ...request, patch: outcome.fallback, finalizerChange: undefined };
          applied = await this.#writes.run(() => applyChanges(fallback));
        }
      }
    } catch (error) {
      if (signal?.aborted) throw error; // stopping: the stop itself reports what is left
      memory.unstored = outcome;
      const retryIn = errorDelayAfter(this.#settings.batching.errorDelays, outcome.failures);
      const when = retryIn === undefined ? "with the object's next change" : `in ${retryIn}s`;
      const why = error instanceof APIError
        ? `HTTP ${error.code}: ${error.statusMessage ?? error.reason ?? error.message}`
        : oneLineOf(error);
      if (outcome.failures++ > 0) {
        logger.debug(
          `Storing the outcome ${whose(outcome)} failed again (${why}); retrying ${when}.`,
        );
      } else if (isRefusedOutcome(error)) {
        logger.error(
          `The API server refused to store the outcome ${whose(outcome)} (${why}); they are not ` +
            `run again, and storing is retried ${when}.`,
        );
      } else {
        logger.warning(
          `Storing the outcome ${whose(outcome)} failed (${why}); they are not run again, and ` +
            `storing is retried ${when}.`,
        );
      }
      return { retryIn };
    }
    if (applied.requests > 0) {
      this.#metrics?.patches.inc([resourceLabel(resource)], applied.requests);
    }
    if (outcome.failures > 0) {
      const times = outcome.failures === 1
        ? "1 failed attempt"
        : `${outcome.failures} failed attempts`;
      logger.info(`The outcome ${whose(outcome)} is stored at last, after ${times}.`);
    }
    memory.unstored = undefined;
    if (applied.gone) {
      logger.debug("The object is gone; nothing to patch.");
      return { gone: true };
    }
    const version = applied.body?.metadata?.resourceVersion;
    if (version !== undefined && !isNewerVersion(memory.newestVersion, version)) {
      memory.newestVersion = version;
    }
    return { version, body: applied.body };
  }

  /** The object as it is now; `undefined` if it is gone. */
  async #reread(
    resource: Resource,
    body: RawBody,
    signal: AbortSignal | undefined,
  ): Promise<RawBody | undefined> {
    const { name, namespace } = body.metadata ?? {};
    try {
      return await getObject(this.#api, resource, { name: name ?? "", namespace }, { signal });
    } catch (error) {
      if (error instanceof APINotFoundError) return undefined;
      throw error;
    }
  }

  /**
   * Run the event handlers once each: nothing of them is persisted, their errors are logged
   * and ignored (never retried), their results go to the status like other handlers'.
   * Their messages are only logged, never posted as Kubernetes events. Called only when
   * the resource has event handlers.
   */
  async #processEvent(
    resource: Resource,
    event: ObjectEvent,
    body: RawBody,
    patch: Patch,
    objectScope: ObjectScope & { readonly ref: ObjectReference },
    memory: ObjectMemory,
  ): Promise<void> {
    // Their own logger (never posting), on the same object reference.
    const scope = createObjectScope(body, { local: true }, objectScope.ref);
    const logger = scope.logger;
    const kwargsFor = (param: unknown) =>
      buildEventKwargs({
        resource,
        body,
        patch,
        logger,
        memoOf: () => memory.memo,
        param,
        indices: this.#indices,
      }, event);
    const handlers = this.#registry.selectEventHandlers(resource, {
      body,
      kwargs: () => kwargsFor(undefined),
    });
    const outcomes = new Map<string, Outcome>();
    for (const handler of handlers) {
      const once: RetriedHandler = {
        id: handler.id,
        errors: "ignored",
        timeout: null,
        retries: null,
        backoff: 0,
      };
      const state = HandlerState.fromScratch(this.#clock);
      const invoke = () =>
        runInObjectScope(
          scope,
          () => handler.fn(kwargsFor(handler.param) as unknown as Parameters<typeof handler.fn>[0]),
        );
      const observers = observeRuns(this.#metrics, resource, handler.id, body);
      outcomes.set(handler.id, await executeHandlerOnce(once, state, logger, invoke, observers));
    }
    deliverResults(outcomes, patch);
  }

  /** Detect the changing cause and run its cycle; see the module docs. */
  async #processChanging(
    resource: Resource,
    event: ObjectEvent,
    body: RawBody,
    patch: Patch,
    scope: ObjectScope & { readonly ref: ObjectReference },
    memory: ObjectMemory,
  ): Promise<ChangingOutcome> {
    const { logger, ref } = scope;
    const registry = this.#registry;
    const owned = registry.handlersFor(resource).changing;
    const persistence = this.#settings.persistence;
    const finalizer = persistence.finalizer;
    const blocked = hasFinalizer(body, finalizer);
    if (owned.length === 0) {
      if (this.#spawner?.serves(resource)) {
        return this.#spawningFinalizer(resource, event, body, blocked, memory, logger);
      }
      // Nothing of ours needs the object any more, e.g. handlers removed since an older version.
      const stale = blocked && event.type !== "DELETED";
      return stale ? { delays: NO_DELAYS, finalizerChange: "remove" } : IDLE;
    }
    const essences = await loadEssences(persistence, body, registry.extraFields(resource));
    const changes = diff(essences.old, essences.new);
    const initial = memory.noticedByListing && !memory.fullyHandledOnce;
    const probe = (
      reason: HandlingCause["reason"],
      deleted: boolean,
      initialNow: boolean = initial,
    ): HandlingCause => ({
      resource,
      indices: this.#indices,
      body,
      patch,
      logger,
      ref,
      memory,
      reason,
      initial: initialNow,
      deleted,
      old: essences.old,
      new: essences.new,
      diff: changes,
    });
    // Delete handlers without our finalizer (optional ones): selected once, for the cause
    // detection and, if they apply, for the cycle (the cause is then this very probe).
    const optionalHandlers = event.type !== "DELETED" && isDeletionOngoing(body) && !blocked &&
        !memory.deletionHandled
      ? registry.selectChangingHandlers(resource, changingMatchData(probe("delete", true)))
      : undefined;
    const optionalDeletion = optionalHandlers !== undefined && optionalHandlers.length > 0;
    const detected = detectCause({
      eventType: event.type,
      body,
      finalizer,
      old: essences.old,
      diff: changes,
      initial,
      optionalDeletion,
    });
    const cause = probe(detected.reason, detected.deleted, detected.initial);

    if (cause.reason === "gone") {
      if (this.#prematch(owned, cause)) {
        logger.debug("Deleted, really deleted, and we are notified.");
      }
      return IDLE;
    }

    // The finalizer: added in a cycle of its own, removed when no handler needs it.
    const data = changingMatchData(cause);
    if (!cause.deleted) {
      const change = finalizerChangeOf(registry.requiresFinalizer(resource, data), blocked, logger);
      if (change !== undefined) return change;
    }

    if (!this.#prematch(owned, cause, data)) {
      // Stealth: not ours; but a finalizer we put there earlier must not hold the object.
      return cause.deleted && blocked ? { delays: NO_DELAYS, finalizerChange: "remove" } : IDLE;
    }

    if (!HANDLER_REASONS.has(cause.reason)) {
      if (cause.reason === "free") {
        logger.debug("Deletion, but we are done with it; not our concern.");
      }
      if (cause.reason === "noop") {
        logger.debug("Something has changed, but not the essence; nothing to do.");
      }
      return IDLE;
    }

    const handlers = optionalHandlers ?? registry.selectChangingHandlers(resource, data);
    const cycle = await runChangingCycle(cause, owned, handlers, {
      settings: this.#settings,
      clock: this.#clock,
      metrics: this.#metrics,
      lifecycle: this.#lifecycle,
    });
    if (!cycle.done) return { delays: cycle.delays, ran: cycle.ran };

    if (changes.length > 0) { // the diff is empty exactly when the essences are equal
      await persistence.diffbaseStorage.store({ body, patch, essence: essences.new });
    }
    memory.fullyHandledOnce = true;
    if (cause.reason === "delete") {
      memory.deletionHandled = true;
      if (blocked) {
        logger.debug("Removing the finalizer, thus allowing the actual deletion.");
        return {
          delays: NO_DELAYS,
          finalizerChange: "remove",
          fallback: cycle.fallback,
          ran: cycle.ran,
        };
      }
      logger.debug(`${capitalize(TITLES.delete)} is done without a finalizer (optional).`);
    }
    return cycle.ran.length > 0 ? { delays: NO_DELAYS, ran: cycle.ran } : IDLE;
  }

  /**
   * Our finalizer on objects of resources with daemons or timers but no changing handlers:
   * there while any of them applies; removed once the object is marked for deletion (its
   * daemons and timers have exited by then).
   */
  #spawningFinalizer(
    resource: Resource,
    event: ObjectEvent,
    body: RawBody,
    blocked: boolean,
    memory: ObjectMemory,
    logger: ObjectScope["logger"],
  ): ChangingOutcome {
    if (event.type === "DELETED") return IDLE;
    if (isDeletionOngoing(body)) {
      if (!blocked) return IDLE;
      logger.debug("Removing the finalizer, thus allowing the actual deletion.");
      return { delays: NO_DELAYS, finalizerChange: "remove" };
    }
    const required = this.#registry.requiresFinalizer(resource, {
      body,
      kwargs: () =>
        buildResourceKwargs({
          resource,
          body,
          memoOf: () => memory.memo,
          indices: this.#indices,
        }, {}),
    });
    return finalizerChangeOf(required, blocked, logger) ?? IDLE;
  }

  /**
   * Whether any changing handler of the resource may be interested in the object at all:
   * its label, annotation and `when` filters pass, and its field (if any) has a fitting value
   * on either side of the change — whatever the reason, and whether the field changed.
   */
  #prematch(
    owned: readonly ChangingHandler[],
    cause: HandlingCause,
    data: ChangingCause = changingMatchData(cause),
  ): boolean {
    // Checked for every event: handlers without filters need no arguments built.
    if (owned.some((h) => !h.hasFilters)) return true;
    const kwargs = new KwargsCache(data);
    return owned.some((h) => {
      if (!matchesFilters(scopeFilters(h), data, kwargs)) return false;
      if (h.field === undefined) return true;
      const criterion = h.value ?? PRESENT;
      return [cause.new, cause.old].some((side) =>
        side !== null && matchesValue(criterion, resolve(side, h.field!), kwargs, "value")
      );
    });
  }
}

/** A wait that keeps the worker's place: when no queueing gives a way to wait aside. */
const waitInPlace: AsideWait = (promise) => promise;

/** Whose outcome it is, for the messages: built only when one is logged, which is rare. */
function whose(outcome: UnstoredOutcome): string {
  return outcome.handlers.length > 0
    ? `of ${outcome.handlers.map((id) => `'${id}'`).join(", ")}`
    : "of the handling";
}

/** A round of its own to add or remove our finalizer, if it is needed or held for nothing. */
function finalizerChangeOf(
  required: boolean,
  blocked: boolean,
  logger: ObjectLogger,
): ChangingOutcome | undefined {
  if (required && !blocked) {
    logger.debug("Adding the finalizer, thus preventing the actual deletion.");
    return { delays: NO_DELAYS, finalizerChange: "add" };
  }
  if (!required && blocked) {
    logger.debug("Removing the finalizer, as there are no handlers requiring it.");
    return { delays: NO_DELAYS, finalizerChange: "remove" };
  }
  return undefined;
}
