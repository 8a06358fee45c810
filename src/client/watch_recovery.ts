/**
 * How a watch recovers from failures: the one place where watches pause and reconnect.
 * A watch's streams and its re-listings share one {@link WatchHealth}: one capped,
 * jittered backoff (client-go's reflector's by default) that starts over after a source
 * that stayed up longer than the pause before it, and one failure streak, reported when it
 * starts, escalates and heals (`structs/failure_streaks.ts`).
 *
 * {@link keepWatching} keeps any source of watch items going until its signal aborts: a
 * source that fails (or ends) is reported and opened again after a pause. A persistent
 * `watchObjects` is its own streams' reconnects inside it, so that its consumers only
 * consume.
 *
 * @module
 */
import { Backoff, type BackoffOptions } from "../structs/backoffs.ts";
import { type Clock, realClock, sleep } from "../structs/clock.ts";
import { FailureStreak } from "../structs/failure_streaks.ts";
import { summarizeError } from "../structs/log_formats.ts";
import type { Logger } from "../structs/loggers.ts";

/** How a watch recovers from failures; see the module docs. */
export interface WatchRecoveryOptions {
  /** The pauses after failures; client-go's reflector backoff by default. */
  backoff?: BackoffOptions;
  /** Where failures, escalations and recoveries are reported. */
  logger?: Logger;
  /** The clock of the pauses and of the reports; the real one by default. */
  clock?: Clock;
  /**
   * Called with each failure that a persistent watch cannot heal by reconnecting (a 403, a
   * 404 of a resource no longer served, a server unreachable after the client's retries),
   * before its pause; returning true ends the watch, which then throws the error.
   */
  onFailure?: (error: unknown) => boolean | void;
  /** The words for such a failure in the reports; the first line of its message by default. */
  describeFailure?: (error: unknown) => string;
}

/** A source shorter than this (seconds) is never proof of health. */
export const SHORTEST_HEALTHY_STREAM = 1;

/** The failures of one watch: its backoff and its streak; see the module docs. */
export class WatchHealth {
  readonly streak: FailureStreak;
  readonly backoff: Backoff;
  readonly clock: Clock;
  readonly #countFailure: (() => void) | undefined;
  /** The last pause before a source (seconds). */
  #lastPause = 0;

  constructor(
    what: string,
    options: WatchRecoveryOptions & { logger: Logger },
    countFailure?: () => void,
  ) {
    this.clock = options.clock ?? realClock;
    this.backoff = new Backoff({ clock: this.clock, ...options.backoff });
    this.streak = new FailureStreak({ logger: options.logger, what, clock: this.clock });
    this.#countFailure = countFailure;
  }

  /**
   * A source failed after lasting `lasted` seconds: the pause before the next one (at
   * least `floor`), reported. A source that lasted longer than the pause before it (and a
   * second at least) was of use: the pauses start over, so that connections cut now and
   * then cost a short pause each, while sources that fail at once wait longer each time.
   */
  failed(reason: string, lasted: number, floor = 0): number {
    if (lasted >= Math.max(SHORTEST_HEALTHY_STREAM, this.#lastPause)) this.backoff.reset();
    const pause = Math.max(floor, this.backoff.next());
    this.streak.failed({ reason, retryIn: pause });
    this.#countFailure?.();
    return pause;
  }

  /** The pause before the next source is this long (a failure's, or a plain reconnect's). */
  pausing(pause: number): void {
    this.#lastPause = pause;
  }
}

/** Options of {@link keepWatching}. */
export interface KeepWatchingOptions extends WatchRecoveryOptions {
  /** Stops the watching: the generator returns promptly. */
  signal?: AbortSignal;
}

/**
 * The items of the sources that `open` makes, one after another, until the signal aborts:
 * a source that fails or ends is reported through `health` and followed by another after a
 * pause. A failure for which `onFailure` returns true ends it all, thrown. The end of a
 * streak is the source's to tell (`health.streak.succeeded()`), once it has proven healthy.
 */
export async function* keepWatching<T>(
  open: () => AsyncIterable<T>,
  health: WatchHealth,
  options: KeepWatchingOptions,
): AsyncGenerator<T, void, undefined> {
  const signal = options.signal;
  const describe = options.describeFailure ?? summarizeError;
  while (!signal?.aborted) {
    const opened = health.clock.now();
    let delivered = false;
    let reason = "the watch ended";
    try {
      for await (const item of open()) {
        delivered = true;
        yield item;
      }
    } catch (error) {
      if (signal?.aborted) return;
      if (options.onFailure?.(error) === true) throw error;
      reason = describe(error);
    }
    if (signal?.aborted) return;
    const lasted = delivered ? health.clock.now() - opened : 0;
    const pause = health.failed(reason, lasted);
    health.pausing(pause);
    if (!(await sleep(pause, signal, health.clock))) return;
  }
}
