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
 * `admissionLimit` objects start their processing at a time (a processing that takes
 * long gives its place up after `admissionHold` seconds, so slow handlers never hold the
 * others up), and once `backlogLimit` objects wait with unprocessed events (past their
 * batch window: objects within it wait for time, not for a place), `push()` returns a
 * promise that the feeder should await before pushing more: the events then stay in the
 * watch streams (and on the server) instead of piling up here.
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

import type { ObjectEvent, RawBody } from "../structs/bodies.ts";
import type { Resource } from "../structs/resources.ts";
import { type Clock, realClock, settlesWithin } from "../structs/clock.ts";
import { Deadlines, type Scheduled } from "./deadlines.ts";
import { Semaphore } from "../structs/semaphores.ts";
import { describeError, summarizeError } from "../structs/log_formats.ts";
import { type Deadline, DeadlineQueue, type Expiring } from "../structs/deadline_queues.ts";
import { isAtLeastVersion, objectKey } from "../structs/identities.ts";
import type { BatchingSettings, PersistenceSettings } from "../settings/operator_settings.ts";
import type { Logger } from "../structs/loggers.ts";
import { reactorLogger } from "./default_logger.ts";

/**
 * Waits for a promise without holding a place among the processings of objects (e.g. for
 * other objects to be processed first); the place is taken again afterwards.
 */
export type AsideWait = (promise: Promise<void>) => Promise<void>;

/** What the processor gets besides the event. */
export interface ProcessingContext {
  /** The resource of the object. */
  readonly resource: Resource;
  /** The object's key within the resource: its uid, or `namespace/name` without one. */
  readonly key: string;
  /** Aborted when the shutdown stops waiting for the processing: give up now. */
  readonly signal: AbortSignal;
  /** Aborted when the shutdown begins: finish soon, do not start long waits. */
  readonly stopping: AbortSignal;
  /** See {@link AsideWait}. */
  readonly aside: AsideWait;
}

/** What the processor may report back. */
export interface ProcessingResult {
  /**
   * The `resourceVersion` from the response of the last patch made to the object. Older
   * states are then not processed until this one arrives (or the consistency timeout).
   */
  readonly expectedResourceVersion?: string;
  /**
   * Seconds after which the object's latest state is processed again even if no newer
   * event arrives (e.g. when a delayed handler becomes due); a newer event comes first
   * if it arrives earlier. The worker stays alive until then.
   */
  readonly delay?: number;
}

/** The function that handles one state of one object. */
export type Processor = (
  event: ObjectEvent,
  context: ProcessingContext,
) => Promise<ProcessingResult | void>;

/** What a {@link Multiplexer} is made of. */
export interface MultiplexerOptions {
  /** Handles the events, one object at a time. */
  readonly processor: Processor;
  /** Batching and worker settings; read again whenever used, so they may change. */
  readonly batching: BatchingSettings;
  /**
   * How long to wait for the echo of our own patch (`consistencyTimeout`, in seconds; 0
   * disables waiting); without it, patched states are not awaited.
   */
  readonly persistence?: Pick<PersistenceSettings, "consistencyTimeout">;
  /** Time source; the real clock by default. */
  readonly clock?: Clock;
  /** Where to report failures and progress; the `kopf.reactor` logger by default. */
  readonly logger?: Logger;
  /** How many objects may start processing at a time ({@link DEFAULT_ADMISSION_LIMIT}). */
  readonly admissionLimit?: number;
  /** Seconds after which a processing gives its admission place up ({@link ADMISSION_HOLD}). */
  readonly admissionHold?: number;
  /**
   * How many objects may wait with unprocessed events, past their batch window, before
   * `push()` asks the feeder to wait ({@link DEFAULT_BACKLOG_LIMIT}); it asks until half
   * as many are left.
   */
  readonly backlogLimit?: number;
}

/**
 * How many objects start processing at a time by default: thousands of objects arriving
 * together otherwise all start at once and hold their half-done states while waiting for
 * their writes, long enough for the JS engine to move them to its old generation. As many
 * as the writes that may be in flight at once (the processor's write limit): more started
 * processings would only wait for a write, and every young collection copies each of them.
 */
export const DEFAULT_ADMISSION_LIMIT = 32;

/** Seconds after which a processing gives its admission place up to others. */
export const ADMISSION_HOLD = 1;

/**
 * How many objects may wait with unprocessed events before the feeding is slowed down: a
 * few times the admission limit, so that when the feeding resumes (at half of it) more
 * objects still wait than may start, and the processings never run dry meanwhile. More only
 * keeps parsed states in memory for longer, long enough for the JS engine to move them to
 * its old generation: with 1,000, a burst of 10,000 objects cost 9% more CPU.
 */
export const DEFAULT_BACKLOG_LIMIT = 100;

/** A short human-readable reference to an object, for log messages. */
export function describeObject(resource: Resource, body: RawBody): string {
  const meta = body.metadata ?? {};
  const name = meta.namespace ? `${meta.namespace}/${meta.name}` : `${meta.name}`;
  return `${resource.plural} ${name}`;
}

type WakeReason = "arrived" | "stopped" | "timeout";

interface Expectation {
  readonly version: string;
  readonly deadline: number;
}

/**
 * A place among the processings. Made once per admission, in place of closures: it gives
 * the places back, and waits in the queue of admission holds until given back or due.
 */
class Admission implements Expiring {
  /** Its hold in the queue of holds; `undefined` once given back or given up. */
  hold: Deadline | undefined;

  constructor(
    /** Gives the worker place back; `undefined` once given back. */
    public worker: (() => void) | undefined,
    /** Gives the admission place back; `undefined` once given back or given up. */
    public admission: (() => void) | undefined,
  ) {}

  /** Held long enough: the admission place is given up to others. */
  expire(): void {
    const release = this.admission;
    this.admission = this.hold = undefined;
    release?.();
  }
}

interface Worker extends Scheduled {
  readonly resource: Resource;
  readonly key: string;
  /** The workers of its resource, where it is kept while alive. */
  readonly siblings: Map<string, Worker>;
  /** The latest state not yet taken for processing. */
  pending: ObjectEvent | undefined;
  /** Since when (the clock's seconds) a state has been waiting, for the queue's metrics. */
  waitingSince: number;
  /** Wakes the worker's current wait, if it waits. */
  waiter: ((reason: WakeReason) => void) | undefined;
  /** Whether its loop runs; else it is parked on the timetable (idle, or due to revisit). */
  running: boolean;
  /** The version of our own last patch, awaited before older states are processed. */
  expected: Expectation | undefined;
  /** A state to process again at a time, as the processor asked. */
  revisit: { readonly event: ObjectEvent; readonly at: number } | undefined;
  /** Whether it holds back stale states until our patch arrives. */
  holding: boolean;
  /** Whether it waits out the batch window (not yet ready to be processed). */
  batching: boolean;
  /** Whether it has taken a state and waits for a place to process it. */
  admitting: boolean;
  /** Whether it is counted in the backlog. */
  queued: boolean;
  /** The state being processed now, if any. */
  current: ObjectEvent | undefined;
  /** Called once the current processing ends (see {@link Multiplexer.drain}). */
  idle: (() => void)[] | undefined;
  /** The places it holds while processing. */
  admission: Admission | undefined;
  /** What its processings get: made at its first one, not for every event. */
  context: ProcessingContext | undefined;
}

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
  /** The workers per resource (by its key), then per object: no joint key built per event. */
  readonly #workers = new Map<string, Map<string, Worker>>();
  #size = 0;
  readonly #parked: Deadlines<Worker>;
  readonly #stopping = new AbortController();
  readonly #cancelled = new AbortController();
  readonly #limiter: Semaphore;
  readonly #admission: Semaphore;
  /**
   * The admission holds: one timer for all (they are all of one length), kept while
   * admissions come one after another rather than armed again for each of them.
   */
  readonly #holds: DeadlineQueue;
  readonly #backlogLimit: number;
  #backlog = 0;
  #busy = 0;
  #congestion: { promise: Promise<void>; resolve: () => void } | undefined;
  #depletionWaiters: (() => void)[] = [];

  /** Create an idle multiplexer; workers start as events arrive. */
  constructor(options: MultiplexerOptions) {
    this.#processor = options.processor;
    this.#batching = options.batching;
    this.#persistence = options.persistence;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? reactorLogger();
    this.#parked = new Deadlines(this.#clock, (worker) => this.#wake(worker));
    this.#limiter = new Semaphore(() => this.#batching.workerLimit);
    this.#admission = new Semaphore(options.admissionLimit ?? DEFAULT_ADMISSION_LIMIT);
    this.#holds = new DeadlineQueue(options.admissionHold ?? ADMISSION_HOLD, this.#clock, {
      keepTimer: true,
    });
    this.#backlogLimit = Math.max(1, options.backlogLimit ?? DEFAULT_BACKLOG_LIMIT);
  }

  /** How many object workers are alive (busy, waiting or idling). */
  get size(): number {
    return this.#size;
  }

  /** How many objects wait with events not yet taken into processing. */
  get backlog(): number {
    return this.#backlog;
  }

  /** How many objects are being processed now. */
  get busy(): number {
    return this.#busy;
  }

  /**
   * The objects waiting with unprocessed states, and how long the oldest has waited (in
   * seconds), per resource: what the queue's metrics show. Walks all workers: for scrapes.
   */
  waiting(): Map<Resource, { depth: number; oldest: number }> {
    const now = this.#clock.now();
    const result = new Map<Resource, { depth: number; oldest: number }>();
    for (const worker of this.#all()) {
      if (worker.pending === undefined && !worker.admitting) continue;
      let entry = result.get(worker.resource);
      if (entry === undefined) result.set(worker.resource, entry = { depth: 0, oldest: 0 });
      entry.depth++;
      entry.oldest = Math.max(entry.oldest, now - worker.waitingSince);
    }
    return result;
  }

  /** Whether the shutdown has begun. */
  get stopping(): boolean {
    return this.#stopping.signal.aborted;
  }

  /** Whether the object (by its {@link objectKey}) has a live worker. */
  has(resource: Resource, key: string): boolean {
    return this.#workers.get(resource.key)?.has(key) ?? false;
  }

  /** All live workers, as a list: the callers may end some while going through it. */
  #all(): Worker[] {
    const all: Worker[] = [];
    for (const siblings of this.#workers.values()) {
      for (const worker of siblings.values()) all.push(worker);
    }
    return all;
  }

  /**
   * Queue an event for its object. It replaces the object's event still waiting, if
   * any. After the shutdown has begun, only objects with a live worker accept events.
   *
   * Returns a promise when the backlog is full: the feeder should wait for it before
   * pushing more (it resolves once the backlog is down to half, or at the shutdown).
   */
  push(resource: Resource, event: ObjectEvent): Promise<void> | undefined {
    const key = objectKey(event.object);
    let siblings = this.#workers.get(resource.key);
    let worker = siblings?.get(key);
    if (worker === undefined) {
      if (this.stopping) {
        this.#logger.debug(
          `Ignoring an event during the shutdown: ${describeObject(resource, event.object)}`,
        );
        return undefined;
      }
      if (siblings === undefined) this.#workers.set(resource.key, siblings = new Map());
      worker = {
        resource,
        key,
        siblings,
        pending: event,
        waitingSince: this.#clock.now(),
        waiter: undefined,
        running: false,
        expected: undefined,
        revisit: undefined,
        holding: false,
        batching: false,
        admitting: false,
        queued: false,
        current: undefined,
        idle: undefined,
        admission: undefined,
        context: undefined,
        deadline: 0,
        slot: -1,
      };
      siblings.set(key, worker);
      this.#size++;
    } else {
      if (worker.pending === undefined) worker.waitingSince = this.#clock.now();
      worker.pending = event;
      worker.waiter?.("arrived");
    }
    // Started first: a worker that begins its batch window is not counted in the backlog.
    if (!worker.running) this.#start(worker);
    this.#recount(worker);
    return this.#congestion?.promise;
  }

  /**
   * Resolve once the objects that `picks` chooses are not being processed any more: the
   * processing running now for them ends (states waiting are left to the processor, which
   * decides what to do with them). E.g. after a lease is lost: nothing may still run for
   * the objects it covered before another replica takes them.
   */
  async drain(picks: (resource: Resource, body: RawBody) => boolean): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const worker of this.#all()) {
      const current = worker.current;
      if (current !== undefined && picks(worker.resource, current.object)) {
        waits.push(new Promise((resolve) => (worker.idle ??= []).push(resolve)));
      }
    }
    await Promise.all(waits);
  }

  /** Resolve when no worker is alive (at once if none is). */
  depleted(): Promise<void> {
    if (this.#size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#depletionWaiters.push(resolve));
  }

  /**
   * The stop begins: accept no new objects, wake the workers that wait (for a batch window,
   * an echo, a retry) and end the idle ones. {@link Multiplexer.shutdown} waits for the rest.
   */
  halt(): void {
    if (this.stopping) return;
    this.#stopping.abort();
    this.#relieve();
    for (const worker of this.#all()) {
      if (worker.running) worker.waiter?.("stopped");
      else this.#end(worker); // idle, or waiting for a revisit: nothing to finish
    }
  }

  /**
   * Stop ({@link Multiplexer.halt}), let the workers finish what they hold for up to
   * `timeout` seconds, then abort the processing (`context.signal`) and wait as long again
   * for it to end. Workers still running after that are reported and abandoned.
   */
  async shutdown(timeout: number): Promise<void> {
    this.halt();
    if (await this.#depletedWithin(timeout)) return;
    this.#logger.warning(
      `Aborting the processing of ${this.#size} object(s) unfinished at exit.`,
    );
    this.#cancelled.abort();
    if (await this.#depletedWithin(timeout)) return;
    const left = this.#all().map((w) => `${w.resource.plural} ${w.key}`);
    this.#logger.error(`Abandoning the processing that ignored the abort: ${left.join(", ")}.`);
  }

  async #depletedWithin(seconds: number): Promise<boolean> {
    if (this.#size === 0) return true;
    return await settlesWithin(this.depleted(), seconds, this.#clock) || this.#size === 0;
  }

  /** Keep the backlog count (and the feeder's congestion) in step with a worker's state. */
  #recount(worker: Worker): void {
    const queued = !worker.holding && !worker.batching &&
      (worker.admitting || worker.pending !== undefined);
    if (queued === worker.queued) return;
    worker.queued = queued;
    this.#backlog += queued ? 1 : -1;
    if (queued && this.#backlog >= this.#backlogLimit && this.#congestion === undefined) {
      if (!this.stopping) {
        let resolve!: () => void;
        const promise = new Promise<void>((r) => (resolve = r));
        this.#congestion = { promise, resolve };
      }
    } else if (!queued && this.#backlog <= this.#backlogLimit >> 1) {
      this.#relieve();
    }
  }

  #relieve(): void {
    this.#congestion?.resolve();
    this.#congestion = undefined;
  }

  #start(worker: Worker): void {
    this.#parked.cancel(worker);
    worker.running = true;
    void this.#run(worker);
  }

  /** Park an idle worker: it wakes for a revisit, or ends after idling. */
  #park(worker: Worker): void {
    const now = this.#clock.now();
    let at = now + this.#batching.idleTimeout;
    // Not ending while our patch's echo is due; a requested revisit comes when it is due.
    if (worker.expected !== undefined) at = Math.max(at, worker.expected.deadline);
    if (worker.revisit !== undefined) at = worker.revisit.at;
    worker.running = false;
    this.#parked.schedule(worker, at);
  }

  #wake(worker: Worker): void {
    if (worker.running || worker.siblings.get(worker.key) !== worker) return;
    if (worker.revisit === undefined || this.stopping) {
      this.#end(worker);
      return;
    }
    worker.pending = worker.revisit.event;
    worker.waitingSince = this.#clock.now();
    this.#start(worker);
    this.#recount(worker);
  }

  /** Forget a worker; after this, a push for its object starts a new one. */
  #end(worker: Worker): void {
    this.#parked.cancel(worker);
    worker.running = false;
    worker.pending = worker.revisit = worker.expected = undefined;
    worker.holding = worker.batching = worker.admitting = false;
    this.#recount(worker);
    if (worker.siblings.get(worker.key) === worker) {
      worker.siblings.delete(worker.key);
      this.#size--;
      if (
        worker.siblings.size === 0 && this.#workers.get(worker.resource.key) === worker.siblings
      ) {
        this.#workers.delete(worker.resource.key);
      }
    }
    if (this.#size === 0) {
      const waiters = this.#depletionWaiters;
      this.#depletionWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  /**
   * Wait for a wake-up or the timeout. Arrivals of newer events wake the worker only
   * when `arrivals` is true; the shutdown always does (at once if it has begun).
   */
  #wait(worker: Worker, seconds: number, arrivals = true): Promise<WakeReason> {
    if (this.stopping) return Promise.resolve("stopped");
    return new Promise((resolve) => {
      let settled = false;
      const settle = (reason: WakeReason) => {
        if (settled) return;
        settled = true;
        worker.waiter = undefined;
        cancel();
        resolve(reason);
      };
      worker.waiter = (reason) => {
        if (arrivals || reason !== "arrived") settle(reason);
      };
      const cancel = this.#clock.schedule(seconds, () => settle("timeout"));
    });
  }

  /** Take a place among the processings; `undefined` if aborted meanwhile. */
  async #admit(): Promise<Admission | undefined> {
    const signal = this.#cancelled.signal;
    let releaseWorker: (() => void) | undefined;
    try {
      releaseWorker = await this.#limiter.acquire(signal);
      const releaseAdmission = await this.#admission.acquire(signal);
      const admission = new Admission(releaseWorker, releaseAdmission);
      admission.hold = this.#holds.enter(admission);
      return admission;
    } catch {
      releaseWorker?.();
      return undefined;
    }
  }

  /** Give the places of an admission back (again: nothing happens). */
  #leave(admission: Admission): void {
    if (admission.hold !== undefined) this.#holds.cancel(admission.hold);
    const releaseAdmission = admission.admission;
    const releaseWorker = admission.worker;
    admission.admission = admission.worker = admission.hold = undefined;
    releaseAdmission?.();
    releaseWorker?.();
  }

  /** What the worker's processings get; the same for all of them. */
  #context(worker: Worker): ProcessingContext {
    return {
      resource: worker.resource,
      key: worker.key,
      signal: this.#cancelled.signal,
      stopping: this.#stopping.signal,
      aside: async (promise: Promise<void>): Promise<void> => {
        if (worker.admission !== undefined) this.#leave(worker.admission);
        worker.admission = undefined;
        try {
          await promise;
        } finally {
          worker.admission = await this.#admit();
          if (worker.admission === undefined) this.#cancelled.signal.throwIfAborted();
        }
      },
    };
  }

  /** Process the worker's events until it is idle (then parked) or gone (then ended). */
  async #run(worker: Worker): Promise<void> {
    const clock = this.#clock;
    let delays: Iterator<number> | undefined;
    let lastDelay: number | undefined;
    let parked = false;
    try {
      for (;;) {
        if (worker.pending === undefined) {
          if (this.stopping) return;
          this.#park(worker);
          parked = true;
          return;
        }
        worker.revisit = undefined;

        // Let a burst of events settle: each arrival restarts the window. Meanwhile the
        // object is not in the backlog: it waits for time, not for a place, and counting it
        // would cap the feeding at the backlog limit per window.
        const window = this.#batching.batchWindow;
        if (window > 0) {
          worker.batching = true;
          this.#recount(worker);
          while (await this.#wait(worker, window) === "arrived");
          worker.batching = false;
        }

        // Hold back states older than our own last patch, until it arrives or time is up.
        const expected = worker.expected;
        if (expected !== undefined) {
          worker.holding = true;
          this.#recount(worker);
          while (!isConsistent(worker.pending!, expected)) {
            if (this.stopping) {
              this.#logger.debug(`Leaving a stale state unprocessed at exit: ${worker.key}`);
              return;
            }
            const left = expected.deadline - clock.now();
            if (left <= 0 || await this.#wait(worker, left) === "timeout") break;
          }
          worker.holding = false;
          worker.expected = undefined;
        }

        const event = worker.pending!;
        worker.pending = undefined;
        worker.admitting = true;
        this.#recount(worker);
        worker.admission = await this.#admit();
        worker.admitting = false;
        this.#recount(worker);
        if (worker.admission === undefined) return;
        this.#busy++;
        let failure: { error: unknown } | undefined;
        worker.current = event;
        try {
          const result = await this.#processor(event, worker.context ??= this.#context(worker));
          delays = lastDelay = undefined;
          if (result?.delay !== undefined && event.type !== "DELETED") {
            worker.revisit = { event, at: clock.now() + Math.max(0, result.delay) };
          }
          const version = result?.expectedResourceVersion;
          const timeout = this.#persistence?.consistencyTimeout ?? 0;
          if (version !== undefined && timeout > 0) {
            worker.expected = { version, deadline: clock.now() + timeout };
          }
        } catch (error) {
          failure = { error };
        } finally {
          if (worker.admission !== undefined) this.#leave(worker.admission);
          worker.admission = undefined;
          // With more to process, the timer is kept for the next admissions: not re-armed
          // for each of them when they come one at a time.
          if (--this.#busy === 0 && this.#backlog === 0) this.#holds.clear();
          worker.current = undefined;
          const idle = worker.idle;
          if (idle !== undefined) {
            worker.idle = undefined;
            for (const resolve of idle) resolve();
          }
        }

        if (failure !== undefined) {
          if (this.#cancelled.signal.aborted) return; // aborted on purpose; nothing to report
          delays ??= this.#batching.errorDelays[Symbol.iterator]();
          const next = delays.next();
          const delay = next.done ? lastDelay : next.value;
          lastDelay = delay;
          const what = describeObject(worker.resource, event.object);
          const why = summarizeError(failure.error);
          // The stack is for those who debug the framework; the line says what failed.
          this.#logger.debug(`Processing failed for ${what}: ${describeError(failure.error)}`);
          if (delay === undefined) {
            this.#logger.error(
              `Processing failed for ${what}; waiting for its next change: ${why}`,
            );
          } else {
            this.#logger.error(`Processing failed for ${what}; retrying in ${delay}s: ${why}`);
            if (await this.#wait(worker, delay, false) === "stopped") return;
            if (worker.pending === undefined) {
              worker.pending = event; // retry with the latest known state
              worker.waitingSince = this.#clock.now();
            }
            this.#recount(worker);
          }
        }

        // A deleted object sends nothing more: do not keep its worker idling.
        if (event.type === "DELETED" && worker.pending === undefined && !worker.expected) return;
      }
    } catch (error) {
      // Only a bug of this module can get here; report it rather than lose the worker silently.
      this.#logger.error(`The worker of ${worker.key} has crashed: ${describeError(error)}`);
    } finally {
      // Synchronously after the last check of `pending`: a later push starts a new worker.
      if (!parked) this.#end(worker);
    }
  }
}

function isConsistent(event: ObjectEvent, expected: Expectation): boolean {
  // A deletion is the final state, whatever its version says.
  return event.type === "DELETED" ||
    isAtLeastVersion(event.object.metadata?.resourceVersion, expected.version);
}
