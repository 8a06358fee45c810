/**
 * How many regular requests the API client has in flight at once: a limit that adapts to
 * what the API server admits, with the requests above it waiting in the client, those of
 * live changes before the deferrable ones (`request_priorities.ts`).
 *
 * Under API Priority and Fairness (Kubernetes 1.29+, flowcontrol v1) the server bounds the
 * requests each priority level executes at once, queues a few more, and answers the rest
 * 429 with `Retry-After`. It counts concurrency, not rate -- so the client bounds its
 * concurrency too, and finds the bound as TCP finds a path's window, from two signals:
 *
 * - **429** (the server's "no"): multiplicative decrease, to 0.7 of the limit (CUBIC's
 *   factor), and no higher than the other requests in flight when the 429 came (the
 *   *ceiling*), as TCP takes the data in flight when it finds a loss. One decrease per round trip: a 429 of a request admitted before the
 *   last decrease says nothing new (TCP NewReno's recovery).
 * - **Rising latency** (the server queues): a latency gradient, after Netflix's
 *   concurrency-limits "Gradient2": a fast average of the writes' latencies against a
 *   baseline that follows the lows quickly and the highs slowly; when the fast one is more
 *   than twice the baseline (and by more than 10 ms, below which differences are noise),
 *   decrease to 0.9 of the limit, again once per round trip. Only writes are sampled: lists
 *   take as long as they are big, which says nothing about the server's queues.
 *
 * Otherwise, additive increase: one more per round trip (one per `limit` answers) while
 * at least half of the limit is in use -- but once a 429 has shown the ceiling, the level
 * above it is probed slowly (one more after 32 answers with all of it in use), and after
 * each probe that fails at the same ceiling, half as often (up to 1,024 answers): a server
 * whose limit stays put is asked less and less, and one that admits more again is found (a
 * probe held for a whole step lifts the ceiling). Watches are never counted, as the server
 * does not count long-running requests.
 *
 * Decisions depend only on the order of answers and the given clock's readings: a test (or
 * a simulation on virtual time) sees the same limits every run.
 *
 * @module
 */
import { type Clock, realClock } from "../structs/clock.ts";
import { Semaphore } from "../structs/semaphores.ts";
import { REQUEST_PRIORITIES, type RequestPriority } from "./request_priorities.ts";

/** The bounds of the adaptive limit; read again whenever the limit changes. */
export interface ConcurrencyBounds {
  /** The limit to begin with. */
  readonly initialConcurrency: number;
  /** The lowest it goes. */
  readonly minConcurrency: number;
  /** The highest it goes. */
  readonly maxConcurrency: number;
}

/** The share of the limit kept after a 429. */
const THROTTLE_BACKOFF = 0.7;
/** The share of the limit kept when the latency rises. */
const LATENCY_BACKOFF = 0.9;
/** How many times the baseline latency counts as rising. */
const LATENCY_TOLERANCE = 2;
/** Seconds by which the latency must rise as well: smaller rises are noise. */
const LATENCY_FLOOR = 0.01;
/** The weight of a new sample in the fast average of latencies. */
const RECENT_WEIGHT = 0.1;
/** The weight of a sample below the baseline (it follows the lows quickly)... */
const BASELINE_FALL_WEIGHT = 0.1;
/** ...and above it (it follows the highs slowly, so sustained load becomes the norm). */
const BASELINE_RISE_WEIGHT = 0.01;
/** Answers per step above the ceiling, before any probe failed. */
const PROBE_ANSWERS = 32;
/** Doublings of the answers per probe after failed probes (32 x 2^5 = 1,024). */
const MAX_PROBE_DOUBLINGS = 5;
/**
 * The handicap of deferred requests in seconds: one goes after the live requests that came
 * up to this long after it, and before those that came later (served later, never starved).
 */
export const DEFERRED_AGING = 10;

/** One request's place among those in flight, with what its answer is judged by. */
export class Permit {
  constructor(
    /** Gives the place back (once). */
    readonly release: () => void,
    /** When it was admitted, on the limiter's clock. */
    readonly at: number,
    /** The limiter's round when it was admitted: one decrease per round. */
    readonly epoch: number,
    /**
     * The share of the limit in use when it was admitted (1 for a request that waited): the
     * limit grows only while at least half of it is used (Gradient2's rule), and beyond the
     * ceiling only while all of it is.
     */
    readonly use: number,
  ) {}
}

/** The adaptive limit of requests in flight, and the wait above it; see the module docs. */
export class ConcurrencyLimiter {
  readonly #bounds: ConcurrencyBounds;
  readonly #clock: Clock;
  readonly #places: Semaphore;
  /** The limit, with its fraction (a step is made of many answers). */
  #limit: number;
  #epoch = 0;
  /** How many others were in flight at the last 429; undefined before any. */
  #ceiling: number | undefined = undefined;
  #failedProbes = 0;
  #recent: number | undefined = undefined;
  #baseline = 0;
  #throttled = 0;

  /** A limiter within the bounds (read live: a changed setting applies at the next answer). */
  constructor(bounds: ConcurrencyBounds, clock: Clock = realClock) {
    this.#bounds = bounds;
    this.#clock = clock;
    this.#limit = this.#clamped(bounds.initialConcurrency);
    this.#places = new Semaphore(() => this.limit, {
      handicaps: [0, DEFERRED_AGING],
      now: () => clock.now(),
    });
  }

  /** The requests allowed in flight now. */
  get limit(): number {
    return Math.floor(this.#clamped(this.#limit));
  }

  /** The requests in flight now. */
  get inflight(): number {
    return this.#places.active;
  }

  /** The requests waiting for a place now. */
  get waiting(): number {
    return this.#places.waiting;
  }

  /** How many answers were 429 since the limiter was made. */
  get throttled(): number {
    return this.#throttled;
  }

  /**
   * A place for one request, once free: at once while fewer than the limit are in flight
   * and none waits, else in turn (deferred requests behind the live ones that came up to
   * {@link DEFERRED_AGING} seconds after them). Rejects with the signal's reason if it aborts.
   */
  acquire(priority: RequestPriority, signal?: AbortSignal): Promise<Permit> {
    const places = this.#places;
    const waiting = places.waiting;
    const taking = places.acquire(signal, REQUEST_PRIORITIES.indexOf(priority));
    if (places.waiting > waiting) {
      // It waits: when its turn comes, every place is taken (it is given a freed one).
      return taking.then((release) => new Permit(release, this.#clock.now(), this.#epoch, 1));
    }
    // Taken at once (or refused at once, for an aborted signal): counted as it is now.
    const inflight = places.active;
    const permit = (release: () => void) =>
      new Permit(release, this.#clock.now(), this.#epoch, inflight / this.limit);
    return taking.then(permit);
  }

  /**
   * The request has its answer (not a 429): its latency is a sample (`sampled`, for writes)
   * and the limit grows while it is in use and the latency does not rise.
   */
  answered(permit: Permit, sampled: boolean): void {
    const rising = sampled && this.#rising(this.#clock.now() - permit.at);
    if (permit.epoch === this.#epoch && permit.use >= 0.5) {
      if (rising) this.#decrease(this.#limit * LATENCY_BACKOFF);
      else this.#grow(permit.use >= 1);
    }
    permit.release();
  }

  /** The request was answered 429: the server admits fewer than we sent. */
  throttle(permit: Permit): void {
    this.#throttled++;
    if (permit.epoch === this.#epoch) {
      // Those in flight now (this one included) were too many: which of them the server
      // took first is unknown, as the order they arrived in.
      const ceiling = Math.max(1, this.#places.active - 1);
      this.#failedProbes = ceiling === this.#ceiling
        ? Math.min(this.#failedProbes + 1, MAX_PROBE_DOUBLINGS)
        : 0;
      this.#ceiling = ceiling;
      this.#decrease(Math.min(this.#limit * THROTTLE_BACKOFF, ceiling));
    }
    permit.release();
  }

  /** The request got no answer (a network failure): it says nothing of the server's load. */
  failed(permit: Permit): void {
    permit.release();
  }

  /** Lower the limit and begin a new round: answers of requests sent before it are old news. */
  #decrease(limit: number): void {
    this.#limit = this.#clamped(limit);
    this.#epoch++;
  }

  /** One more per round below the ceiling; slow probes at it; the ceiling lifted if held. */
  #grow(full: boolean): void {
    const ceiling = this.#ceiling;
    if (ceiling === undefined || this.#limit < ceiling) {
      this.#limit += 1 / Math.max(1, this.#limit);
    } else if (full) {
      this.#limit += 1 / (PROBE_ANSWERS * 2 ** this.#failedProbes);
      if (this.#limit >= ceiling + 2) {
        this.#ceiling = undefined;
        this.#failedProbes = 0;
      }
    }
    this.#limit = this.#clamped(this.#limit);
  }

  /** Note a latency; whether the recent ones rise above the baseline. */
  #rising(latency: number): boolean {
    if (this.#recent === undefined) {
      this.#recent = this.#baseline = latency;
      return false;
    }
    const recent = this.#recent += (latency - this.#recent) * RECENT_WEIGHT;
    const weight = latency < this.#baseline ? BASELINE_FALL_WEIGHT : BASELINE_RISE_WEIGHT;
    const baseline = this.#baseline += (latency - this.#baseline) * weight;
    return recent > baseline * LATENCY_TOLERANCE && recent - baseline > LATENCY_FLOOR;
  }

  #clamped(limit: number): number {
    const { minConcurrency, maxConcurrency } = this.#bounds;
    return Math.max(minConcurrency, 1, Math.min(maxConcurrency, limit));
  }
}
