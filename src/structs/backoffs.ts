/**
 * Capped exponential backoff with jitter, reset after a healthy period: the pause between
 * attempts of anything that retries on its own (watch reconnects, re-lists, discovery,
 * logins), so that a failure that persists never makes a loop spin.
 *
 * The defaults are client-go's reflector's: 0.8 s doubling up to 30 s, each pause
 * stretched by up to 100% at random (so that many watches failing together do not retry
 * in lockstep), and back to the start once no failure has happened for 2 minutes.
 *
 * @module
 */
import { type Clock, realClock } from "./clock.ts";

/** How a {@link Backoff} grows; all durations in seconds. */
export interface BackoffOptions {
  /** The first pause. */
  readonly initial?: number;
  /** The longest pause, jitter included. */
  readonly cap?: number;
  /** How much each pause grows over the previous one. */
  readonly factor?: number;
  /** Up to this share of a pause is added at random (0 for none, 1 for up to double). */
  readonly jitter?: number;
  /** After this long without a failure, the next pause is the first one again. */
  readonly resetAfter?: number;
  /** The clock that tells how long it has been healthy. */
  readonly clock?: Clock;
  /** A source of randomness in [0, 1); `Math.random` by default. */
  readonly random?: () => number;
}

/** client-go's reflector backoff: 0.8 s, doubling, capped at 30 s, reset after 2 min. */
export const DEFAULT_BACKOFF: Required<Omit<BackoffOptions, "clock" | "random">> = Object
  .freeze({ initial: 0.8, cap: 30, factor: 2, jitter: 1, resetAfter: 120 });

/** The pauses between attempts of one retrying activity; see the module docs. */
export class Backoff {
  readonly #options: Required<Omit<BackoffOptions, "clock" | "random">>;
  readonly #clock: Clock;
  readonly #random: () => number;
  #base: number;
  #lastFailure: number | undefined;

  /** A backoff with client-go's defaults, or the options given. */
  constructor(options: BackoffOptions = {}) {
    this.#options = { ...DEFAULT_BACKOFF, ...withoutUndefined(options) };
    this.#clock = options.clock ?? realClock;
    this.#random = options.random ?? Math.random;
    this.#base = this.#options.initial;
  }

  /** A failure happened: the pause before the next attempt, in seconds. */
  next(): number {
    const now = this.#clock.now();
    const { initial, cap, factor, jitter, resetAfter } = this.#options;
    if (this.#lastFailure !== undefined && now - this.#lastFailure > resetAfter) {
      this.#base = initial;
    }
    this.#lastFailure = now;
    const pause = Math.min(cap, this.#base * (1 + jitter * this.#random()));
    this.#base = Math.min(cap, this.#base * factor);
    return pause;
  }

  /** Start over: the next pause is the first one (e.g. after a success that proves health). */
  reset(): void {
    this.#base = this.#options.initial;
    this.#lastFailure = undefined;
  }
}

function withoutUndefined<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as T;
}
