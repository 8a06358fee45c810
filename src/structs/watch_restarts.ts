/**
 * What follows a watch that a defect ended. A watch recovers from every failure of the API
 * server by itself (it reconnects, lists again), so it ends only through a failure of the
 * code's own; left ended, an operator would live on without serving the resource (or seeing
 * its peers), healthy to its probes. So the end is reported at ERROR, with how it came, and
 * the watch begins anew, listing first, after a pause along a capped backoff.
 *
 * @module
 */

import { Backoff, type BackoffOptions } from "./backoffs.ts";
import { type Clock, sleep } from "./clock.ts";
import { formatSeconds } from "./failure_streaks.ts";
import { describeError } from "./log_formats.ts";
import type { Logger } from "./loggers.ts";

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

  /** The restarts of the watch that `what` names. */
  constructor(what: string, options: WatchRestartsOptions) {
    this.#what = what;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#backoff = new Backoff({ ...options.backoff, clock: options.clock });
  }

  /**
   * The watch ended by itself (`failure` omitted) or with a failure: report it and pause.
   * True when it is to begin anew; false if the signal aborted first.
   */
  async after(signal: AbortSignal, failure?: { readonly error: unknown }): Promise<boolean> {
    const pause = this.#backoff.next();
    const again = `watching it anew in ${formatSeconds(pause)}`;
    this.#logger.error(
      failure === undefined
        ? `${this.#what} ended by itself; ${again}.`
        : `${this.#what} failed; ${again}: ${describeError(failure.error)}`,
    );
    return await sleep(pause, signal, this.#clock);
  }
}
