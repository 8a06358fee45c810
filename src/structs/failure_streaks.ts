/**
 * Reporting a failure that persists, without a line per attempt: a WARNING when the
 * streak of failures starts, again when it escalates (its kind of failure changes, or it
 * has lasted 1, 5, 15, 30 minutes and then every hour), and an INFO line when it heals.
 * Every attempt in between is logged at DEBUG only.
 *
 * @module
 */
import { type Clock, realClock } from "./clock.ts";
import type { Logger } from "./loggers.ts";

/** After how long (seconds) a streak that goes on is reported again; then hourly. */
const ESCALATIONS: readonly number[] = [60, 300, 900, 1800, 3600];

/** Options of a {@link FailureStreak}. */
export interface FailureStreakOptions {
  /** Where to report. */
  readonly logger: Logger;
  /** What fails, as the start of a sentence: e.g. `The API server https://10.0.0.1:6443`. */
  readonly what: string;
  /** The clock that measures the streak. */
  readonly clock?: Clock;
}

/** One failure of an attempt, as reported. */
export interface AttemptFailure {
  /** Why it failed, in a few words: `connection refused`, `HTTP 503: etcd is down`. */
  readonly reason: string;
  /**
   * The kind of failure, to tell an escalation from more of the same (e.g. `refused`,
   * `503`); the reason itself if omitted.
   */
  readonly kind?: string;
  /** Seconds until the next attempt, if known. */
  readonly retryIn?: number;
}

/** The failures of one activity in a row, reported as the module docs say. */
export class FailureStreak {
  readonly #logger: Logger;
  readonly #what: string;
  readonly #clock: Clock;
  #failures = 0;
  #startedAt = 0;
  #kind: string | undefined;
  #escalation = 0;

  /** A streak that has not started. */
  constructor(options: FailureStreakOptions) {
    this.#logger = options.logger;
    this.#what = options.what;
    this.#clock = options.clock ?? realClock;
  }

  /** How many attempts have failed in a row. */
  get failures(): number {
    return this.#failures;
  }

  /** An attempt failed. */
  failed(failure: AttemptFailure): void {
    const now = this.#clock.now();
    const kind = failure.kind ?? failure.reason;
    const retrying = failure.retryIn === undefined
      ? "retrying"
      : `retrying in ${formatSeconds(failure.retryIn)}`;
    this.#failures++;
    if (this.#failures === 1) {
      this.#startedAt = now;
      this.#kind = kind;
      this.#escalation = 0;
      this.#logger.warning(
        `${this.#what} failed: ${failure.reason}; ${retrying}, and keeps trying.`,
      );
      return;
    }
    const lasted = now - this.#startedAt;
    if (kind !== this.#kind || lasted >= nextDue(this.#escalation)) {
      while (lasted >= nextDue(this.#escalation)) this.#escalation++;
      this.#kind = kind;
      this.#logger.warning(
        `${this.#what} still fails after ${formatSeconds(lasted)} and ${this.#failures} ` +
          `attempts: ${failure.reason}; ${retrying}.`,
      );
      return;
    }
    this.#logger.debug(`${this.#what} failed again: ${failure.reason}; ${retrying}.`);
  }

  /** An attempt succeeded: a streak, if any, is over. */
  succeeded(): void {
    if (this.#failures === 0) return;
    const lasted = this.#clock.now() - this.#startedAt;
    this.#logger.info(
      `${this.#what} works again, after ${this.#failures} failed attempt` +
        `${this.#failures === 1 ? "" : "s"} over ${formatSeconds(lasted)}.`,
    );
    this.#failures = 0;
    this.#kind = undefined;
  }
}

/** When the escalation of the given number is due, in seconds into the streak. */
function nextDue(escalation: number): number {
  if (escalation < ESCALATIONS.length) return ESCALATIONS[escalation];
  return ESCALATIONS[ESCALATIONS.length - 1] * (escalation - ESCALATIONS.length + 2);
}

/** Seconds as people read them: `0.8s`, `45s`, `2m 5s`, `1h 3m`. */
export function formatSeconds(seconds: number): string {
  if (seconds < 10) return `${Math.round(seconds * 10) / 10}s`;
  const total = Math.round(seconds);
  if (total < 60) return `${total}s`;
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const rest = total % 60;
  if (hours > 0) return minutes > 0 ? `${hours}h ${minutes}m` : `${hours}h`;
  return rest > 0 ? `${minutes}m ${rest}s` : `${minutes}m`;
}
