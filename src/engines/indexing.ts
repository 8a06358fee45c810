/**
 * In-memory indexing: the operator's indices (one per indexing function id), filled from
 * every state of every object that an indexing function's filters let through.
 *
 * - Each state of an object is given to the resource's indexing functions; what one
 *   returns replaces the object's previous values in its index (see `OperatorIndex`);
 *   `undefined` keeps them. An object that stops matching a function's filters, and an
 *   object gone from the cluster, leaves that index (or all of them).
 * - Indexing functions are never retried as such, and their errors follow Kopf's rules:
 *   an arbitrary error with `errors: "ignored"` (the default) keeps the object's stale
 *   values; a `PermanentError` (or an arbitrary error with `errors: "permanent"`) removes
 *   them and excludes the object from that index for good; a `TemporaryError` (or an
 *   arbitrary error with `errors: "temporary"`) removes them and excludes the object until
 *   the error's delay (or the `backoff`) has passed -- then the object is indexed again,
 *   with `retry`, `started` and `runtime` counting since the first failure, until its
 *   `retries` or `timeout` are used up (then it is excluded for good). A success forgets
 *   all of that. Only failures are remembered, per object and function, until the object
 *   is gone (not when it stops matching the filters for a while).
 * - The operator holds all other handling until the objects of the initial listings are
 *   indexed ({@link OperatorIndexers.populating}): the feed tells which objects are
 *   listed ({@link OperatorIndexers.expect}), the observation when the listings are over
 *   ({@link OperatorIndexers.listingsFed}).
 *
 * Nothing is written to the objects: no finalizers, no progress, no events posted.
 *
 * @module
 */
import type { BodySource, ObservedEvent, RawBody } from "../structs/bodies.ts";
import { type Clock, realClock } from "../structs/clock.ts";
import { objectKey, resourceObjectKey } from "../structs/identities.ts";
import { type Index, OperatorIndex } from "../structs/indices.ts";
import type { ObjectLogger } from "../structs/loggers.ts";
import type { ObjectReference } from "../structs/object_refs.ts";
import type { Resource } from "../structs/resources.ts";
import type { IndexingHandler } from "../intents/handlers.ts";
import { buildIndexingKwargs, buildResourceKwargs } from "../intents/kwargs_builders.ts";
import type { HandlerMatcher } from "../intents/handler_matching.ts";
import { matcherOf, type OperatorRegistry } from "../intents/registry.ts";
import { executeHandlerOnce, observeRuns } from "../handling/execution.ts";
import type { OperatorMetrics } from "../structs/operator_metrics.ts";
import { createObjectScope, runInObjectScope } from "../handling/object_loggers.ts";
import type { ObjectMemory } from "../handling/memories.ts";
import { HandlerState } from "../handling/handler_progress.ts";

/** What the indexing engine is made of: one per operator. */
export interface OperatorIndexersOptions {
  /** The handlers: the indexing functions among them declare the indices. */
  readonly registry: OperatorRegistry;
  /** The clock of the failures' retry state; the real one by default. */
  readonly clock?: Clock;
  /** Where the runs of indexing functions are counted; nowhere by default. */
  readonly metrics?: OperatorMetrics;
}

/** One state of an object, as the processing tells the indexing about it. */
export interface IndexingState {
  /** The object's resource. */
  readonly resource: Resource;
  /** The object's state. */
  readonly body: RawBody;
  /** For a state known by its metadata only: where its whole object is read (`fetchBody`). */
  readonly source?: BodySource;
  /** The object is gone from the cluster (a `DELETED` event): its values go. */
  readonly gone: boolean;
  /** The object's memory (its memo). */
  readonly memory: Pick<ObjectMemory, "memo">;
  /** The object's reference. */
  readonly ref: ObjectReference;
}

/** What the indexing reports back to the processing. */
export interface IndexingOutcome {
  /** Seconds until an indexing function excluded for a while may index the object again. */
  readonly delay?: number;
}

const NOTHING: IndexingOutcome = Object.freeze({});

/** The operator's indices and the engine that fills them; see the module docs. */
export class OperatorIndexers {
  /** The declared indices by name, read-only, as every handler receives them. */
  readonly indices: Readonly<Record<string, Index>>;
  readonly #indices: ReadonlyMap<string, OperatorIndex>;
  readonly #matcher: HandlerMatcher;
  readonly #clock: Clock;
  readonly #metrics: OperatorMetrics | undefined;
  /** The failed indexing functions of each object (by its ref), by handler id. */
  readonly #failures: Map<string, Map<string, HandlerState>> = new Map();
  /** The listed objects not indexed yet; `undefined` once the indices are populated. */
  #pending: Set<string> | undefined = new Set();
  #listingsFed = false;
  #resolve!: () => void;
  readonly #populated: Promise<void>;

  /** The indices of the registry's indexing functions, empty at first. */
  constructor(options: OperatorIndexersOptions) {
    this.#matcher = matcherOf(options.registry);
    this.#clock = options.clock ?? realClock;
    this.#metrics = options.metrics;
    const indices = new Map<string, OperatorIndex>();
    for (const name of this.#matcher.indexNames()) indices.set(name, new OperatorIndex());
    this.#indices = indices;
    this.indices = Object.freeze(Object.fromEntries(indices));
    this.#populated = new Promise((resolve) => (this.#resolve = resolve));
  }

  /** Whether the resource has indexing functions. */
  serves(resource: Resource): boolean {
    return this.#matcher.handlersFor(resource).index.length > 0;
  }

  /**
   * Until the initial listings are indexed: settles when they are, or when
   * {@link OperatorIndexers.halt} is called first. `undefined` once they are.
   */
  get populating(): Promise<void> | undefined {
    return this.#pending === undefined ? undefined : this.#populated;
  }

  /** An object fed to the processing: if it comes from an initial listing, await it. */
  expect(resource: Resource, event: ObservedEvent): void {
    if (this.#pending === undefined || this.#listingsFed || event.type !== null) return;
    if (this.serves(resource)) {
      this.#pending.add(resourceObjectKey(resource, objectKey(event.object)));
    }
  }

  /** The initial listings have all been fed: the indices are populated once those are indexed. */
  listingsFed(): void {
    this.#listingsFed = true;
    this.#check();
  }

  /** The operator stops: nobody waits any longer (the indices stay unpopulated). */
  halt(): void {
    this.#resolve();
  }

  /** Index one state of an object (or forget a gone object); see the module docs. */
  async process(state: IndexingState): Promise<IndexingOutcome> {
    const { resource, body } = state;
    const ref = resourceObjectKey(resource, objectKey(body));
    try {
      const handlers = this.#matcher.handlersFor(resource).index;
      if (state.gone) {
        for (const handler of handlers) this.#indices.get(handler.id)?.discard(ref);
        this.#failures.delete(ref);
        return NOTHING;
      }
      // Their messages are only logged (never posted), like those of event handlers.
      const scope = createObjectScope(body, { local: true }, state.ref);
      const init = {
        resource,
        body,
        source: state.source,
        logger: scope.logger,
        memo: state.memory.memo,
        indices: this.indices,
      };
      const matching = this.#matcher.selectIndexingHandlers(resource, {
        body,
        kwargs: () => buildResourceKwargs(init, {}),
      });
      let delay: number | undefined;
      for (const handler of handlers) {
        const index = this.#indices.get(handler.id)!;
        if (!matching.includes(handler)) { // stopped matching (or never did)
          // Its failures stay: matching again lifts neither an exclusion nor its delay.
          index.discard(ref);
          continue;
        }
        const failed = this.#failures.get(ref)?.get(handler.id);
        if (failed?.finished) continue; // excluded for good
        if (failed?.sleeping) { // excluded for a while
          delay = Math.min(delay ?? Infinity, failed.delay ?? 0);
          continue;
        }
        const attempt = failed ?? HandlerState.fromScratch(this.#clock);
        const kwargs = buildIndexingKwargs({ ...init, param: handler.param }, {
          retry: attempt.retries,
          started: attempt.startedAt,
          runtime: attempt.runtime,
        });
        const outcome = await executeHandlerOnce(
          handler,
          attempt,
          quiet(scope.logger),
          () => runInObjectScope(scope, () => handler.fn(kwargs)),
          observeRuns(this.#metrics, resource, handler.id, body),
        );
        if (outcome.error === undefined || outcome.error === null) {
          // A success, or an ignored error: the values stay unless there are new ones.
          this.#forget(ref, handler.id);
          if (outcome.result !== undefined) {
            this.#replace(handler, index, ref, outcome, scope.logger);
          }
          continue;
        }
        index.discard(ref);
        const next = attempt.withOutcome(outcome);
        let failures = this.#failures.get(ref);
        if (failures === undefined) this.#failures.set(ref, failures = new Map());
        failures.set(handler.id, next);
        if (!next.finished) delay = Math.min(delay ?? Infinity, next.delay ?? 0);
      }
      return delay === undefined ? NOTHING : { delay };
    } finally {
      this.#settle(ref);
    }
  }

  #replace(
    handler: IndexingHandler,
    index: OperatorIndex,
    ref: string,
    outcome: { readonly result?: unknown },
    logger: ObjectLogger,
  ): void {
    try {
      index.replace(ref, outcome.result);
    } catch (error) {
      // An unusable key: like an ignored error, the previous values stay.
      logger.error(
        `Indexing function '${handler.id}' returned what cannot be indexed: ` +
          (error instanceof Error ? error.message : String(error)),
      );
    }
  }

  #forget(ref: string, id: string): void {
    const failures = this.#failures.get(ref);
    if (failures?.delete(id) && failures.size === 0) this.#failures.delete(ref);
  }

  #settle(ref: string): void {
    if (this.#pending?.delete(ref)) this.#check();
  }

  #check(): void {
    if (this.#pending !== undefined && this.#listingsFed && this.#pending.size === 0) {
      this.#pending = undefined;
      this.#resolve();
    }
  }
}

/**
 * The object's logger with successes at debug level: indexing functions run for every
 * state of every object, so "succeeded" would flood the log at info level.
 */
function quiet(logger: ObjectLogger): ObjectLogger {
  return {
    debug: (message, props) => logger.debug(message, props),
    info: (message, props) => logger.debug(message, props),
    warning: (message, props) => logger.warning(message, props),
    error: (message, props) => logger.error(message, props),
    exception: (message, error, props) => logger.exception(message, error, props),
  };
}
