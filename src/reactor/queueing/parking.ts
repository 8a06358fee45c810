/**
 * The parked workers: those with no loop running wait here on one timer -- for their idle
 * timeout (then they end), for a revisit the processing asked for (then they run), or,
 * holding an echo of ours, for the consistency deadline (then they process it, the last
 * write's echo not having come to pass both by). Thousands of idle objects cost a heap slot
 * each, not a timer each. The echoes of our own writes that need nothing are passed by here
 * (`restingEcho`, `passesEcho`): a worker that waits for them only rests.
 *
 * @module
 */

import type { Clock } from "../../structs/clock.ts";
import type { BatchingSettings } from "../../settings/processing_settings.ts";
import { Deadlines } from "./deadlines.ts";
import { passesEcho, restingEcho, type Worker } from "./workers.ts";

/** What the parked workers tell their multiplexer. */
export interface ParkingCalls {
  /** The worker's time has come: a revisit, the end of its idling, a held echo's deadline. */
  readonly wake: (worker: Worker) => void;
  /** The worker's state changed: count it as it is now (the queue's backlog and gauges). */
  readonly recount: (worker: Worker) => void;
}

/** The parked workers' timetable; see the module docs. */
export class Parking {
  readonly #deadlines: Deadlines<Worker>;
  readonly #clock: Clock;
  readonly #batching: BatchingSettings;
  readonly #recount: (worker: Worker) => void;

  /** Parked workers on the `clock`, each woken once its time has come. */
  constructor(clock: Clock, batching: BatchingSettings, calls: ParkingCalls) {
    this.#deadlines = new Deadlines(clock, calls.wake);
    this.#clock = clock;
    this.#batching = batching;
    this.#recount = calls.recount;
  }

  /**
   * Let a worker rest when its waiting state is an echo of ours (see {@link restingEcho}):
   * passed by, the worker idle from now; or held, the worker parked until the consistency
   * deadline. False when the state goes the usual way.
   */
  rest(worker: Worker): boolean {
    const resting = restingEcho(worker, this.#clock.now());
    if (resting === undefined) return false;
    if (resting === "passed") this.#pass(worker);
    else this.hold(worker);
    this.#recount(worker);
    return true;
  }

  /**
   * Pass by, before it is pushed, a state of this version that a push would have passed by
   * at once (see {@link passesEcho}); true if it did. Only a parked worker's: a running loop
   * or a processing takes its states as pushed.
   */
  passEcho(worker: Worker, version: string): boolean {
    if (worker.phase !== "parked" || !passesEcho(worker, version)) return false;
    this.#pass(worker);
    this.#recount(worker);
    return true;
  }

  /** Our writes' states are passed by: the worker idles, parked, from now on. */
  #pass(worker: Worker): void {
    worker.pending = worker.expected = worker.arrivals = undefined;
    this.park(worker);
  }

  /** Park an idle worker: it wakes for a revisit, or ends after idling. */
  park(worker: Worker): void {
    let at = this.#clock.now() + this.#batching.idleTimeout;
    // Not ending while our patch's echo is due; a requested revisit comes when it is due.
    if (worker.expected !== undefined) at = Math.max(at, worker.expected.deadline);
    if (worker.revisit !== undefined) at = worker.revisit.at;
    worker.phase = "parked";
    this.#deadlines.schedule(worker, at);
  }

  /** Park a worker holding an echo of ours (see `restingEcho`) until the consistency deadline. */
  hold(worker: Worker): void {
    worker.phase = "parked";
    this.#deadlines.schedule(worker, worker.expected!.deadline);
  }

  /** Take a worker off the timetable: it starts, or ends. */
  cancel(worker: Worker): void {
    this.#deadlines.cancel(worker);
  }
}
