/**
 * Places among the processings of objects: how many objects the queueing lets process at
 * once. Two limits: `workerLimit` (the operator's setting: how many objects are processed
 * at once, read whenever a place is taken) and the admission limit (how many *start* at
 * once). A processing that takes long gives its admission place up after the hold time,
 * so slow handlers never hold the others up, but keeps its worker place. The objects of
 * listings wait behind those of live events, for a while (see {@link Admissions.take}).
 *
 * @module
 */

import type { Clock } from "../../structs/clock.ts";
import { type Deadline, DeadlineQueue, type Expiring } from "../../structs/deadline_queues.ts";
import { Semaphore } from "../../structs/semaphores.ts";

/**
 * A place among the processings. Made once per admission, in place of closures: it gives
 * the places back, and waits in the queue of admission holds until given back or due.
 */
export class Admission implements Expiring {
  /** Its hold in the queue of holds; `undefined` once given back or given up. */
  hold: Deadline | undefined;

  /** A place made of a worker place and an admission place, given back by these. */
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

/** What {@link Admissions} are made of. */
export interface AdmissionsOptions {
  /** How many objects may be processed at once (`null`: no limit); read when used. */
  readonly workerLimit: () => number | null;
  /** How many objects may start processing at a time. */
  readonly admissionLimit: number;
  /** Seconds after which a processing gives its admission place up to others. */
  readonly admissionHold: number;
  /**
   * Seconds for which an object of a listing waits behind live events before it goes first
   * (see {@link Admissions.take}).
   */
  readonly listingAging: number;
  /** The clock of the holds and of the waits. */
  readonly clock: Clock;
}

/** The places among the processings; see the module docs. */
export class Admissions {
  readonly #workers: Semaphore;
  readonly #admissions: Semaphore;
  /**
   * The admission holds: one timer for all (they are all of one length), kept while
   * admissions come one after another rather than armed again for each of them.
   */
  readonly #holds: DeadlineQueue;

  /** Places within these limits. */
  constructor(options: AdmissionsOptions) {
    const lanes = { aging: options.listingAging, now: () => options.clock.now() };
    this.#workers = new Semaphore(options.workerLimit, lanes);
    this.#admissions = new Semaphore(options.admissionLimit, lanes);
    this.#holds = new DeadlineQueue(options.admissionHold, options.clock, { keepTimer: true });
  }

  /**
   * Take a place; `undefined` if the signal aborts meanwhile. A state of a `listed` object
   * (found by a listing, not told of by a live event) waits behind the live ones, unless
   * it has waited `listingAging` seconds: changes made now are handled first, and a big
   * listing is still handled, only later.
   */
  async take(signal: AbortSignal, listed = false): Promise<Admission | undefined> {
    let releaseWorker: (() => void) | undefined;
    try {
      releaseWorker = await this.#workers.acquire(signal, listed);
      const releaseAdmission = await this.#admissions.acquire(signal, listed);
      const admission = new Admission(releaseWorker, releaseAdmission);
      admission.hold = this.#holds.enter(admission);
      return admission;
    } catch {
      releaseWorker?.();
      return undefined;
    }
  }

  /** Give the places of an admission back (again: nothing happens). */
  give(admission: Admission): void {
    if (admission.hold !== undefined) this.#holds.cancel(admission.hold);
    const releaseAdmission = admission.admission;
    const releaseWorker = admission.worker;
    admission.admission = admission.worker = admission.hold = undefined;
    releaseAdmission?.();
    releaseWorker?.();
  }

  /**
   * Nothing is processed or waits: the holds' timer goes. With more to process, it is kept
   * for the next admissions rather than armed again for each of them.
   */
  idle(): void {
    this.#holds.clear();
  }
}
