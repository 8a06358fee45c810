/**
 * Daemons and timers: long-running tasks that accompany each object for as long as it
 * exists (and matches the handler's filters), one per object and handler.
 *
 * The object processing tells the engine every new state of an object of a resource that
 * has daemons or timers (see {@link Spawner.process}); objects of other resources are
 * never seen here, so they cost nothing. For each state:
 *
 * - the object's live body is updated: `body`, `spec`, `meta`, `status`, `labels`,
 *   `annotations` of running daemons and timers show it at once; a new state also
 *   restarts the quiet period of idling timers;
 * - daemons and timers whose filters now match are spawned (unless one is still
 *   running or stopping, or has ended on its own before: then it stays ended for this
 *   object for the operator's lifetime); running ones whose filters no longer match are
 *   asked to stop, and can be spawned again once they have exited;
 * - an object marked for deletion has all its daemons and timers stopped, and the
 *   processing keeps our finalizer on it until they have exited (see below).
 *
 * A daemon runs its function once (after `initialDelay`); when the function returns or
 * fails for good, the daemon is over and is not restarted. Errors follow the handler's
 * `errors`, `backoff`, `retries` and `timeout` options like other handlers': a
 * `TemporaryError` runs the function again after its delay. A timer runs its function on
 * a schedule (see `timers.ts`). After every run, the result goes to `status.<id>` and the
 * `patch` is applied in one request (two if the status is a subresource).
 *
 * Stopping: the stop-flag (`stopped`) is set and its `signal` aborted at once. JavaScript
 * cannot cancel a running function, so what Kopf calls forced cancellation is not there:
 * a daemon with a `cancellationTimeout` is given `cancellationBackoff` plus
 * `cancellationTimeout` seconds, after which it is abandoned (logged as a warning) and the
 * object is released; without a timeout, it is waited for as long as it takes, and the
 * object stays blocked meanwhile. For an object marked for deletion, the processing waits
 * for the exits itself, so the object is released as soon as the last one has exited; it
 * reports what is still running every `cancellationPolling` seconds (the daemon's option,
 * else `settings.background.cancellationPolling`; timers always use the setting) and lets
 * the object's newer events in between.
 *
 * While the operator is paused (see {@link Spawner.pause}), its daemons and timers are
 * stopped ("operator-pausing") and none are spawned; on resumption, those of the objects
 * still known are spawned again (once they have exited, if they were still stopping).
 *
 * When the operator exits, every daemon and timer is stopped ({@link Spawner.halt}), and
 * they are waited for up to the operator's exit timeout ({@link Spawner.shutdown}); those
 * still running then are abandoned and reported.
 *
 * @module
 */

import { type Clock, realClock, settlesWithin } from "../structs/clock.ts";
import { objectKey, resourceObjectKey } from "../structs/identities.ts";
import type { Index } from "../structs/indices.ts";
import type { ObjectReference } from "../structs/object_refs.ts";
import type { Semaphore } from "../structs/semaphores.ts";
import type { Resource } from "../structs/resources.ts";
import { type DaemonStopped, DaemonStopper } from "../structs/stoppers.ts";
import type { BodySource, RawBody } from "../structs/bodies.ts";
import { type Body, BodyHolder, liveView } from "../structs/views.ts";
import type { ApiClient } from "../client/api.ts";
import type { OperatorSettings } from "../settings/operator_settings.ts";
import { buildResourceKwargs } from "../intents/kwargs_builders.ts";
import type { ResourceKwargs } from "../intents/kwargs.ts";
import type { HandlerMatcher } from "../intents/handler_matching.ts";
import { matcherOf, type OperatorRegistry } from "../intents/registry.ts";
import { isDeletionOngoing } from "../handling/cause_detection.ts";
import type { OperatorMetrics } from "../structs/operator_metrics.ts";
import { createObjectScope, type ObjectScope } from "../handling/object_loggers.ts";
import type { ObjectMemory } from "../handling/memories.ts";
import type { Ownership } from "./leader_election.ts";
import {
  DaemonRunner,
  type ObjectRecord,
  type Spawned,
  type SpawningHandler,
  title,
} from "./daemon_runs.ts";

/** What the engine is made of: one per operator. */
export interface SpawnerOptions {
  /** The API client for applying the handlers' patches. */
  readonly api: ApiClient;
  /** The handlers. */
  readonly registry: OperatorRegistry;
  /** The operator's settings (read when used, so startup handlers may change them). */
  readonly settings: OperatorSettings;
  /**
   * The clock of delays, intervals and idling, and of the `started` and `runtime`
   * arguments; the real one by default.
   */
  readonly clock?: Clock;
  /** The operator's limit of concurrent writes, shared with the object processing. */
  readonly writes?: Semaphore;
  /** The operator's declared indices by name, given to the daemons, timers and filters. */
  readonly indices?: Readonly<Record<string, Index>>;
  /** Where the runs of daemons and timers are counted; nowhere by default. */
  readonly metrics?: OperatorMetrics;
  /**
   * Which objects this replica handles now (leader election, sharding): daemons and timers
   * run only for its objects. All objects are its own when omitted.
   */
  readonly ownership?: Ownership;
}

/** One state of an object, as the processing tells the engine about it. */
export interface SpawningState {
  /** The object's resource. */
  readonly resource: Resource;
  /** The object's latest known body. */
  readonly body: RawBody;
  /** For a body known by its metadata only: where its whole object is read (`fetchBody`). */
  readonly source?: BodySource;
  /** The object is marked for deletion: its daemons and timers must stop. */
  readonly deleted: boolean;
  /** The object is gone from the cluster (a `DELETED` event). */
  readonly gone: boolean;
  /**
   * The object left its watch's selection: out of the operator's sight from now on, its
   * daemons and timers stop as when their filters stop matching, and it is forgotten.
   */
  readonly left: boolean;
  /** The object's memory (its memo). */
  readonly memory: Pick<ObjectMemory, "memo">;
  /** The object's logger. */
  readonly logger: ObjectScope["logger"];
  /** The object's reference. */
  readonly ref: ObjectReference;
  /** Aborted when the processing must give up (waits end early). */
  readonly signal?: AbortSignal;
}

/** What the engine reports back to the processing. */
export interface SpawningOutcome {
  /** Daemons or timers of an object marked for deletion are still exiting. */
  readonly stopping: boolean;
  /** Seconds until they are checked again, while `stopping`. */
  readonly delay?: number;
  /**
   * While `stopping`: settles when they have exited or it is time to check again. The
   * processing waits for it (it may last as long as a daemon takes to exit, so without
   * holding a place that other objects need), then asks {@link Spawner.recheck}.
   */
  readonly exits?: Promise<void>;
}

/** The engine of daemons and timers of one operator; see the module docs. */
export class Spawner {
  readonly #matcher: HandlerMatcher;
  readonly #settings: OperatorSettings;
  readonly #clock: Clock;
  readonly #objects = new Map<string, ObjectRecord>();
  readonly #closing = new AbortController();
  #paused = false;
  readonly #indices: Readonly<Record<string, Index>> | undefined;
  readonly #ownership: Ownership | undefined;
  readonly #runner: DaemonRunner;

  /** An engine over the operator's parts; it spawns nothing until told about objects. */
  constructor(options: SpawnerOptions) {
    this.#matcher = matcherOf(options.registry);
    this.#settings = options.settings;
    this.#clock = options.clock ?? realClock;
    this.#indices = options.indices;
    this.#runner = new DaemonRunner({ ...options, clock: this.#clock });
    this.#ownership = options.ownership;
  }

  /** How many daemons and timers run or are stopping, over all objects. */
  get size(): number {
    let size = 0;
    for (const record of this.#objects.values()) size += record.running.size;
    return size;
  }

  /** How many daemons and how many timers run or are stopping now. */
  running(): { daemon: number; timer: number } {
    const running = { daemon: 0, timer: 0 };
    for (const record of this.#objects.values()) {
      for (const spawned of record.running.values()) running[spawned.handler.kind]++;
    }
    return running;
  }

  /** How many objects the engine keeps anything about. */
  get objects(): number {
    return this.#objects.size;
  }

  /** Whether the resource has any daemons or timers (others are never told about). */
  serves(resource: Resource): boolean {
    const handlers = this.#matcher.handlersFor(resource);
    return handlers.daemon.length + handlers.timer.length > 0;
  }

  /** A new state of an object of a served resource; see the module docs. */
  process(state: SpawningState): SpawningOutcome {
    const { resource, body } = state;
    const key = resourceObjectKey(resource, objectKey(body));
    let record = this.#objects.get(key);
    if (record !== undefined) this.#update(record, body, state.source);

    if (state.gone) {
      if (record === undefined) return NOTHING;
      record.gone = true;
      for (const spawned of record.running.values()) {
        this.#stop(record, spawned, "resource-deleted");
      }
      this.#forgetIfIdle(record);
      return NOTHING;
    }
    if (state.deleted || state.left) {
      if (record === undefined) return NOTHING;
      if (state.left) record.gone = true; // forgotten once its daemons and timers have exited
      for (const spawned of record.running.values()) {
        this.#stop(record, spawned, state.deleted ? "resource-deleted" : "filters-mismatch");
      }
      if (state.left) this.#forgetIfIdle(record);
      if (record.running.size === 0) return NOTHING;
      return this.#awaitExits(record, state.signal);
    }

    if (this.#closing.signal.aborted) return NOTHING; // the operator is exiting: all stopped
    if (this.#ownership !== undefined && !this.#ownership.owns(body)) return NOTHING; // not ours
    const handlers = this.#matcher.selectSpawningHandlers(resource, {
      body,
      kwargs: () => this.#filterKwargs(resource, body, state),
    });
    if (this.#paused) { // all stopped; remember the object to spawn its own on resumption
      if (record === undefined && handlers.length > 0) this.#remember(key, state);
      return NOTHING;
    }
    if (record !== undefined) {
      const wanted = new Set(handlers.map((h) => h.id));
      for (const spawned of record.running.values()) {
        if (!wanted.has(spawned.handler.id)) this.#stop(record, spawned, "filters-mismatch");
      }
    }
    for (const handler of handlers) {
      if (record?.running.has(handler.id) || record?.finished.has(handler.id)) continue;
      record ??= this.#remember(key, state);
      this.#spawn(record, handler);
    }
    if (record !== undefined) this.#forgetIfIdle(record);
    return NOTHING;
  }

  /**
   * The operator pauses (e.g. for a peer of a higher priority): stop every daemon and timer
   * ("operator-pausing") and spawn none until {@link Spawner.resume}; the objects are kept
   * meanwhile.
   */
  pause(): void {
    if (this.#paused || this.#closing.signal.aborted) return;
    this.#paused = true;
    for (const record of this.#objects.values()) {
      for (const spawned of record.running.values()) {
        this.#stop(record, spawned, "operator-pausing");
      }
    }
  }

  /**
   * The operator resumes after {@link Spawner.pause}: spawn again the daemons and timers of
   * the known objects (those still stopping, once they have exited).
   */
  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    for (const record of [...this.#objects.values()]) this.#respawn(record);
  }

  /**
   * Objects stopped being this replica's (a lease lost or given up): stop their daemons
   * and timers ("operator-pausing") and resolve once they have exited, or at the deadline
   * (on the clock's `now()` scale) -- those still running then are reported.
   */
  async revoke(deadline: number): Promise<void> {
    const stopping: [ObjectRecord, Spawned][] = [];
    for (const record of this.#objects.values()) {
      if (this.#ownership?.owns(record.holder.body) ?? true) continue;
      for (const spawned of record.running.values()) {
        this.#stop(record, spawned, "operator-pausing");
        stopping.push([record, spawned]);
      }
    }
    if (stopping.length > 0) {
      const left = Math.max(0, deadline - this.#clock.now());
      const exited = await this.#within(Promise.all(stopping.map(([, s]) => s.exited)), left);
      if (!exited) {
        for (const [record, spawned] of stopping) {
          if (!record.running.has(spawned.handler.id)) continue;
          record.scope.logger.error(
            `${title(spawned.handler)} did not exit in time after the object stopped being ` +
              "this replica's; another replica may start its own meanwhile.",
          );
        }
      }
    }
    for (const record of [...this.#objects.values()]) {
      if (!(this.#ownership?.owns(record.holder.body) ?? true) && record.running.size === 0) {
        if (this.#objects.get(record.key) === record) this.#objects.delete(record.key);
      }
    }
  }

  /** Spawn what applies to the object's latest known state and does not run; see `resume`. */
  #respawn(record: ObjectRecord): void {
    const body = record.holder.body;
    const wanted = !this.#paused && !this.#closing.signal.aborted && !record.gone &&
      !isDeletionOngoing(body) && (this.#ownership?.owns(body) ?? true);
    try {
      const handlers = !wanted ? [] : this.#matcher.selectSpawningHandlers(record.resource, {
        body,
        kwargs: () =>
          buildResourceKwargs({
            resource: record.resource,
            body,
            source: record.holder.source,
            logger: record.scope.logger,
            memo: record.memory.memo,
            indices: this.#indices,
          }, {}),
      });
      for (const handler of handlers) {
        if (record.running.has(handler.id) || record.finished.has(handler.id)) continue;
        this.#spawn(record, handler);
      }
    } catch (error) {
      record.scope.logger.exception(
        "Spawning the daemons and timers again after the pause failed; they are spawned " +
          "with the object's next change.",
        error,
      );
    }
    this.#forgetIfIdle(record);
  }

  /**
   * The operator stops: ask every daemon and timer to stop ("operator-exiting"); nothing is
   * spawned afterwards. {@link Spawner.shutdown} waits for them.
   */
  halt(): void {
    if (this.#closing.signal.aborted) return;
    this.#closing.abort();
    for (const record of this.#objects.values()) {
      for (const spawned of record.running.values()) {
        this.#stop(record, spawned, "operator-exiting");
      }
    }
  }

  /**
   * Stop every daemon and timer ({@link Spawner.halt}) and wait for them, up to `timeout`
   * seconds; those still running then are abandoned.
   */
  async shutdown(timeout: number): Promise<void> {
    this.halt();
    const all: Spawned[] = [];
    for (const record of this.#objects.values()) all.push(...record.running.values());
    if (all.length === 0) return;
    const exited = await this.#within(Promise.all(all.map((s) => s.exited)), timeout);
    if (exited) return;
    for (const record of this.#objects.values()) {
      for (const spawned of record.running.values()) {
        record.scope.logger.warning(
          `${title(spawned.handler)} did not exit within ${timeout}s of the operator's exit; ` +
            "abandoning it.",
        );
      }
    }
  }

  /** The arguments of filter callbacks: those of the handler, without the run's. */
  #filterKwargs(resource: Resource, body: RawBody, state: SpawningState): ResourceKwargs {
    return buildResourceKwargs({
      resource,
      body,
      source: state.source,
      logger: state.logger,
      memo: state.memory.memo,
      indices: this.#indices,
    }, {});
  }

  #remember(key: string, state: SpawningState): ObjectRecord {
    const holder = new BodyHolder(state.body, state.source);
    const live = liveView(holder, [], "body") as unknown as Body;
    const record: ObjectRecord = {
      resource: state.resource,
      key,
      holder,
      scope: createObjectScope(live, {}, state.ref),
      memory: state.memory,
      version: state.body.metadata?.resourceVersion,
      changedAt: this.#clock.now(),
      running: new Map(),
      finished: new Set(),
      gone: false,
    };
    this.#objects.set(key, record);
    return record;
  }

  #update(record: ObjectRecord, body: RawBody, source: BodySource | undefined): void {
    record.holder.update(body, source);
    const version = body.metadata?.resourceVersion;
    if (version !== record.version) {
      record.version = version;
      record.changedAt = this.#clock.now();
    }
  }

  /** Drop the record when nothing of it is needed any more. */
  #forgetIfIdle(record: ObjectRecord): void {
    if (record.running.size > 0) return;
    if (this.#paused && !record.gone) return; // kept to be spawned again on resumption
    if (record.gone || record.finished.size === 0) {
      if (this.#objects.get(record.key) === record) this.#objects.delete(record.key);
    }
  }

  #stop(
    record: ObjectRecord,
    spawned: Spawned,
    reason: NonNullable<DaemonStopped["reason"]>,
  ): void {
    if (spawned.stoppedAt !== undefined) return;
    spawned.stoppedAt = this.#clock.now();
    record.scope.logger.debug(`${title(spawned.handler)} is asked to stop (${reason}).`);
    spawned.stopper.stop(reason);
  }

  #spawn(record: ObjectRecord, handler: SpawningHandler): void {
    const stopper = new DaemonStopper();
    let settle!: () => void;
    const exited = new Promise<void>((resolve) => (settle = resolve));
    const spawned: Spawned = { handler, stopper, stoppedAt: undefined, exited, abandoned: false };
    record.running.set(handler.id, spawned);
    record.scope.logger.debug(`${title(handler)} is spawned.`);
    const task = this.#runner.run(record, handler, stopper);
    void task.then(
      (ended) => ended,
      (error) => {
        record.scope.logger.exception(`${title(handler)} has crashed.`, error);
        return true;
      },
    ).then((endedOnItsOwn) => {
      if (endedOnItsOwn && !stopper.isSet) {
        record.finished.add(handler.id);
        record.scope.logger.debug(
          `${title(handler)} has ended on its own; it is not spawned again for this object.`,
        );
      } else {
        record.scope.logger.debug(`${title(handler)} has exited.`);
      }
      if (record.running.get(handler.id) === spawned) record.running.delete(handler.id);
      if (stopper.reason === "operator-pausing" && !this.#paused) {
        this.#respawn(record); // resumed while it was still stopping
      } else {
        this.#forgetIfIdle(record);
      }
      settle();
    });
  }

  /**
   * After waiting for {@link SpawningOutcome.exits}: whether the object's daemons and
   * timers are still exiting. If so, they are reported, so that the object's newer events
   * get their turn before the next wait.
   */
  recheck(resource: Resource, body: RawBody): SpawningOutcome {
    const record = this.#objects.get(resourceObjectKey(resource, objectKey(body)));
    if (record === undefined) return NOTHING;
    return this.#pendingExits(record, true) === undefined ? NOTHING : STILL_STOPPING;
  }

  /**
   * The object's stopping daemons and timers: a wait for their exits until the next check
   * (every polling interval, or sooner when a daemon's cancellation time is up).
   */
  #awaitExits(record: ObjectRecord, signal?: AbortSignal): SpawningOutcome {
    const pending = this.#pendingExits(record, false);
    if (pending === undefined) return NOTHING;
    // The operator's exit does not end this wait: the exits it has asked for are waited
    // for here as at any other time, so that the object is released as soon as they are
    // over (returning at once instead would have the object processed again at once,
    // over and over, until they are).
    if (signal?.aborted) return STILL_STOPPING;
    const exits = this.#within(Promise.all(pending.exits), pending.next, signal).then(() => {});
    return { stopping: true, delay: 0, exits };
  }

  /**
   * The exits still awaited and the seconds until the next check; `undefined` when none is.
   * Daemons whose cancellation time is up are abandoned (and the object released). After a
   * wait (`waited`), those still exiting are reported.
   */
  #pendingExits(
    record: ObjectRecord,
    waited: boolean,
  ): { readonly exits: Promise<void>[]; readonly next: number } | undefined {
    const polling = this.#settings.background.cancellationPolling;
    const now = this.#clock.now();
    let next: number | undefined;
    const exits: Promise<void>[] = [];
    for (const spawned of record.running.values()) {
      if (spawned.abandoned) continue;
      const handler = spawned.handler;
      let check = handler.kind === "daemon" && handler.cancellationPolling !== null
        ? handler.cancellationPolling
        : polling;
      if (handler.kind === "daemon" && handler.cancellationTimeout !== null) {
        const deadline = spawned.stoppedAt! + (handler.cancellationBackoff ?? 0) +
          handler.cancellationTimeout;
        if (now >= deadline) {
          spawned.abandoned = true;
          record.scope.logger.warning(
            `${title(handler)} did not exit in time; leaving it orphaned and releasing ` +
              "the object.",
          );
          continue;
        }
        check = Math.min(check, deadline - now);
      }
      if (waited) {
        record.scope.logger.debug(`${title(handler)} is still exiting; waiting ${check}s more.`);
      }
      exits.push(spawned.exited);
      next = Math.min(next ?? Infinity, check);
    }
    return next === undefined ? undefined : { exits, next };
  }

  /**
   * Whether the promise settles within `seconds` on the engine's clock (the wait also ends,
   * with `false`, when any of the signals aborts).
   */
  #within(
    promise: Promise<unknown>,
    seconds: number,
    ...signals: (AbortSignal | undefined)[]
  ): Promise<boolean> {
    return settlesWithin(promise, seconds, this.#clock, ...signals);
  }
}

const NOTHING: SpawningOutcome = Object.freeze({ stopping: false });

const STILL_STOPPING: SpawningOutcome = Object.freeze({ stopping: true, delay: 0 });
