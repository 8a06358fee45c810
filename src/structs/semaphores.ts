/**
 * A counting semaphore: at most `limit` holders at a time, the others wait in arrival order.
 * The limit may be a function, read again whenever a place is asked for or given back (so
 * that a changed setting takes effect), and a wait may be abandoned with a signal.
 *
 * @module
 */

import { onAbort } from "./abort_listeners.ts";

/** A limit: a number of places, or a function returning it (`null` for no limit). */
export type SemaphoreLimit = number | (() => number | null);

interface Waiter {
  readonly grant: () => void;
  next: Waiter | undefined;
  gone: boolean;
}

/** A counting semaphore; see the module docs. */
export class Semaphore {
  readonly #limit: () => number | null;
  #active = 0;
  #waiting = 0;
  // A linked queue: thousands of objects may wait at once, and arrays shift in O(n).
  #head: Waiter | undefined;
  #tail: Waiter | undefined;

  /** A semaphore for at most `limit` (≥ 1) holders at a time. */
  constructor(limit: SemaphoreLimit) {
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
    const release = await this.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /**
   * Take a place (waiting for a free one first). The returned function gives it back; calls
   * after the first do nothing, so a holder may give its place up early and still call it
   * again when done. If `signal` aborts first, the wait ends with its reason, placeless.
   */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    this.#pass(); // a raised limit, or waiters gone meanwhile, may have freed places
    if (this.#head === undefined && this.#free()) {
      this.#active++;
    } else {
      await this.#enqueue(signal);
    }
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

  #enqueue(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          unlisten?.();
          resolve();
        },
        next: undefined,
        gone: false,
      };
      // One listener per signal: thousands of waiters may wait with the same one.
      const unlisten = signal === undefined ? undefined : onAbort(signal, () => {
        waiter.gone = true; // skipped when its turn comes
        this.#waiting--;
        reject(signal.reason);
      });
      if (this.#tail === undefined) this.#head = waiter;
      else this.#tail.next = waiter;
      this.#tail = waiter;
      this.#waiting++;
    });
  }

  /** Give free places to the longest waiters. */
  #pass(): void {
    while (this.#head !== undefined && this.#free()) {
      const waiter = this.#head;
      this.#head = waiter.next;
      if (this.#head === undefined) this.#tail = undefined;
      if (waiter.gone) continue;
      this.#waiting--;
      this.#active++;
      waiter.grant();
    }
  }
}
