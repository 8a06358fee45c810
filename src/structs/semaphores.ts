/**
 * A counting semaphore: at most `limit` holders at a time, the others wait in arrival order.
 * The limit may be a function, read again whenever a place is asked for or given back (so
 * that a changed setting takes effect), and a wait may be abandoned with a signal.
 *
 * With {@link FairLanes}, the waiters wait in a {@link FairQueue}: in lanes served by
 * priority, where a lower lane's waiter goes first once it has waited its lane's handicap
 * (served later, never starved), and within a lane the tenants take turns.
 *
 * @module
 */

import { type AbortListener, listenAbort, unlistenAbort } from "./abort_listeners.ts";
import { FairItem, type FairLanes, FairQueue } from "./fair_queues.ts";

/** A limit: a number of places, or a function returning it (`null` for no limit). */
export type SemaphoreLimit = number | (() => number | null);

/**
 * Where a wait for a place is found again while it waits, to move it to another lane
 * ({@link Semaphore.promote}): set while it waits, cleared once it has its place or is gone.
 */
export interface SemaphoreTicket {
  wait: object | undefined;
}

/**
 * Who waits with {@link Semaphore.wait}: told once, when the wait ends. Its methods are
 * called rather than a promise settled: thousands of objects may wait at once, and each
 * promise, its two functions and whoever awaits it would be kept until the place comes.
 */
export interface SemaphoreHolder {
  /** The place is taken for it; `release` gives it back (calls after the first do nothing). */
  granted(release: () => void): void;
  /** The signal aborted first: no place, for this reason. */
  refused(reason: unknown): void;
}

/** What a waiter tells: a holder, or a promise's functions (no release given to `run`'s). */
interface WaitEnd {
  granted(release: (() => void) | undefined): void;
  refused(reason: unknown): void;
}

/** A wait for a place; with a signal, it listens to it itself (no closures per waiter). */
class Waiter extends FairItem implements AbortListener {
  constructor(
    /** Told when the wait ends. */
    readonly end: WaitEnd,
    /** Whether the waiter is given a release function (`acquire`, `wait`) or not (`run`). */
    readonly releasable: boolean,
    readonly signal: AbortSignal | undefined,
    /** Takes an abandoned waiter out of the queue: one function per semaphore. */
    readonly abandoned: (waiter: Waiter) => void,
    /** Where the waiter can be found while it waits, if anywhere. */
    readonly ticket: SemaphoreTicket | undefined,
  ) {
    super();
  }

  handleAbort(): void {
    if (this.ticket !== undefined) this.ticket.wait = undefined;
    this.abandoned(this);
    this.end.refused(this.signal!.reason);
  }
}

/** A counting semaphore; see the module docs. */
export class Semaphore {
  readonly #limit: () => number | null;
  #active = 0;
  // Linked through the waiters: thousands of objects may wait at once.
  readonly #queue: FairQueue<Waiter>;
  readonly #abandoned = (waiter: Waiter) => this.#queue.remove(waiter);

  /** A semaphore for at most `limit` (>= 1) holders at a time; its waiters in fair lanes. */
  constructor(limit: SemaphoreLimit, lanes?: FairLanes) {
    this.#queue = new FairQueue(lanes);
    if (typeof limit === "number") {
      if (!Number.isSafeInteger(limit) || limit < 1) {
        throw new RangeError(`A semaphore's limit must be an integer \u2265 1, got ${limit}.`);
      }
      this.#limit = () => limit;
    } else {
      this.#limit = limit;
    }
  }

  /** How many hold it now. */
  get active(): number {
    return this.#active;
  }

  /** How many wait for it now. */
  get waiting(): number {
    return this.#queue.size;
  }

  /** Run `fn` while holding the semaphore (waiting for a free place first). */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    // The place is counted here, not through a release function: one closure less per run.
    if (!this.#take()) await this.#enqueue(undefined, false, 0, "", undefined);
    try {
      return await fn();
    } finally {
      this.#active--;
      this.#pass();
    }
  }

  /**
   * Take a place (waiting for a free one first). The returned function gives it back; calls
   * after the first do nothing, so a holder may give its place up early and still call it
   * again when done. If `signal` aborts first, the wait ends with its reason, placeless.
   * The waiter waits in `lane` (0 the first; clamped to the lanes there are) among the
   * waiters of its `tenant`; with a `ticket`, it can be moved to another lane while it waits.
   */
  acquire(
    signal?: AbortSignal,
    lane = 0,
    tenant = "",
    ticket?: SemaphoreTicket,
  ): Promise<() => void> {
    // Not async: a free place costs a resolved promise, not an async function's machinery.
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#take()) return Promise.resolve(this.#releaser());
    return this.#enqueue(signal, true, lane, tenant, ticket) as Promise<() => void>;
  }

  /**
   * Take a place for `holder`, as {@link acquire} does, but told through its methods rather
   * than a promise: `granted` at once (before this returns) if a place is free and nobody
   * waits, else when its turn comes; `refused` if `signal` aborts first (at once if it has).
   */
  wait(
    holder: SemaphoreHolder,
    signal?: AbortSignal,
    lane = 0,
    tenant = "",
    ticket?: SemaphoreTicket,
  ): void {
    if (signal?.aborted) holder.refused(signal.reason);
    else if (this.#take()) holder.granted(this.#releaser());
    else this.#queueWaiter(holder as WaitEnd, true, signal, lane, tenant, ticket);
  }

  /**
   * A place if one is free now and nobody waits (its release function), else `undefined`:
   * for callers that would otherwise await an already settled promise on every call.
   */
  tryAcquire(): (() => void) | undefined {
    return this.#take() ? this.#releaser() : undefined;
  }

  /**
   * Move the wait of a ticket to a lane before its own, if it waits here: see
   * {@link FairQueue.promote}. True if it was moved.
   */
  promote(ticket: SemaphoreTicket, lane: number): boolean {
    const wait = ticket.wait;
    return wait instanceof Waiter && this.#queue.promote(wait, lane);
  }

  /** Count a place taken if one is free and nobody waits for it. */
  #take(): boolean {
    this.#pass(); // a raised limit, or waiters gone meanwhile, may have freed places
    if (!this.#queue.empty) return false;
    if (!this.#free()) return false;
    this.#active++;
    return true;
  }

  /** The function that gives a place back, once. */
  #releaser(): () => void {
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#active--;
      this.#pass();
    };
  }

  #free(): boolean {
    const limit = this.#limit();
    return limit === null || this.#active < Math.max(1, limit);
  }

  /** Wait in the queue; resolves once a place is counted for this waiter. */
  #enqueue(
    signal: AbortSignal | undefined,
    releasable: boolean,
    lane: number,
    tenant: string,
    ticket: SemaphoreTicket | undefined,
  ): Promise<(() => void) | undefined> {
    return new Promise((granted, refused) => {
      this.#queueWaiter({ granted, refused }, releasable, signal, lane, tenant, ticket);
    });
  }

  /** Put a waiter in the queue, findable through its ticket and listening to its signal. */
  #queueWaiter(
    end: WaitEnd,
    releasable: boolean,
    signal: AbortSignal | undefined,
    lane: number,
    tenant: string,
    ticket: SemaphoreTicket | undefined,
  ): void {
    const waiter = new Waiter(end, releasable, signal, this.#abandoned, ticket);
    if (ticket !== undefined) ticket.wait = waiter;
    // One listener per signal: thousands of waiters may wait with the same one.
    if (signal !== undefined) listenAbort(signal, waiter);
    this.#queue.push(waiter, lane, tenant);
  }

  /** Give free places to the waiters whose turn it is (see the module docs). */
  #pass(): void {
    while (this.#free()) {
      const waiter = this.#queue.shift();
      if (waiter === undefined) return;
      this.#active++;
      if (waiter.ticket !== undefined) waiter.ticket.wait = undefined;
      if (waiter.signal !== undefined) unlistenAbort(waiter.signal, waiter);
      waiter.end.granted(waiter.releasable ? this.#releaser() : undefined);
    }
  }
}
