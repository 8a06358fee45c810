/**
 * A counting semaphore: at most `limit` holders at a time, the others wait in arrival order.
 *
 * @module
 */

/** A counting semaphore; see the module docs. */
export class Semaphore {
  readonly #limit: number;
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  /** A semaphore for at most `limit` (≥ 1) holders at a time. */
  constructor(limit: number) {
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new RangeError(`A semaphore's limit must be an integer ≥ 1, got ${limit}.`);
    }
    this.#limit = limit;
  }

  /** How many hold it now. */
  get active(): number {
    return this.#active;
  }

  /** How many wait for it now. */
  get waiting(): number {
    return this.#waiting.length;
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
   * again when done.
   */
  async acquire(): Promise<() => void> {
    if (this.#active >= this.#limit) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#active++;
    }
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const next = this.#waiting.shift();
      if (next !== undefined) next(); // the place passes on directly: `active` stays
      else this.#active--;
    };
  }
}
