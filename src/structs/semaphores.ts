/**
 * A counting semaphore: at most `limit` holders at a time, the others wait in arrival order.
 * The limit may be a function, read again whenever a place is asked for or given back (so
 * that a changed setting takes effect), and a wait may be abandoned with a signal.
 *
 * With {@link Lanes}, waiters wait in one of two lanes: the first lane's go first, but a
 * waiter of the second lane that has waited `aging` seconds goes before them (so that it is
 * served later, never starved).
 *
 * @module
 */

import { type AbortListener, listenAbort, unlistenAbort } from "./abort_listeners.ts";

/** A limit: a number of places, or a function returning it (`null` for no limit). */
export type SemaphoreLimit = number | (() => number | null);

/** Two lanes of waiters: see the module docs. */
export interface Lanes {
  /** Seconds after which a waiter of the second lane goes before the first lane's. */
  readonly aging: number;
  /** The time in seconds (a clock's). */
  readonly now: () => number;
}

/** A wait for a place; with a signal, it listens to it itself (no closures per waiter). */
class Waiter implements AbortListener {
  next: Waiter | undefined = undefined;
  /** Abandoned: skipped when its turn comes. */
  gone = false;
  /** When it began to wait (only with lanes). */
  since = 0;

  constructor(
    readonly resolve: (release: (() => void) | undefined) => void,
    readonly reject: (reason: unknown) => void,
    /** Whether the waiter is given a release function (`acquire`) or not (`run`). */
    readonly releasable: boolean,
    readonly signal: AbortSignal | undefined,
    /** Uncounts an abandoned waiter: one function per semaphore. */
    readonly abandoned: () => void,
  ) {}

  handleAbort(): void {
    this.gone = true;
    this.abandoned();
    this.reject(this.signal!.reason);
  }
}

/** A counting semaphore; see the module docs. */
export class Semaphore {
  readonly #limit: () => number | null;
  #active = 0;
  #waiting = 0;
  // Linked queues: thousands of objects may wait at once, and arrays shift in O(n).
  readonly #first = new Queue();
  readonly #second = new Queue();
  readonly #lanes: Lanes | undefined;
  readonly #abandoned = () => {
    this.#waiting--;
  };

  /** A semaphore for at most `limit` (≥ 1) holders at a time; its waiters in two lanes. */
  constructor(limit: SemaphoreLimit, lanes?: Lanes) {
    this.#lanes = lanes;
    if (typeof limit === "number") {
      if (!Number.isSafeInteger(limit) || limit < 1) {
        throw new RangeError(`A semaphore's limit must be an integer ≥ 1, got ${limit}.`);
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
    return this.#waiting;
  }

  /** Run `fn` while holding the semaphore (waiting for a free place first). */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    // The place is counted here, not through a release function: one closure less per run.
    if (!this.#take()) await this.#enqueue(undefined, false, false);
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
   * With lanes, `later` waits in the second lane.
   */
  acquire(signal?: AbortSignal, later = false): Promise<() => void> {
    // Not async: a free place costs a resolved promise, not an async function's machinery.
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#take()) return Promise.resolve(this.#releaser());
    return this.#enqueue(signal, true, later) as Promise<() => void>;
  }

  /** Count a place taken if one is free and nobody waits for it. */
  #take(): boolean {
    this.#pass(); // a raised limit, or waiters gone meanwhile, may have freed places
    if (this.#first.head !== undefined || this.#second.head !== undefined) return false;
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
    later: boolean,
  ): Promise<(() => void) | undefined> {
    return new Promise((resolve, reject) => {
      const waiter = new Waiter(resolve, reject, releasable, signal, this.#abandoned);
      // One listener per signal: thousands of waiters may wait with the same one.
      if (signal !== undefined) listenAbort(signal, waiter);
      const lanes = this.#lanes;
      if (lanes !== undefined) waiter.since = lanes.now();
      (lanes !== undefined && later ? this.#second : this.#first).push(waiter);
      this.#waiting++;
    });
  }

  /** Give free places to the longest waiters (of the first lane, unless aged; see above). */
  #pass(): void {
    while (this.#free()) {
      const waiter = this.#next();
      if (waiter === undefined) return;
      if (waiter.gone) continue;
      this.#waiting--;
      this.#active++;
      if (waiter.signal !== undefined) unlistenAbort(waiter.signal, waiter);
      waiter.resolve(waiter.releasable ? this.#releaser() : undefined);
    }
  }

  /** The next waiter to take a place, taken out of its lane. */
  #next(): Waiter | undefined {
    const second = this.#second.head;
    if (second === undefined) return this.#first.shift();
    const lanes = this.#lanes!;
    if (this.#first.head === undefined || lanes.now() - second.since >= lanes.aging) {
      return this.#second.shift();
    }
    return this.#first.shift();
  }
}

/** A linked queue of waiters. */
class Queue {
  head: Waiter | undefined = undefined;
  #tail: Waiter | undefined = undefined;

  push(waiter: Waiter): void {
    if (this.#tail === undefined) this.head = waiter;
    else this.#tail.next = waiter;
    this.#tail = waiter;
  }

  shift(): Waiter | undefined {
    const waiter = this.head;
    if (waiter === undefined) return undefined;
    this.head = waiter.next;
    if (this.head === undefined) this.#tail = undefined;
    waiter.next = undefined;
    return waiter;
  }
}
