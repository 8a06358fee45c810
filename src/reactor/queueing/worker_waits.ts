/**
 * The timed waits of a worker's loop (`Multiplexer.#run`): its batch window, the echo of
 * its own patch, the delay after a failed processing. A newer state wakes the first two;
 * the shutdown wakes them all (at once if it has begun). The worker's phase meanwhile is
 * entered through the multiplexer, which counts the worker as it then is.
 *
 * @module
 */

import type { ObservedEvent } from "../../structs/bodies.ts";
import type { Clock } from "../../structs/clock.ts";
import { DeadlineQueue } from "../../structs/deadline_queues.ts";
import { describeError, summarizeError } from "../../structs/log_formats.ts";
import type { Logger } from "../../structs/loggers.ts";
import type { BatchingSettings } from "../../settings/processing_settings.ts";
import { RETRIES } from "./lanes.ts";
import {
  describeObject,
  isConsistent,
  type Phase,
  type WaitTimer,
  wakeOrTimeout,
  type WakeReason,
  type Worker,
} from "./workers.ts";

/** What {@link WorkerWaits} are made of. */
export interface WorkerWaitsOptions {
  /** The batch window and the error delays; read whenever used, so they may change. */
  readonly batching: BatchingSettings;
  /** The clock of the waits. */
  readonly clock: Clock;
  /** Where failed processings are reported. */
  readonly logger: Logger;
  /** Aborted when the shutdown begins. */
  readonly stopping: AbortSignal;
  /** Move a worker to a phase of its loop, counted as it is then. */
  readonly enter: (worker: Worker, phase: Phase) => void;
}

/** The timed waits of the workers' loops; see the module docs. */
export class WorkerWaits {
  readonly #batching: BatchingSettings;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #stopping: AbortSignal;
  readonly #enter: (worker: Worker, phase: Phase) => void;
  /**
   * The batch windows of all the workers, on one timer: they all last the same, so their
   * ends come in the order they began. A timer each costs a runtime timer for every state
   * of every object in a burst, where this costs an entry in a queue.
   */
  #windows: DeadlineQueue | undefined;
  /** What times a wait on {@link #windows}: made with the queue, not per window. */
  #windowTimer: WaitTimer | undefined;

  /** The waits of one multiplexer's workers. */
  constructor(options: WorkerWaitsOptions) {
    this.#batching = options.batching;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#stopping = options.stopping;
    this.#enter = options.enter;
  }

  /**
   * Let a burst of events settle: each arrival restarts the window. Meanwhile the object is
   * not in the backlog: it waits for time, not for a place, and counting it would cap the
   * feeding at the backlog limit per window.
   */
  async settle(worker: Worker): Promise<void> {
    const window = this.#batching.batchWindow;
    let timer = this.#windowTimer;
    if (timer === undefined || this.#windows?.seconds !== window) {
      // The setting changed: the windows begun before end on the old queue's timer.
      const windows = this.#windows = new DeadlineQueue(window, this.#clock);
      timer = this.#windowTimer = (onTimeout) => windows.add(onTimeout);
    }
    this.#enter(worker, "batching");
    while (await this.#waitFor(worker, timer) === "arrived");
    this.#enter(worker, "running");
  }

  /**
   * Hold back states older than our own last patch, until it arrives or time is up; false
   * when the operator stops meanwhile (the stale state is left unprocessed).
   */
  async awaitEcho(worker: Worker): Promise<boolean> {
    const expected = worker.expected!;
    this.#enter(worker, "holding");
    while (!isConsistent(worker.pending!, expected)) {
      if (this.#stopping.aborted) {
        this.#logger.debug(`Leaving a stale state unprocessed at exit: ${worker.entry.key}`);
        return false;
      }
      const left = expected.deadline - this.#clock.now();
      if (left <= 0 || await this.#wait(worker, left) === "timeout") break;
    }
    worker.expected = undefined;
    this.#enter(worker, "running");
    return true;
  }

  /**
   * Report a failed processing and wait the error delay before the latest known state is
   * processed again; without a delay, the next change is waited for. False when the
   * operator stops meanwhile.
   */
  async backOff(
    worker: Worker,
    event: ObservedEvent,
    error: unknown,
    delay: number | undefined,
  ): Promise<boolean> {
    const what = describeObject(worker.entry.resource, event.object);
    const why = summarizeError(error);
    // The stack is for those who debug the framework; the line says what failed.
    this.#logger.debug(`Processing failed for ${what}: ${describeError(error)}`);
    if (delay === undefined) {
      this.#logger.error(`Processing failed for ${what}; waiting for its next change: ${why}`);
      return true;
    }
    this.#logger.error(`Processing failed for ${what}; retrying in ${delay}s: ${why}`);
    this.#enter(worker, "backing-off");
    if (await this.#wait(worker, delay, false) === "stopped") return false;
    if (worker.pending === undefined) {
      worker.pending = event; // retry with the latest known state
      worker.lane = RETRIES;
      worker.waitingSince = this.#clock.now();
    }
    this.#enter(worker, "running");
    return true;
  }

  /**
   * Wait for a wake-up or the timeout. Arrivals of newer events wake the worker only
   * when `arrivals` is true; the shutdown always does (at once if it has begun).
   */
  #wait(worker: Worker, seconds: number, arrivals = true): Promise<WakeReason> {
    return this.#waitFor(worker, (onTimeout) => this.#clock.schedule(seconds, onTimeout), arrivals);
  }

  /** {@link WorkerWaits.#wait}, timed by `timer`. */
  #waitFor(worker: Worker, timer: WaitTimer, arrivals = true): Promise<WakeReason> {
    if (this.#stopping.aborted) return Promise.resolve("stopped");
    return wakeOrTimeout(worker, timer, arrivals);
  }
}
