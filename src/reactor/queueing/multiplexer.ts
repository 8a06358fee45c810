/**
 * Per-object queueing: the watch streams of all resources are fanned out to one worker
 * per object, so that the events of one object are processed strictly in order while
 * different objects are processed concurrently.
 *
 * Only the latest state of an object matters (level triggering): while its worker is
 * busy, a newer event replaces the one still waiting, and a short batch window lets a
 * burst of events settle before the latest of them is processed. An idle worker costs
 * only a record and a slot on a shared timetable (no timer or suspended function of its
 * own), and ends after the idle timeout; nothing about the object is kept after that.
 *
 * Memory stays bounded when objects arrive faster than they are processed: at most
 * `startLimit` objects start their processing at a time (a processing that takes
 * long gives its place up after `startHold` seconds, so slow handlers never hold the
 * others up), and once `backlogLimit` objects wait with unprocessed events (past their
 * batch window: objects within it wait for time, not for a place), `push()` returns a
 * promise that a listing's feeder should await before pushing more: the events then stay
 * in the watch streams (and on the server) instead of piling up here.
 *
 * The places are taken fairly (`lanes.ts`, `places.ts`): live changes before retries and
 * revisits before listings, each lane after its handicap (later, never starved), and within
 * a lane the tenants (`settings.queueing.fairness`: the namespace by default) take turns.
 * Live events ask their feeder to wait only at the burst limit
 * (`settings.queueing.burstLimit`) of their own objects: a big listing does not hold back
 * the changes made now, and one tenant's burst is taken in, so that the changes of another
 * tenant behind it in a watch of all namespaces are read and served in their turn (why, and
 * what it costs: `backlog.ts`).
 *
 * After the processor patched an object, the watch stream still carries the states from
 * before the patch for a while. The processor reports the `resourceVersion` of its
 * patch's response, and the worker then holds back older states until the patched one
 * (or a newer one) arrives, or until the consistency timeout passes, so that a handler
 * never runs again on a state that it has already changed.
 *
 * The processor may also ask for the object to be processed again after a delay (e.g.
 * when a handler is to be retried later): the worker then stays and processes the latest
 * state when the time comes, unless a newer event comes first.
 *
 * @module
 */

import type { ObservedEvent, RawBody } from "../../structs/bodies.ts";
import type { Resource } from "../../structs/resources.ts";
import { type Clock, realClock, settlesWithin } from "../../structs/clock.ts";
import { describeError } from "../../structs/log_formats.ts";
import {
  type BatchingSettings,
  errorDelayAfter,
  type PersistenceSettings,
} from "../../settings/processing_settings.ts";
import type { Logger } from "../../structs/loggers.ts";
import { reactorLogger } from "../default_logger.ts";
import { AWAITED, type Place, Places } from "./places.ts";
import { Backlog } from "./backlog.ts";
import { LANE_HANDICAPS, laneOf, LISTINGS, RETRIES } from "./lanes.ts";
import { Tenants } from "./tenants.ts";
import { WorkerWaits } from "./worker_waits.ts";
import { Parking } from "./parking.ts";
import { QueueingSettings } from "../../settings/queueing_settings.ts";
import { ObjectTable } from "../objects/object_table.ts";
import type { ObjectEntry } from "../objects/object_entries.ts";
import { wholeEvent } from "../objects/deferred_states.ts";
import {
  describeObject,
  isOwnEcho,
  LiveWorkers,
  newWorker,
  type Phase,
  PlaceSeeking,
  processingContext,
  type Processor,
  renew,
  waitingOf,
  type Worker,
} from "./workers.ts";

/** What a {@link Multiplexer} is made of. */
export interface MultiplexerOptions {
  /** Handles the events, one object at a time. */
  readonly processor: Processor;
  /** Batching and worker settings; read again whenever used, so they may change. */
  readonly batching: BatchingSettings;
  /** Whose objects take turns, and the burst limit; read when used (the defaults without). */
  readonly queueing?: Pick<QueueingSettings, "fairness" | "burstLimit">;
  /**
   * How long to wait for the echo of our own patch (`consistencyTimeout`, in seconds; 0
   * disables waiting); without it, patched states are not awaited.
   */
  readonly persistence?: Pick<PersistenceSettings, "consistencyTimeout">;
  /** Time source; the real clock by default. */
  readonly clock?: Clock;
  /** Where to report failures and progress; the `kopf.reactor` logger by default. */
  readonly logger?: Logger;
  /** How many objects may start processing at a time ({@link DEFAULT_START_LIMIT}). */
  readonly startLimit?: number;
  /** Seconds after which a processing gives its start place up ({@link START_HOLD}). */
  readonly startHold?: number;
  /** Each lane's handicap in seconds, by lane ({@link LANE_HANDICAPS}). */
  readonly handicaps?: readonly number[];
  /**
   * How many objects may wait with unprocessed events, past their batch window, before
   * `push()` asks the feeder to wait ({@link DEFAULT_BACKLOG_LIMIT}); it asks until half
   * as many are left.
   */
  readonly backlogLimit?: number;
  /**
   * The object table, where each object's worker is kept on its record (the operator's, so
   * that the queue finds an object where the watches noted it); a table of its own if none.
   */
  readonly objects?: ObjectTable;
}

/**
 * How many objects start processing at a time by default: thousands of objects arriving
 * together otherwise all start at once and hold their half-done states while waiting for
 * their writes, long enough for the JS engine to move them to its old generation. As many
 * as the writes that may be in flight at once (the processor's write limit): more started
 * processings would only wait for a write, and every young collection copies each of them.
 */
export const DEFAULT_START_LIMIT = 32;

/** Seconds after which a processing gives its start place up to others. */
export const START_HOLD = 1;

/**
 * How many objects may wait with unprocessed events before the feeding is slowed down: a
 * few times the start limit, so that when the feeding resumes (at half of it) more
 * objects still wait than may start, and the processings never run dry meanwhile. More only
 * keeps parsed states in memory for longer, long enough for the JS engine to move them to
 * its old generation: with 1,000, a burst of 10,000 objects cost 9% more CPU.
 */
export const DEFAULT_BACKLOG_LIMIT = 100;

/** The burst limit without settings: `settings.queueing.burstLimit`'s default. */
const DEFAULT_BURST_LIMIT = new QueueingSettings().burstLimit;

/** Seconds between the reports of the handling that still runs after the exit timeout. */
const STILL_RUNNING_REPORTS = 10;

/**
 * Routes events to one worker per object. Feed it with {@link Multiplexer.push}; stop it
 * with {@link Multiplexer.shutdown}. One instance can serve all resources of an
 * operator, which makes `workerLimit` a limit for the whole operator.
 */
export class Multiplexer {
  readonly #processor: Processor;
  readonly #batching: BatchingSettings;
  readonly #persistence: Pick<PersistenceSettings, "consistencyTimeout"> | undefined;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #objects: ObjectTable;
  readonly #live = new LiveWorkers();
  readonly #parked: Parking;
  readonly #stopping = new AbortController();
  readonly #cancelled = new AbortController();
  readonly #places: Places;
  readonly #waits: WorkerWaits;
  readonly #backlog: Backlog;
  readonly #tenants: Tenants;
  /** The resources served or fed, by key (the newest record of each): gauges at 0 for them. */
  readonly #served = new Map<string, Resource>();
  #busy = 0;

  /** Create an idle multiplexer; workers start as events arrive. */
  constructor(options: MultiplexerOptions) {
    this.#processor = options.processor;
    this.#batching = options.batching;
    this.#objects = options.objects ?? new ObjectTable(undefined);
    this.#persistence = options.persistence;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? reactorLogger();
    this.#parked = new Parking(this.#clock, this.#batching, {
      wake: (worker) => this.#wake(worker),
      recount: (worker) => this.#recount(worker),
    });
    this.#places = new Places({
      workerLimit: () => this.#batching.workerLimit,
      startLimit: options.startLimit ?? DEFAULT_START_LIMIT,
      startHold: options.startHold ?? START_HOLD,
      handicaps: options.handicaps ?? LANE_HANDICAPS,
      clock: this.#clock,
    });
    const queueing = options.queueing;
    const burstLimit = () => queueing?.burstLimit ?? DEFAULT_BURST_LIMIT;
    this.#backlog = new Backlog(options.backlogLimit ?? DEFAULT_BACKLOG_LIMIT, burstLimit);
    this.#tenants = new Tenants(() => queueing, this.#logger);
    this.#waits = new WorkerWaits({
      batching: this.#batching,
      clock: this.#clock,
      logger: this.#logger,
      stopping: this.#stopping.signal,
      enter: (worker, phase) => this.#enter(worker, phase),
    });
  }

  /** How many object workers are alive (busy, waiting or idling). */
  get size(): number {
    return this.#live.size;
  }

  /** How many objects wait with events not yet taken into processing. */
  get backlog(): number {
    return this.#backlog.size;
  }

  /** How many objects are being processed now. */
  get busy(): number {
    return this.#busy;
  }

  /**
   * The objects waiting with unprocessed states, and the oldest's wait in seconds, per
   * resource (0 for each one served or fed): the queue's gauges. Walks all workers.
   */
  waiting(): Map<Resource, { depth: number; oldest: number }> {
    return waitingOf(this.#live, this.#clock.now(), this.#served.values());
  }

  /** The resources the watches serve: their gauges show 0 from the start, not "no data". */
  serve(resources: Iterable<Resource>): void {
    for (const resource of resources) this.#served.set(resource.key, resource);
  }

  /** Whether the shutdown has begun. */
  get stopping(): boolean {
    return this.#stopping.signal.aborted;
  }

  /** Whether the object has a live worker. */
  has(resource: Resource, body: RawBody): boolean {
    return this.#objects.peek(resource, body)?.work !== undefined;
  }

  /**
   * Queue an event for its object. It replaces the object's event still waiting, if
   * any. After the shutdown has begun, only objects with a live worker accept events.
   *
   * Returns a promise when the backlog is full: the feeder should wait for it before
   * pushing more (it resolves once the backlog is down to half, or at the shutdown). For
   * live events, only the objects of live events count, against the burst limit (see the
   * module docs). With `again`, a state waiting is kept (it is processed anyway): the object
   * is processed again, as a revisit, for changes noted elsewhere, as of its children.
   * `known` is the object's record where the caller holds it already (it is not looked up).
   */
  push(
    resource: Resource,
    event: ObservedEvent,
    again = false,
    known: ObjectEntry | undefined = this.#objects.peek(resource, event.object),
  ): Promise<void> | undefined {
    let worker = known?.work as Worker | undefined;
    if (worker === undefined) {
      if (this.stopping) {
        this.#logger.debug(
          `Ignoring an event during the shutdown: ${describeObject(resource, event.object)}`,
        );
        return undefined;
      }
      const entry = known ?? this.#objects.entry(resource, event.object);
      const tenant = this.#tenants.of(resource, event.object);
      worker = newWorker(entry, event, this.#clock.now(), laneOf(event.type, again), tenant);
      entry.work = worker;
      this.#live.add(worker);
      this.#served.set(resource.key, resource);
    } else {
      if (again && worker.pending !== undefined) return undefined;
      renew(worker, event, laneOf(event.type, again), this.#clock.now(), this.#places, again);
    }
    // Started first: a worker that begins its batch window is not counted in the backlog.
    if (worker.phase === "parked") this.#start(worker);
    this.#recount(worker);
    return event.type === null ? this.#backlog.congestion : this.#backlog.liveCongestion;
  }

  /**
   * Pass by, before it is fed, a state of the object in this version that a push would pass
   * by at once: the state our last write made, which the parked worker waits for with nothing
   * to do (see `passesEcho`). True if it is passed by; else it is to be pushed as usual.
   */
  passEcho(entry: ObjectEntry, version: string): boolean {
    const worker = entry.work as Worker | undefined;
    return worker !== undefined && !this.stopping && this.#parked.passEcho(worker, version);
  }

  /**
   * Resolve once the objects that `picks` chooses are not being processed any more: the
   * processing running now for them ends (states waiting are left to the processor, which
   * decides what to do with them). E.g. after a lease is lost: nothing may still run for
   * the objects it covered before another replica takes them.
   */
  drain(picks: (resource: Resource, body: RawBody) => boolean): Promise<void> {
    return this.#live.drain(picks);
  }

  /** Resolve when no worker is alive (at once if none is). */
  depleted(): Promise<void> {
    return this.#live.depleted();
  }

  /**
   * The stop begins: accept no new objects, wake the workers that wait (for a batch window,
   * an echo, a retry) and end the idle ones. {@link Multiplexer.shutdown} waits for the rest.
   */
  halt(): void {
    if (this.stopping) return;
    this.#stopping.abort();
    this.#backlog.relieve();
    for (const worker of [...this.#live]) {
      if (worker.phase !== "parked") worker.waiter?.("stopped");
      else this.#end(worker); // idle, or waiting for a revisit: nothing to finish
    }
  }

  /**
   * Stop ({@link Multiplexer.halt}), let the workers finish what they hold for up to
   * `timeout` seconds, then abort the processing's waits (`context.signal`: delays, retries,
   * waits for others). A handler cannot be cancelled: what still runs is awaited to its end,
   * however long, so that its outcome is stored before the operator lets go -- it is
   * reported every so often meanwhile; only a second signal, or the end of the pod's grace
   * period, cuts it short.
   */
  async shutdown(timeout: number): Promise<void> {
    this.halt();
    if (await this.#depletedWithin(timeout)) return;
    this.#logger.warning(
      `Aborting the waits of ${this.#live.size} object(s) unfinished at exit; handlers ` +
        "that run go on, and their outcomes are stored.",
    );
    this.#cancelled.abort();
    const every = Math.max(timeout, STILL_RUNNING_REPORTS);
    while (!await this.#depletedWithin(every)) {
      this.#logger.warning(
        `Waiting for the handling of ${this.processing().join(", ")} to finish and store its ` +
          "outcome (a second signal exits at once).",
      );
    }
  }

  /** The objects being processed now, as messages name them (`kopfexamples ns/name`). */
  processing(): string[] {
    return this.#live.processing();
  }

  async #depletedWithin(seconds: number): Promise<boolean> {
    if (this.#live.size === 0) return true;
    return await settlesWithin(this.depleted(), seconds, this.#clock) || this.#live.size === 0;
  }

  /** Keep the backlog count (and the feeder's congestion) in step with a worker's state. */
  #recount(worker: Worker): void {
    const phase = worker.phase;
    // A parked worker's waiting state is an echo of ours held for the last write's.
    const queued = phase === "placing" ||
      (worker.pending !== undefined && phase !== "holding" && phase !== "batching" &&
        phase !== "parked");
    this.#backlog.recount(worker, queued, worker.lane === LISTINGS, this.stopping);
  }

  /** Move the worker to another phase of its loop, and count it as it is then. */
  #enter(worker: Worker, phase: Phase): void {
    worker.phase = phase;
    this.#recount(worker);
  }

  #start(worker: Worker): void {
    this.#parked.cancel(worker);
    worker.phase = "running";
    void this.#run(worker);
  }

  #wake(worker: Worker): void {
    if (worker.phase !== "parked" || !this.#live.has(worker)) return;
    if (worker.pending !== undefined && !this.stopping) {
      // An echo held for our last write's, which did not come in time: processed now.
      this.#start(worker);
      this.#recount(worker);
      return;
    }
    if (worker.revisit === undefined || this.stopping) {
      this.#end(worker);
      return;
    }
    worker.pending = worker.revisit.event;
    worker.lane = RETRIES; // behind the changes made now, not behind the listings
    worker.waitingSince = this.#clock.now();
    this.#start(worker);
    this.#recount(worker);
  }

  /** Forget a worker; after this, a push for its object starts a new one. */
  #end(worker: Worker): void {
    this.#parked.cancel(worker);
    worker.pending =
      worker.revisit =
      worker.expected =
      worker.arrivals =
        undefined;
    this.#enter(worker, "parked");
    const entry = worker.entry;
    if (entry.work === worker) entry.work = undefined;
    if (this.#live.delete(worker)) this.#objects.release(entry);
  }

  /** Goes on with a worker's loop when its place comes: one function for all the waits. */
  readonly #resume = (seeking: PlaceSeeking, place: Place | undefined): void => {
    void this.#run(seeking.worker, seeking, place);
  };

  /**
   * Process the worker's events until it is idle (then parked), gone (then ended), or
   * waiting for a place: then the loop ends, and a new run goes on with it (`placed`, and
   * the `place` that came of it) when the place comes.
   */
  async #run(worker: Worker, placed?: PlaceSeeking, place?: Place): Promise<void> {
    let failures = placed?.failures ?? 0; // in a row, for the error delays
    let handedOver = false; // parked, or waiting for a place: the worker lives on
    try {
      for (;;) {
        let event: ObservedEvent;
        if (placed !== undefined) {
          event = placed.event;
          placed = undefined;
          // Not within the call that gave the place back, as a promise's outcome would not be.
          place = await place;
        } else {
          if (worker.pending === undefined) {
            if (this.stopping) return;
            this.#parked.park(worker);
            handedOver = true;
            return;
          }
          // Before any wait: an echo of ours that needs nothing costs no window nor turn.
          if (this.#parked.rest(worker)) return void (handedOver = true);
          worker.revisit = undefined;
          // Each step is entered synchronously when it applies (a push that starts a worker
          // counts it as it then is), and costs no await when it does not.
          if (this.#batching.batchWindow > 0) await this.#waits.settle(worker);
          const expected = worker.expected;
          if (expected !== undefined) {
            if (!await this.#waits.awaitEcho(worker)) return;
            if (isOwnEcho(worker, expected)) {
              // Our own write's state, which the processing that wrote it found to need
              // nothing more: not queued for a place, its parsed body is garbage at once.
              worker.pending = worker.arrivals = undefined;
              this.#recount(worker);
              continue;
            }
          }
          const whole = wholeState(worker, worker.pending!, this.#logger);
          worker.pending = worker.arrivals = undefined;
          if (whole === undefined) {
            this.#recount(worker);
            continue;
          }
          event = whole;
          this.#enter(worker, "placing");
          const seeking = worker.seeking = new PlaceSeeking(
            worker,
            worker.lane,
            worker.tenant,
            event,
            failures,
            this.#resume,
          );
          const taken = this.#places.take(this.#cancelled.signal, seeking);
          if (taken === AWAITED) return void (handedOver = true);
          // Free at once, and awaited all the same: a push never runs a processing synchronously.
          place = await taken;
        }
        const failure = await this.#processOne(worker, event, place);
        if (failure === ABORTED) return;
        if (failure === undefined) {
          failures = 0;
        } else {
          if (this.#cancelled.signal.aborted) return; // aborted on purpose; nothing to report
          const delay = errorDelayAfter(this.#batching.errorDelays, failures++);
          if (!await this.#waits.backOff(worker, event, failure.error, delay)) return;
        }
        // A deleted object sends nothing more: do not keep its worker idling.
        if (event.type === "DELETED" && worker.pending === undefined && !worker.expected) return;
      }
    } catch (error) {
      // Only a bug of this module can get here; report it rather than lose the worker silently.
      this.#logger.error(`The worker of ${worker.entry.key} has crashed: ${describeError(error)}`);
    } finally {
      // Synchronously after the last check of `pending`: a later push starts a new worker.
      if (!handedOver) this.#end(worker);
    }
  }

  /**
   * Process the state in its place, noting what the processor asks (a revisit, our echo):
   * its failure, if any, or {@link ABORTED} if the operator's stop took the place away.
   */
  async #processOne(
    worker: Worker,
    event: ObservedEvent,
    place: Place | undefined,
  ): Promise<{ readonly error: unknown } | typeof ABORTED | undefined> {
    worker.place = place;
    worker.seeking = undefined;
    this.#enter(worker, "processing");
    if (worker.place === undefined) return ABORTED;
    this.#busy++;
    worker.current = event;
    try {
      const context = processingContext(
        worker,
        this.#places,
        this.#cancelled.signal,
        this.#stopping.signal,
      );
      const result = await this.#processor.reconcile(event, context);
      const now = this.#clock.now();
      if (result?.delay !== undefined && event.type !== "DELETED") {
        worker.revisit = { event, at: now + Math.max(0, result.delay) };
      }
      const version = result?.expectedResourceVersion;
      const timeout = this.#persistence?.consistencyTimeout ?? 0;
      if (version !== undefined && timeout > 0) {
        worker.expected = { version, deadline: now + timeout, echoes: result?.echoes };
      }
      return undefined;
    } catch (error) {
      return { error };
    } finally {
      this.#leaveProcessing(worker);
    }
  }

  /** The processing has ended: the places go back, and whoever waited for it is told. */
  #leaveProcessing(worker: Worker): void {
    if (worker.place !== undefined) this.#places.give(worker.place);
    worker.place = undefined;
    if (--this.#busy === 0 && this.#backlog.size === 0) this.#places.idle();
    worker.current = undefined;
    this.#enter(worker, "running");
    const idle = worker.idle;
    if (idle !== undefined) {
      worker.idle = undefined;
      for (const resolve of idle) resolve();
    }
  }
}

/** The processing did not begin: the operator's stop took its place away. */
const ABORTED = Symbol("aborted");

/**
 * The state taken for processing, with its whole body (see `objects/deferred_states.ts`);
 * `undefined`, reported, for a deferred one whose text turns out not to be the event its
 * first bytes said (an API server sends none such): the object's next event brings its state.
 */
function wholeState(
  worker: Worker,
  event: ObservedEvent,
  logger: Logger,
): ObservedEvent | undefined {
  try {
    return wholeEvent(event);
  } catch (error) {
    const { resource, namespace, name } = worker.entry;
    logger.error(
      `A watch event of ${describeObject(resource, { metadata: { namespace, name } })} could ` +
        `not be read; its state is skipped: ${describeError(error)}`,
    );
    return undefined;
  }
}
