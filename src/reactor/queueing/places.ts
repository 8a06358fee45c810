/**
 * Places among the processings of objects: how many objects the queueing lets process at
 * once. Two limits: `workerLimit` (the operator's setting: how many objects are processed
 * at once, read whenever a place is taken) and the start limit (how many *start* at
 * once). A processing that takes long gives its start place up after the hold time,
 * so slow handlers never hold the others up, but keeps its worker place. Both are taken in
 * the fair order of the lanes and tenants (`lanes.ts`, `structs/fair_queues.ts`): by lane
 * first, live changes before retries before listings, each lane after its handicap; within
 * a lane, the tenants in turn.
 *
 * @module
 */

import type { Clock } from "../../structs/clock.ts";
import { type Deadline, DeadlineQueue, type Expiring } from "../../structs/deadline_queues.ts";
import { Semaphore, type SemaphoreHolder, type SemaphoreTicket } from "../../structs/semaphores.ts";
import type { Lane } from "./lanes.ts";

/**
 * A place among the processings. Made once per place taken, in place of closures: it gives
 * the places back, and waits in the queue of start holds until given back or due.
 */
export class Place implements Expiring {
  /** Its hold in the queue of holds; `undefined` once given back or given up. */
  hold: Deadline | undefined;

  /** A place made of a worker place and a start place, given back by these. */
  constructor(
    /** Gives the worker place back; `undefined` once given back. */
    public worker: (() => void) | undefined,
    /** Gives the start place back; `undefined` once given back or given up. */
    public start: (() => void) | undefined,
  ) {}

  /** Held long enough: the start place is given up to others. */
  expire(): void {
    const release = this.start;
    this.start = this.hold = undefined;
    release?.();
  }
}

/**
 * Who waits for a place: the lane it waits in (moved up by {@link Places.promote}) and its
 * tenant; where its wait is, while it waits; told of its place when it comes.
 */
export interface Seeker extends SemaphoreTicket {
  lane: Lane;
  readonly tenant: string;
  /** The place has come, or `undefined`: the signal aborted first. Called once. */
  placed(place: Place | undefined): void;
}

/** What {@link Places.take} returns when the place is to come later, through `placed`. */
export const AWAITED: unique symbol = Symbol("awaited");

/**
 * A wait for the places not free at once: the worker place, then the start place (the
 * worker place given back if the wait is abandoned). One object, told by the semaphores:
 * no promise, nor any function of its own.
 */
class PlaceWait implements SemaphoreHolder {
  /** The worker place, once held: the start place is waited for then. */
  #worker: (() => void) | undefined;

  constructor(
    readonly seeker: Seeker,
    readonly signal: AbortSignal,
    readonly starts: Semaphore,
    readonly place: (releaseWorker: () => void, releaseStart: () => void) => Place,
  ) {}

  granted(release: () => void): void {
    const releaseWorker = this.#worker;
    if (releaseWorker !== undefined) {
      this.seeker.placed(this.place(releaseWorker, release));
      return;
    }
    this.#worker = release;
    const seeker = this.seeker;
    this.starts.wait(this, this.signal, seeker.lane, seeker.tenant, seeker);
  }

  refused(): void {
    this.#worker?.();
    this.seeker.placed(undefined);
  }
}

/** What {@link Places} are made of. */
export interface PlacesOptions {
  /** How many objects may be processed at once (`null`: no limit); read when used. */
  readonly workerLimit: () => number | null;
  /** How many objects may start processing at a time. */
  readonly startLimit: number;
  /** Seconds after which a processing gives its start place up to others. */
  readonly startHold: number;
  /** Each lane's handicap in seconds, by lane (`LANE_HANDICAPS`, see `lanes.ts`). */
  readonly handicaps: readonly number[];
  /** The clock of the holds and of the waits. */
  readonly clock: Clock;
}

/** The places among the processings; see the module docs. */
export class Places {
  readonly #workers: Semaphore;
  readonly #starts: Semaphore;
  /**
   * The start holds: one timer for all (they are all of one length), kept while
   * starts come one after another rather than armed again for each of them.
   */
  readonly #holds: DeadlineQueue;
  /** {@link Places.#placed}, as one function for all the waits. */
  readonly #place = (releaseWorker: () => void, releaseStart: () => void): Place =>
    this.#placed(releaseWorker, releaseStart);

  /** Places within these limits. */
  constructor(options: PlacesOptions) {
    const lanes = { handicaps: options.handicaps, now: () => options.clock.now() };
    this.#workers = new Semaphore(options.workerLimit, lanes);
    this.#starts = new Semaphore(options.startLimit, lanes);
    this.#holds = new DeadlineQueue(options.startHold, options.clock, { keepTimer: true });
  }

  /**
   * Take a place, waiting in a lane (`lanes.ts`) among the waiters of a tenant; `undefined`
   * if the signal aborts meanwhile. Changes made now are handled first, a tenant's burst
   * does not hold the other tenants' objects back, and a big listing is still handled, only
   * later. Where both places are free, the place comes at once; else {@link AWAITED}, and
   * the seeker is told when it comes (possibly before this returns). Thousands of objects
   * may wait at once in a burst: each waits as a record in the queues, not as a promise
   * with whoever awaits it (a suspended function, kept, copied and marked until it comes).
   */
  take(signal: AbortSignal, seeker: Seeker): Place | undefined | typeof AWAITED {
    if (signal.aborted) return undefined;
    const releaseWorker = this.#workers.tryAcquire();
    const releaseStart = releaseWorker && this.#starts.tryAcquire();
    if (releaseStart !== undefined) return this.#placed(releaseWorker!, releaseStart);
    const wait = new PlaceWait(seeker, signal, this.#starts, this.#place);
    if (releaseWorker !== undefined) wait.granted(releaseWorker);
    else this.#workers.wait(wait, signal, seeker.lane, seeker.tenant, seeker);
    return AWAITED;
  }

  #placed(releaseWorker: () => void, releaseStart: () => void): Place {
    const place = new Place(releaseWorker, releaseStart);
    place.hold = this.#holds.enter(place);
    return place;
  }

  /**
   * A seeker has a newer reason to wait in a lane before its own (e.g. a live change of an
   * object that waited with a listed state): it waits there from now on, as if it came now.
   */
  promote(seeker: Seeker, lane: Lane): void {
    if (lane >= seeker.lane) return;
    seeker.lane = lane;
    if (!this.#workers.promote(seeker, lane)) this.#starts.promote(seeker, lane);
  }

  /** Give the places of a place taken back (again: nothing happens). */
  give(place: Place): void {
    if (place.hold !== undefined) this.#holds.cancel(place.hold);
    const releaseStart = place.start;
    const releaseWorker = place.worker;
    place.start = place.worker = place.hold = undefined;
    releaseStart?.();
    releaseWorker?.();
  }

  /**
   * Nothing is processed or waits: the holds' timer goes. With more to process, it is kept
   * for the next starts rather than armed again for each of them.
   */
  idle(): void {
    this.#holds.clear();
  }
}
