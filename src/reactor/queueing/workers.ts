/**
 * The queueing's workers and what they call: the processor, with its context
 * ({@link Processor}, {@link ProcessingContext}); one record per object with work (the latest state waiting, where
 * the worker is in its loop, our write's echo awaited, a revisit asked for, the places it
 * holds), and the waits a worker makes -- for a wake-up or a timeout, aside without its
 * places. The loop that moves them is the multiplexer's.
 *
 * @module
 */

import type { ObservedEvent, RawBody } from "../../structs/bodies.ts";
import type { Resource } from "../../structs/resources.ts";
import { isAtLeastVersion } from "../../structs/identities.ts";
import { type Scheduled, TOLERANCE } from "./deadlines.ts";
import type { EntryWork, ObjectEntry } from "../objects/object_entries.ts";
import { AWAITED, type Place, type Places, type Seeker } from "./places.ts";
import { NOT_QUEUED, type Queued } from "./backlog.ts";
import { type Lane, LIVE } from "./lanes.ts";
import type { AsideWait, Reconciliation } from "../pipeline/object_processing.ts";

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

/** What the queue hands the states of objects to, one at a time per object (the pipeline). */
export interface Processor {
  /** Process one state of one object; what comes of it says what to do next. */
  reconcile(event: ObservedEvent, context: ProcessingContext): Promise<Reconciliation | void>;
}

/** A short human-readable reference to an object, for log messages. */
export function describeObject(resource: Resource, body: RawBody): string {
  const meta = body.metadata ?? {};
  const name = meta.namespace ? `${meta.namespace}/${meta.name}` : `${meta.name}`;
  return `${resource.plural} ${name}`;
}

export type WakeReason = "arrived" | "stopped" | "timeout";

/** The version of our own last patch, awaited until the deadline (the clock's seconds). */
export interface Expectation {
  readonly version: string;
  readonly deadline: number;
  /** Our writes' versions whose states need no processing (`Reconciliation.echoes`). */
  readonly echoes: readonly string[] | undefined;
}

/**
 * Where a worker is in its loop (see `Multiplexer.#run`). Only a parked worker has no loop
 * running: it sits on the timetable (`parking.ts`) until its idle timeout ends it, a revisit
 * is due, or the consistency deadline of an echo of ours it holds comes.
 */
export type Phase =
  /**
   * No loop runs: idle, waiting for a revisit, or holding an echo of ours for the last
   * write's (its waiting state, not counted in the backlog; see {@link restingEcho}).
   */
  | "parked"
  /** Running, between the steps below. */
  | "running"
  /** Waits out the batch window: a burst of events settles first. */
  | "batching"
  /** Holds back states older than our own last patch, until it arrives or time is up. */
  | "holding"
  /** Has taken a state and waits for a place among the processings. */
  | "placing"
  /** Processes a state. */
  | "processing"
  /** Waits after a failed processing before it tries again. */
  | "backing-off";

/** An object's worker: the queueing's work for it, kept on its record in the object table. */
export interface Worker extends Scheduled, EntryWork {
  /** The latest state not yet taken for processing. */
  pending: ObservedEvent | undefined;
  /** Since when (the clock's seconds) a state has been waiting, for the queue's metrics. */
  waitingSince: number;
  /** The lane the waiting state waits in for its place (`lanes.ts`). */
  lane: Lane;
  /** Whose turn its place is taken in, within its lane (`settings.queueing.fairness`). */
  readonly tenant: string;
  /** Wakes the worker's current wait, if it waits. */
  waiter: ((reason: WakeReason) => void) | undefined;
  /** Where it is in its loop. */
  phase: Phase;
  /** The version of our own last patch, awaited before older states are processed. */
  expected: Expectation | undefined;
  /**
   * The versions of the object's events since the state being processed (or last processed)
   * was taken, "" for a push that asks for a processing again: whether they were all our own
   * writes' echoes (see {@link isOwnEcho}).
   */
  arrivals: readonly string[] | undefined;
  /** A state to process again at a time, as the processor asked. */
  revisit: { readonly event: ObservedEvent; readonly at: number } | undefined;
  /** How it is counted in the backlog. */
  queued: Queued;
  /** The state being processed now, if any. */
  current: ObservedEvent | undefined;
  /** Called once the current processing ends (see {@link Multiplexer.drain}). */
  idle: (() => void)[] | undefined;
  /** The places it holds while processing. */
  place: Place | undefined;
  /** Its wait for a place, while it waits (its lane may be moved up meanwhile). */
  seeking: PlaceSeeking | undefined;
}

/** The live workers (those whose objects have work), with a wait for the moment none is. */
export class LiveWorkers implements Iterable<Worker> {
  readonly #workers = new Set<Worker>();
  #depletionWaiters: (() => void)[] = [];

  /** How many are alive. */
  get size(): number {
    return this.#workers.size;
  }

  /** Whether this very worker is alive (not one ended, its object's work passed to another). */
  has(worker: Worker): boolean {
    return this.#workers.has(worker);
  }

  /** A new worker is alive. */
  add(worker: Worker): void {
    this.#workers.add(worker);
  }

  /** A worker has ended; false if it was not alive. The waits for depletion are woken. */
  delete(worker: Worker): boolean {
    if (!this.#workers.delete(worker)) return false;
    if (this.#workers.size === 0) {
      const waiters = this.#depletionWaiters;
      this.#depletionWaiters = [];
      for (const resolve of waiters) resolve();
    }
    return true;
  }

  /** Resolve when no worker is alive (at once if none is). */
  depleted(): Promise<void> {
    if (this.#workers.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#depletionWaiters.push(resolve));
  }

  /** Resolve once the processings running now for the objects that `picks` chooses end. */
  async drain(picks: (resource: Resource, body: RawBody) => boolean): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const worker of this.#workers) {
      const current = worker.current;
      if (current !== undefined && picks(worker.entry.resource, current.object)) {
        waits.push(new Promise((resolve) => (worker.idle ??= []).push(resolve)));
      }
    }
    await Promise.all(waits);
  }

  /** The objects being processed now, as messages name them (`kopfexamples ns/name`). */
  processing(): string[] {
    return [...this.#workers].filter((w) => w.current !== undefined)
      .map((w) => describeObject(w.entry.resource, w.current!.object));
  }

  /** The live workers. */
  [Symbol.iterator](): Iterator<Worker> {
    return this.#workers.values();
  }
}

/**
 * The workers with unprocessed states, per resource: how many, and the oldest's wait; 0 for
 * the `served` resources where none waits (a gauge at 0, not absent, when the queue is empty).
 */
export function waitingOf(
  workers: Iterable<Worker>,
  now: number,
  served: Iterable<Resource> = [],
): Map<Resource, { depth: number; oldest: number }> {
  // By key: a worker's record may hold an older record of a resource served again.
  const byKey = new Map<string, { resource: Resource; depth: number; oldest: number }>();
  for (const resource of served) byKey.set(resource.key, { resource, depth: 0, oldest: 0 });
  for (const worker of workers) {
    if (worker.pending === undefined && worker.phase !== "placing") continue;
    const resource = worker.entry.resource;
    let waiting = byKey.get(resource.key);
    if (waiting === undefined) byKey.set(resource.key, waiting = { resource, depth: 0, oldest: 0 });
    waiting.depth++;
    waiting.oldest = Math.max(waiting.oldest, now - worker.waitingSince);
  }
  return new Map(
    [...byKey.values()].map(({ resource, depth, oldest }) => [resource, { depth, oldest }]),
  );
}

/** A worker for an object, with its first state waiting in a lane; parked until started. */
export function newWorker(
  entry: ObjectEntry,
  event: ObservedEvent,
  now: number,
  lane: Lane,
  tenant: string,
): Worker {
  return {
    entry,
    pending: event,
    waitingSince: now,
    lane,
    tenant,
    waiter: undefined,
    phase: "parked",
    expected: undefined,
    arrivals: undefined,
    revisit: undefined,
    queued: NOT_QUEUED,
    current: undefined,
    idle: undefined,
    place: undefined,
    seeking: undefined,
    // Not scheduled (slot -1), so never read; a double from the start, as the clock's seconds
    // it will hold: a worker made with the integer 0 here had its hidden class replaced at its
    // first deadline, and every worker after it was moved to the new one (V8's
    // TryMigrateInstance, found by bench instructions' runtime table).
    deadline: Number.NaN,
    slot: -1,
  };
}

/**
 * A newer state of a worker's object: it waits in its lane, and wakes the worker's wait. A
 * wait for a place moves up to that lane if it is before its own (a live change of an object
 * that waited with a listed state or a retry goes with the live changes).
 */
export function renew(
  worker: Worker,
  event: ObservedEvent,
  lane: Lane,
  now: number,
  places: Places,
  again = false,
): void {
  // Noted only while they may matter: a state taken (for a place, or in processing), or
  // our write's awaited; a state not yet taken clears them when it is. A listed state counts
  // as no version: a listing follows a gap in the watch, whose events -- another writer's
  // among them -- went unseen, and our write's version may hold such a change too.
  const phase = worker.phase;
  if (worker.expected !== undefined || phase === "placing" || phase === "processing") {
    const version = again || event.type === null
      ? ""
      : event.object.metadata?.resourceVersion ?? "";
    const arrivals = worker.arrivals;
    if (arrivals === undefined) worker.arrivals = [version];
    else if (arrivals !== NOT_ALL_OURS && arrivals.length < OWN_WRITES) {
      (arrivals as string[]).push(version);
    } else worker.arrivals = NOT_ALL_OURS; // not kept growing while the worker waits
  }
  if (worker.pending === undefined) worker.waitingSince = now;
  worker.pending = event;
  worker.lane = lane;
  if (worker.seeking !== undefined) places.promote(worker.seeking, lane);
  worker.waiter?.("arrived");
}

/**
 * A worker's wait for a place among the processings, in its lane and among its tenant's
 * waiters, found again through `worker.seeking` (see {@link renew}) until the place comes.
 * It holds what the worker's loop needs to go on when the place comes (the state to
 * process, the failures in a row so far), so that the loop ends meanwhile: in a burst,
 * thousands of objects wait at once, and each suspended function would be kept (and
 * copied, and marked by the garbage collector) until its place comes.
 */
export class PlaceSeeking implements Seeker {
  /** Its wait in the places' queues, while it waits there. */
  wait: object | undefined = undefined;

  constructor(
    /** Whose wait it is. */
    readonly worker: Worker,
    /** The lane it waits in (moved up by a newer state's). */
    public lane: Lane,
    /** Whose turn its place is taken in. */
    readonly tenant: string,
    /** The state to process in the place. */
    readonly event: ObservedEvent,
    /** The worker's failed processings in a row before this state. */
    readonly failures: number,
    /** Goes on with the worker's loop: one function for all the waits. */
    readonly resume: (seeking: PlaceSeeking, place: Place | undefined) => void,
  ) {}

  placed(place: Place | undefined): void {
    this.resume(this, place);
  }
}

/**
 * How a wait is timed: `onTimeout` is called when its time is up, unless the returned
 * function cancels it first (a clock's `schedule`, or a deadline queue's `add`).
 */
export type WaitTimer = (onTimeout: () => void) => () => void;

/** Wait for a wake-up of the worker (`arrivals` too, or only others) or the timer's timeout. */
export function wakeOrTimeout(
  worker: Worker,
  timer: WaitTimer,
  arrivals: boolean,
): Promise<WakeReason> {
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
    const cancel = timer(() => settle("timeout"));
  });
}

/**
 * What a worker's processing gets: its object, the operator's stop as signals (`cancelled`:
 * give up; `stopping`: finish soon), and the wait aside. Made for each processing, not kept
 * on the worker: a parked worker (thousands of them, idling after a burst) holds none.
 */
export function processingContext(
  worker: Worker,
  places: Places,
  cancelled: AbortSignal,
  stopping: AbortSignal,
): ProcessingContext {
  return {
    resource: worker.entry.resource,
    key: worker.entry.key,
    signal: cancelled,
    stopping,
    aside: (promise) => waitAside(worker, promise, places, cancelled),
  };
}

/**
 * See {@link AsideWait}: the worker's places go back while it waits, then are taken again --
 * in the live lane, as work in progress, in its tenant's turn.
 */
export async function waitAside(
  worker: Worker,
  promise: Promise<void>,
  places: Places,
  cancelled: AbortSignal,
): Promise<void> {
  if (worker.place !== undefined) places.give(worker.place);
  worker.place = undefined;
  try {
    await promise;
  } finally {
    worker.place = await new Promise<Place | undefined>((placed) => {
      const taken = places.take(cancelled, {
        lane: LIVE,
        tenant: worker.tenant,
        wait: undefined,
        placed,
      });
      if (taken !== AWAITED) placed(taken);
    });
    if (worker.place === undefined) cancelled.throwIfAborted();
  }
}

/** More writes than one processing makes (a JSON Patch, a merge patch, the status's). */
const OWN_WRITES = 4;
/** More events than one processing's writes came: not all of them were ours. */
const NOT_ALL_OURS: readonly string[] = Object.freeze([""]);

/**
 * Whether the worker's waiting state is the one our own writes made and needs no processing:
 * the processing before asked so (`expected.echoes`), the state is the last write's, and every
 * event since that processing took its state was one of our writes' -- none of another
 * writer's came between, which the last write's state would hold too.
 */
export function isOwnEcho(worker: Worker, expected: Expectation): boolean {
  const event = worker.pending;
  if (event?.type !== "MODIFIED") return false;
  return isLastEcho(expected, event.object.metadata?.resourceVersion, worker.arrivals);
}

/** Whether the version is our last write's, and every event noted since the processing ours. */
function isLastEcho(
  expected: Expectation,
  version: string | undefined,
  arrivals: readonly string[] | undefined,
): boolean {
  const echoes = expected.echoes;
  return echoes !== undefined && version === echoes[echoes.length - 1] &&
    allOurs(arrivals, echoes);
}

/** Whether every event noted since the state processed was one of our writes' `echoes`. */
function allOurs(arrivals: readonly string[] | undefined, echoes: readonly string[]): boolean {
  if (arrivals === undefined) return false;
  for (let i = 0; i < arrivals.length; i++) {
    // "" stands for no version: an again-push, too many events, a write's answer without one.
    if (arrivals[i] === "" || !echoes.includes(arrivals[i])) return false;
  }
  return true;
}

/**
 * Whether a state of the version, were it pushed to the parked worker now, would be passed by
 * at once ({@link restingEcho}'s `"passed"`): the version is our last write's, awaited, and
 * every event since the processing, this one too, was one of our writes' (within the count
 * that {@link renew} notes).
 */
export function passesEcho(worker: Worker, version: string): boolean {
  const expected = worker.expected;
  if (expected === undefined) return false;
  // As `renew` would note it: one more arrival, within the count it keeps.
  const arrivals = worker.arrivals;
  if (arrivals !== undefined && arrivals.length >= OWN_WRITES) return false;
  return isLastEcho(expected, version, arrivals ?? NO_ARRIVALS) &&
    isAtLeastVersion(version, expected.version);
}

/** No event noted since the processing: this one alone. */
const NO_ARRIVALS: readonly string[] = Object.freeze([]);

/**
 * Whether the worker's waiting state is an echo of ours that lets the worker rest, with no
 * loop running: the processing before found its writes' states to need nothing (see
 * {@link isOwnEcho}), and every event since was one of them.
 * - `"passed"`: the last write's, as consistent as awaited: passed by, no window waited out.
 * - `"held"`: an earlier write's (the status's, before the annotations'): held with the
 *   worker parked. The last write's comes before any other state of the object (a watch
 *   sends every version in order) and passes both by; if it does not come within the
 *   consistency timeout, the worker wakes at that deadline and processes the held state, as
 *   the loop's wait would. Past the deadline (or a hair before it, as timers wake), nothing
 *   is held.
 */
export function restingEcho(worker: Worker, now: number): "passed" | "held" | undefined {
  const expected = worker.expected;
  const event = worker.pending;
  if (expected === undefined || event === undefined) return undefined;
  if (isOwnEcho(worker, expected)) return isConsistent(event, expected) ? "passed" : undefined;
  const echoes = expected.echoes;
  if (echoes === undefined || event.type !== "MODIFIED") return undefined;
  const version = event.object.metadata?.resourceVersion;
  const held = version !== undefined && echoes.includes(version) &&
    expected.deadline > now + TOLERANCE && allOurs(worker.arrivals, echoes);
  return held ? "held" : undefined;
}

export function isConsistent(event: ObservedEvent, expected: Expectation): boolean {
  // A deletion is the final state, whatever its version says.
  return event.type === "DELETED" ||
    isAtLeastVersion(event.object.metadata?.resourceVersion, expected.version);
}
