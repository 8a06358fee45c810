/**
 * The parked workers: those with no loop running wait here on one timer -- for their idle
 * timeout (then they end), for a revisit the processing asked for (then they run), or,
 * holding an echo of ours, for the consistency deadline (then they process it, the last
 * write's echo not having come to pass both by). Thousands of idle objects cost a heap slot
 * each, not a timer each.
 *
 * @module
 */

import type { Clock } from "../../structs/clock.ts";
import type { BatchingSettings } from "../../settings/processing_settings.ts";
import { Deadlines } from "./deadlines.ts";
import type { Worker } from "./workers.ts";

/** The parked workers' timetable; see the module docs. */
export class Parking {
  readonly #deadlines: Deadlines<Worker>;
  readonly #clock: Clock;
  readonly #batching: BatchingSettings;

  /** Parked workers on the `clock`, each told to `wake` once its time has come. */
  constructor(clock: Clock, batching: BatchingSettings, wake: (worker: Worker) => void) {
    this.#deadlines = new Deadlines(clock, wake);
    this.#clock = clock;
    this.#batching = batching;
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
