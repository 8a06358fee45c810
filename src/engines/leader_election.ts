/**
 * Leader election on a Lease, as client-go's `leaderelection` package does it, so that
 * of several replicas of an operator exactly one handles the objects at a time:
 *
 * - A candidate tries to acquire the Lease every `retryPeriod` (with up to 120% jitter, as
 *   client-go): it gets it when nobody holds it, or when the holder's record has not
 *   changed for its `leaseDuration` (by this replica's clock).
 * - The leader renews it every `retryPeriod`. If it cannot renew for `renewDeadline`, it
 *   stops leading -- before another replica may take over, `leaseDuration` after the
 *   last renewal -- and becomes a candidate again.
 * - On a graceful stop the leader releases the Lease (an empty holder, as client-go), after
 *   its work is finished and stored, so that a standby takes over at once rather than
 *   after the lease duration.
 *
 * What leading means is the caller's: the elector announces when leadership starts
 * (`gained`) and when it ends (`losing`, with a {@link Handover} that the caller completes
 * once nothing runs any more for the objects; the elector waits for that before trying
 * again). The lease keeps being renewed until {@link Coordination.release}, so that the
 * work of a stopping leader finishes under its lease.
 *
 * @module
 */
import type { RawBody } from "../structs/bodies.ts";
import { Channel } from "../structs/channels.ts";
import { type Clock, realClock, sleep } from "../structs/clock.ts";
import { FailureStreak } from "../structs/failure_streaks.ts";
import type { Logger } from "../structs/loggers.ts";
import { summarizeError } from "../structs/log_formats.ts";
import type { LeaseLock } from "./leases.ts";

/** The timings of leader election and sharding, in seconds (client-go's names). */
export interface LeaseTimings {
  /** How long a holder may go without renewing before others take over. */
  readonly leaseDuration: number;
  /** How long a holder keeps trying to renew before it gives up. */
  readonly renewDeadline: number;
  /** The pause between attempts. */
  readonly retryPeriod: number;
}

/**
 * Whether this replica handles an object now: what the engines that run things for objects
 * (the daemons) and the reactor ask for every object.
 */
export interface Ownership {
  /** Whether this replica handles the object now (called for every event: cheap). */
  owns(body: RawBody): boolean;
}

/**
 * How replicas share the work, as the reactor sees it: whether this replica handles an
 * object now, its changes as they happen, running until stopped, and giving the leases
 * back at the very end.
 */
export interface Coordination extends Ownership {
  /** Whether this replica handles anything now (a leader, or a holder of some shard). */
  readonly active: boolean;
  /**
   * The changes of what this replica handles, in order; the iteration ends after
   * {@link Coordination.release}. Every `losing` change must be completed by its consumer.
   */
  readonly changes: AsyncIterable<CoordinationChange>;
  /** Acquire and renew until the signal aborts; the leases stay held after that. */
  run(signal: AbortSignal): Promise<void>;
  /** Give back every lease held: the last step of a graceful stop. */
  release(): Promise<void>;
}

/** A change of what this replica handles. */
export type CoordinationChange =
  /** Leases were gained: objects seen on standby must be handled now. */
  | { readonly type: "gained" }
  /** Objects stop being this replica's; see {@link Handover}. */
  | { readonly type: "losing"; readonly handover: Handover };

/**
 * Objects stop being this replica's (a lease lost or given up; `owns` already answers false
 * for them): whoever handles them stops, and then calls {@link Handover.complete}. The
 * coordination waits for that before it tries for the lease again or releases it.
 */
export class Handover {
  /** When another replica may take the objects over, on the clock's `now()` scale. */
  readonly deadline: number;
  /** Resolves once {@link Handover.complete} is called. */
  readonly completed: Promise<void>;
  #resolve!: () => void;

  /** A handover due by the deadline. */
  constructor(deadline: number) {
    this.deadline = deadline;
    this.completed = new Promise((resolve) => (this.#resolve = resolve));
  }

  /** Nothing runs any more for the objects let go. */
  complete(): void {
    this.#resolve();
  }
}

/** Options of {@link LeaderElector}. */
export interface LeaderElectorOptions {
  /** The Lease to hold. */
  readonly lock: LeaseLock;
  /** The timings. */
  readonly timings: LeaseTimings;
  /** Where to report. */
  readonly logger: Logger;
  /** The clock of the pauses and deadlines (the real one by default). */
  readonly clock?: Clock;
  /** Randomness for the jitter (for tests). */
  readonly random?: () => number;
}

/** client-go's jitter factor of the retries. */
const JITTER_FACTOR = 1.2;

/** One replica's part in the election; see the module docs. */
export class LeaderElector implements Coordination {
  readonly #lock: LeaseLock;
  readonly #timings: LeaseTimings;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #changes = new Channel<CoordinationChange>();
  #leading = false;
  #running: Promise<void> | undefined;

  /** A candidate; nothing happens until {@link LeaderElector.run}. */
  constructor(options: LeaderElectorOptions) {
    this.#lock = options.lock;
    this.#timings = options.timings;
    this.#logger = options.logger;
    this.#clock = options.clock ?? realClock;
    this.#random = options.random ?? Math.random;
  }

  /** The changes of leadership; see {@link Coordination.changes}. */
  get changes(): AsyncIterable<CoordinationChange> {
    return this.#changes;
  }

  /** Whether this replica leads now. */
  get active(): boolean {
    return this.#leading;
  }

  /** A leader handles every object; a standby none. */
  owns(_body: RawBody): boolean {
    return this.#leading;
  }

  /** Run the election until the signal aborts (the lease is kept: see `release`). */
  run(signal: AbortSignal): Promise<void> {
    this.#running ??= this.#run(signal);
    return this.#running;
  }

  async #run(signal: AbortSignal): Promise<void> {
    const lease = `the Lease ${this.#lock.name}`;
    while (!signal.aborted) {
      if (!await this.#acquire(signal)) return;
      this.#leading = true;
      this.#logger.info(`Leading: ${lease} is acquired by ${this.#lock.identity}.`);
      this.#changes.send({ type: "gained" });
      const lost = await this.#renew(signal);
      if (!lost) return; // stopping: leading until the release
      this.#leading = false;
      const deadline = this.#clock.now() + this.#timings.leaseDuration -
        this.#timings.renewDeadline;
      this.#logger.error(
        `Leadership is lost: ${lease} could not be renewed for ` +
          `${this.#timings.renewDeadline}s; handling stops, and the operator waits on ` +
          `standby for the leadership again.`,
      );
      const handover = new Handover(deadline);
      this.#changes.send({ type: "losing", handover });
      await handover.completed;
    }
  }

  /** Try until acquired (true) or stopped (false). */
  async #acquire(signal: AbortSignal): Promise<boolean> {
    const streak = new FailureStreak({
      logger: this.#logger,
      what: `Acquiring the Lease ${this.#lock.name}`,
      clock: this.#clock,
    });
    let reported: string | undefined;
    while (!signal.aborted) {
      try {
        if (await this.#attempt(this.#timings.renewDeadline, signal)) {
          streak.succeeded();
          return true;
        }
        streak.succeeded();
        const holder = this.#lock.observed?.holderIdentity;
        if (holder && holder !== reported) {
          reported = holder;
          this.#logger.info(
            `On standby: the Lease ${this.#lock.name} is held by ${holder}; ` +
              `taking over if it is not renewed for ${this.#timings.leaseDuration}s.`,
          );
        }
      } catch (error) {
        if (signal.aborted) return false;
        streak.failed({ reason: summarizeError(error), retryIn: this.#timings.retryPeriod });
      }
      const pause = this.#timings.retryPeriod * (1 + this.#random() * JITTER_FACTOR);
      if (!await sleep(pause, signal, this.#clock)) return false;
    }
    return false;
  }

  /** Renew every retry period; true when the renew deadline passed (lost), false if stopped. */
  async #renew(signal: AbortSignal): Promise<boolean> {
    let renewed = this.#clock.now();
    while (!signal.aborted) {
      if (!await sleep(this.#timings.retryPeriod, signal, this.#clock)) return false;
      const left = renewed + this.#timings.renewDeadline - this.#clock.now();
      if (left <= 0) return true;
      try {
        if (await this.#attempt(left, signal)) {
          renewed = this.#clock.now();
          continue;
        }
        if (!this.#lock.held) {
          this.#logger.warning(
            `The Lease ${this.#lock.name} is held by ${
              this.#lock.observed?.holderIdentity || "nobody"
            } now.`,
          );
          return true;
        }
      } catch (error) {
        if (signal.aborted) return false;
        this.#logger.warning(
          `Renewing the Lease ${this.#lock.name} failed (${summarizeError(error)}); ` +
            `retrying in ${this.#timings.retryPeriod}s, up to ${
              Math.max(0, left).toFixed(1)
            }s more.`,
        );
      }
      if (renewed + this.#timings.renewDeadline <= this.#clock.now()) return true;
    }
    return false;
  }

  /** One attempt, cut off after `seconds` (a hanging request must not outlast a deadline). */
  async #attempt(seconds: number, signal: AbortSignal): Promise<boolean> {
    const timeout = new AbortController();
    const cancel = this.#clock.schedule(seconds, () => timeout.abort());
    try {
      return await this.#lock.tryAcquireOrRenew(AbortSignal.any([signal, timeout.signal]));
    } finally {
      cancel();
    }
  }

  /**
   * Give the Lease back (if held), once the operator's work is finished: a standby takes
   * over at once. Failures are reported; the lease then expires by itself.
   */
  async release(): Promise<void> {
    this.#leading = false;
    this.#changes.close();
    if (!this.#lock.held) return;
    const timeout = new AbortController();
    const cancel = this.#clock.schedule(this.#timings.renewDeadline, () => timeout.abort());
    try {
      if (await this.#lock.release(timeout.signal)) {
        this.#logger.info(`The Lease ${this.#lock.name} is released.`);
      }
    } catch (error) {
      this.#logger.warning(
        `Releasing the Lease ${this.#lock.name} failed (${summarizeError(error)}); another ` +
          `replica takes over when it expires in ${this.#lock.leaseDuration}s.`,
      );
    } finally {
      cancel();
    }
  }
}
