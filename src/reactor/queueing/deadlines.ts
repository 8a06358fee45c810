/**
 * Many deadlines on one timer: items are kept in a min-heap by their deadline, and only
 * the earliest one has a timer on the clock. Thousands of idle objects then cost a heap
 * slot each instead of a timer, a promise and their closures each.
 *
 * @module
 */

import type { Clock } from "../../structs/clock.ts";

/** What can be scheduled: it carries its own deadline and its place in the heap. */
export interface Scheduled {
  /** When it is due, in the clock's seconds; set by {@link Deadlines.schedule}. */
  deadline: number;
  /** Its index in the heap; -1 when not scheduled. Owned by {@link Deadlines}. */
  slot: number;
}

/** Timers may fire a hair early (millisecond rounding): this much early counts as due. */
export const TOLERANCE = 0.001;

/** A set of scheduled items; `onDue` is called for each when its deadline has come. */
export class Deadlines<T extends Scheduled> {
  readonly #clock: Clock;
  readonly #onDue: (item: T) => void;
  readonly #heap: T[] = [];
  #cancelTimer: (() => void) | undefined;
  #timerAt = Infinity;

  /** Deadlines on the `clock`, each reported to `onDue` once when due. */
  constructor(clock: Clock, onDue: (item: T) => void) {
    this.#clock = clock;
    this.#onDue = onDue;
  }

  /** How many items are scheduled. */
  get size(): number {
    return this.#heap.length;
  }

  /** Schedule an item at `deadline`, or move it there if it is scheduled already. */
  schedule(item: T, deadline: number): void {
    const added = item.slot < 0;
    const earlier = added || deadline < item.deadline;
    item.deadline = deadline;
    if (added) {
      item.slot = this.#heap.length;
      this.#heap.push(item);
    }
    if (earlier) this.#up(item.slot);
    else this.#down(item.slot);
    this.#arm();
  }

  /** Unschedule an item (nothing happens if it is not scheduled). */
  cancel(item: T): void {
    this.#remove(item);
    this.#arm();
  }

  #remove(item: T): void {
    const slot = item.slot;
    if (slot < 0) return;
    item.slot = -1;
    const last = this.#heap.pop()!;
    if (last !== item) {
      this.#heap[slot] = last;
      last.slot = slot;
      this.#up(slot);
      this.#down(last.slot);
    }
  }

  /** Unschedule everything and stop the timer. */
  clear(): void {
    for (const item of this.#heap) item.slot = -1;
    this.#heap.length = 0;
    this.#arm();
  }

  /**
   * Keep one timer, due no later than the earliest deadline (none when empty). A timer due
   * earlier is kept: when the earliest item is cancelled or moved later (a worker's idle
   * deadline, at every start of a worker), the timer then fires once for nothing and is
   * armed for the next, rather than being cleared and set again at every change -- timers
   * cost a runtime object each, and workers start and stop thousands of times a second.
   */
  #arm(): void {
    const at = this.#heap.length > 0 ? this.#heap[0].deadline : Infinity;
    if (at === this.#timerAt || (at > this.#timerAt && at !== Infinity)) return;
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    this.#timerAt = at;
    if (at === Infinity) return;
    this.#cancelTimer = this.#clock.schedule(at - this.#clock.now(), () => this.#fire());
  }

  #fire(): void {
    this.#cancelTimer = undefined;
    this.#timerAt = Infinity;
    const now = this.#clock.now() + TOLERANCE;
    // Take all due items out first: the callbacks may schedule them (or others) again.
    const due: T[] = [];
    while (this.#heap.length > 0 && this.#heap[0].deadline <= now) {
      const item = this.#heap[0];
      this.#remove(item);
      due.push(item);
    }
    this.#arm();
    for (const item of due) this.#onDue(item);
  }

  #up(slot: number): void {
    const heap = this.#heap;
    const item = heap[slot];
    while (slot > 0) {
      const parent = (slot - 1) >> 1;
      if (heap[parent].deadline <= item.deadline) break;
      heap[slot] = heap[parent];
      heap[slot].slot = slot;
      slot = parent;
    }
    heap[slot] = item;
    item.slot = slot;
  }

  #down(slot: number): void {
    const heap = this.#heap;
    const item = heap[slot];
    const size = heap.length;
    for (;;) {
      let child = 2 * slot + 1;
      if (child >= size) break;
      if (child + 1 < size && heap[child + 1].deadline < heap[child].deadline) child++;
      if (heap[child].deadline >= item.deadline) break;
      heap[slot] = heap[child];
      heap[slot].slot = slot;
      slot = child;
    }
    heap[slot] = item;
    item.slot = slot;
  }
}
