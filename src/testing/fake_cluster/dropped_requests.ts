/**
 * The `Retry-After` of API Priority and Fairness's 429s, as kube-apiserver computes it per
 * priority level from the requests it dropped lately
 * (apiserver/pkg/util/flowcontrol/dropped_requests_tracker.go): 1 second at first, doubled
 * (up to 32) when at least three times that many requests were dropped within the last
 * that-many seconds, and lowered by one when fewer than that many were -- so that clients
 * which keep coming while the level is overloaded are told to wait longer.
 *
 * @module
 */

/** The longest `Retry-After`, in seconds (`maxRetryAfter`). */
export const MAX_RETRY_AFTER = 32;

/** Requests dropped within one second of the clock. */
interface SecondCount {
  readonly second: number;
  readonly count: number;
}

/** The dropped requests of one priority level, and the `Retry-After` they lead to. */
export class DroppedRequests {
  /** Earlier seconds, oldest first, none older than {@link MAX_RETRY_AFTER}. */
  readonly #history: SecondCount[] = [];
  #second = 0;
  #count = 0;
  #retryAfter = 1;
  /** When the `Retry-After` was last raised (0: never, so the first raise may come at once). */
  #raisedAt = 0;

  /** @param now the clock, in milliseconds (`Date.now` by default) */
  constructor(readonly now: () => number = Date.now) {}

  /** The seconds to tell the client whose request was just dropped. */
  get retryAfter(): number {
    return this.#retryAfter;
  }

  /** One request was dropped now. */
  record(): void {
    const second = Math.floor(this.now() / 1000);
    if (second === this.#second) {
      this.#count++;
      return;
    }
    // A new second: the last one goes to the history, and the value is reconsidered --
    // only then, from the seconds before this one, as kube-apiserver does.
    const last = this.#second;
    this.#history.push({ second: last, count: this.#count });
    const stale = this.#history.findIndex((s) => last - s.second <= MAX_RETRY_AFTER);
    this.#history.splice(0, stale < 0 ? this.#history.length : stale);
    this.#second = second;
    this.#count = 1;
    this.#reconsider(second);
  }

  #reconsider(second: number): void {
    const current = this.#retryAfter;
    let dropped = 0;
    for (const s of this.#history) {
      if (second - s.second <= current && s.second < second) dropped += s.count;
    }
    if (second - this.#raisedAt >= current && dropped >= 3 * current) {
      this.#retryAfter = Math.min(2 * current, MAX_RETRY_AFTER);
      this.#raisedAt = second;
    } else if (dropped < current && current > 1) {
      this.#retryAfter = current - 1;
    }
  }
}
