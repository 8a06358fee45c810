/**
 * Clocks for tests: one that moves only when told to, one that runs in real time with its
 * wall time set by the test, and deferreds to drive code step by step.
 */
import { type Clock, realClock } from "../src/structs/clock.ts";

/**
 * The real clock (real timers, real durations) with the wall time given by the test: a
 * fixed epoch-milliseconds value or a function of the test's own.
 */
export function wallClockAt(wall: number | (() => number)): Clock {
  return { ...realClock, wall: typeof wall === "number" ? () => wall : wall };
}

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly fire: () => void;
}

/** Let every piece of code that can run without real I/O or real timers run now. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * A clock whose time advances only through {@link ManualClock.advance}; its wall time
 * moves along from `epoch` (epoch milliseconds; 2024-01-01T00:00:00Z by default).
 */
export class ManualClock implements Clock {
  #now = 0;
  #seq = 0;
  #timers: Timer[] = [];
  readonly #epoch: number;

  constructor(epoch: number = Date.UTC(2024, 0, 1)) {
    this.#epoch = epoch;
  }

  now(): number {
    return this.#now;
  }

  wall(): number {
    return this.#epoch + this.#now * 1000;
  }

  schedule(seconds: number, callback: () => void): () => void {
    if (seconds === Infinity) return () => {};
    const timer: Timer = { at: this.#now + Math.max(0, seconds), seq: this.#seq++, fire: callback };
    this.#timers.push(timer);
    return () => {
      this.#timers = this.#timers.filter((t) => t !== timer);
    };
  }

  /** How many timers are waiting for their time to come. */
  get sleepers(): number {
    return this.#timers.length;
  }

  /** Move the time forward, firing the due timers in order and letting their code run. */
  async advance(seconds: number): Promise<void> {
    const target = this.#now + seconds;
    await settle();
    for (;;) {
      const due = this.#timers.filter((t) => t.at <= target);
      if (due.length === 0) break;
      const next = due.reduce((a, b) => (a.at < b.at || (a.at === b.at && a.seq < b.seq) ? a : b));
      this.#timers = this.#timers.filter((t) => t !== next);
      this.#now = Math.max(this.#now, next.at);
      next.fire();
      await settle();
    }
    this.#now = target;
    await settle();
  }
}

/** A promise with its resolvers exposed. */
export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

/** Create a {@link Deferred}. */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
