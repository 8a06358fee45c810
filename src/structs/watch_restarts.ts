/**
 * What follows a watch that a defect ended. A watch recovers from every failure of the API
 * server by itself (it reconnects, lists again), so it ends only through a failure of the
 * code's own; left ended, an operator would live on without serving the resource (or seeing
 * its peers), healthy to its probes. So the end is reported at ERROR, with how it came, and
 * the watch begins anew, listing first, after a pause along a capped backoff.
 *
 * A defect that comes back every time is not restarted for ever: the
 * {@link DEFECTS_IN_A_ROW}th end in a row (each within the backoff's healthy period of the
 * one before, 2 minutes by default) fails with a {@link WatchDefectsError}, which stops the
 * operator with it -- as Kopf stops on a failed watcher. Its process ends with an error, and
 * its pod's restart (visible as such, backing off) begins with all state afresh.
 *
 * @module
 */

import { Backoff, type BackoffOptions, DEFAULT_BACKOFF } from "./backoffs.ts";
import { type Clock, sleep } from "./clock.ts";
import { formatSeconds } from "./failure_streaks.ts";
import { describeError } from "./log_formats.ts";
import type { Logger } from "./loggers.ts";

/** How many ends in a row, none after a healthy period, fail the watch for good. */
export const DEFECTS_IN_A_ROW = 5;

/** A watch that defects ended {@link DEFECTS_IN_A_ROW} times in a row; see the module docs. */
export class WatchDefectsError extends Error {
  override readonly name = "WatchDefectsError";
}

/** What a {@link WatchRestarts} is made of. */
export interface WatchRestartsOptions {
  /** The pauses before each watch anew. */
  readonly backoff: BackoffOptions;
  /** The clock of the pauses. */
  readonly clock: Clock;
  /** Where the ends are reported. */
  readonly logger: Logger;
}

/** The reports and pauses of one watch that defects may end; see the module docs. */
export class WatchRestarts {
  /** The watch, as the reports begin: e.g. "Watching pods in default". */
  readonly #what: string;
  readonly #backoff: Backoff;
  readonly #clock: Clock;
  readonly #logger: Logger;
  /** After this long without an end (seconds), the streak of ends starts over. */
  readonly #healthy: number;
  #streak = 0;
  #lastEnd = 0;

  /** The restarts of the watch that `what` names. */
  constructor(what: string, options: WatchRestartsOptions) {
    this.#what = what;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#backoff = new Backoff({ ...options.backoff, clock: options.clock });
    this.#healthy = options.backoff.resetAfter ?? DEFAULT_BACKOFF.resetAfter;
  }

  /**
   * The watch ended by itself (`failure` omitted) or with a failure: report it and pause.
   * True when it is to begin anew; false if the signal aborted first. Throws a
   * {@link WatchDefectsError} at the {@link DEFECTS_IN_A_ROW}th end in a row.
   */
  async after(signal: AbortSignal, failure?: { readonly error: unknown }): Promise<boolean> {
    const now = this.#clock.now();
    if (this.#streak > 0 && now - this.#lastEnd > this.#healthy) this.#streak = 0;
    this.#streak += 1;
    this.#lastEnd = now;
    const how = failure === undefined ? `${this.#what} ended by itself` : `${this.#what} failed`;
    const cause = failure === undefined ? "" : `: ${describeError(failure.error)}`;
    if (this.#streak >= DEFECTS_IN_A_ROW) {
      const message = `${how} ${this.#streak} times in a row; stopping the operator, as ` +
        "watching it anew does not help (a restart of the process begins afresh)";
      this.#logger.error(`${message}${cause}`);
      // The error's own message without the stack, which the line above has.
      if (failure === undefined) throw new WatchDefectsError(`${message}.`);
      const summary = `${message}: ${describeError(failure.error).split("\n")[0]}`;
      throw new WatchDefectsError(summary, { cause: failure.error });
    }
    const pause = this.#backoff.next();
    this.#logger.error(`${how}; watching it anew in ${formatSeconds(pause)}${cause || "."}`);
    return await sleep(pause, signal, this.#clock);
  }
}
