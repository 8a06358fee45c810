/**
 * Timeouts of one fixed length for many things at once (e.g. every API request of a
 * client), on one timer: their deadlines come in the order they were added, so they wait
 * in a queue and only the first one is timed. Adding and cancelling are O(1) -- where a
 * timer each (`setTimeout` + `clearTimeout` per request) costs a runtime timer object and
 * its bookkeeping for every request, and most of them are cancelled long before they fire.
 *
 * @module
 */

import { type Clock, realClock } from "./clock.ts";

/**
 * What a deadline calls when it passes: an object's `expire()`. An object with its own
 * state to act on (a request's attempt) waits as it is, with no closure made to bind it.
 */
export interface Expiring {
  expire(): void;
}

declare const deadlineBrand: unique symbol;

/** A deadline waiting in a queue, for {@link DeadlineQueue.cancel}. */
export interface Deadline {
  readonly [deadlineBrand]: true;
}

interface Entry {
  readonly at: number;
  target: Expiring | undefined; // undefined once called or cancelled
  next: Entry | undefined;
}

/** How a {@link DeadlineQueue} treats its timer. */
export interface DeadlineQueueOptions {
  /**
   * When cancellations empty the queue, leave the timer to fire (at most the queue's
   * seconds later, then not armed again) instead of cancelling it and arming a new one for
   * the next deadline: for a queue that empties and refills for every one of many things
   * processed one after another. {@link DeadlineQueue.clear} drops it at once.
   */
  readonly keepTimer?: boolean;
}

/** Callbacks called a fixed number of seconds after each was added, unless cancelled. */
export class DeadlineQueue {
  readonly #seconds: number;
  readonly #clock: Clock;
  readonly #keepTimer: boolean;
  #head: Entry | undefined;
  #tail: Entry | undefined;
  #cancelTimer: (() => void) | undefined;
  #size = 0;
  /** The timer's callback, made once: the timer is armed again whenever the queue refills. */
  readonly #onTimer = () => this.#fire();

  /** A queue of timeouts of `seconds` each, on the given clock (the real one by default). */
  constructor(seconds: number, clock: Clock = realClock, options: DeadlineQueueOptions = {}) {
    this.#seconds = seconds;
    this.#clock = clock;
    this.#keepTimer = options.keepTimer ?? false;
  }

  /** How long each timeout of the queue lasts, in seconds. */
  get seconds(): number {
    return this.#seconds;
  }

  /** How many callbacks wait (neither called nor cancelled). */
  get size(): number {
    return this.#size;
  }

  /** Call `callback` after the queue's seconds; returns the function that cancels it. */
  add(callback: () => void): () => void {
    const entry = this.#push({ expire: callback });
    return () => this.#cancel(entry);
  }

  /**
   * Call `target.expire()` after the queue's seconds, unless {@link cancel}led: an entry
   * of the queue is all it costs, where {@link add} also makes a function to cancel it.
   */
  enter(target: Expiring): Deadline {
    return this.#push(target) as unknown as Deadline;
  }

  /** Cancel a deadline of this queue (nothing if it has passed or was cancelled). */
  cancel(deadline: Deadline): void {
    this.#cancel(deadline as unknown as Entry);
  }

  #push(target: Expiring): Entry {
    const entry: Entry = { at: this.#clock.now() + this.#seconds, target, next: undefined };
    if (this.#tail === undefined) this.#head = entry;
    else this.#tail.next = entry;
    this.#tail = entry;
    this.#size++;
    if (this.#cancelTimer === undefined) this.#arm();
    return entry;
  }

  #cancel(entry: Entry): void {
    if (entry.target === undefined) return;
    entry.target = undefined;
    this.#size--;
    this.#drop();
    if (this.#head === undefined && !this.#keepTimer) this.#disarm();
  }

  /** Cancel every deadline, and the timer. */
  clear(): void {
    for (let entry = this.#head; entry !== undefined; entry = entry.next) entry.target = undefined;
    this.#head = this.#tail = undefined;
    this.#size = 0;
    this.#disarm();
  }

  /** Forget the cancelled entries at the front. */
  #drop(): void {
    while (this.#head !== undefined && this.#head.target === undefined) {
      this.#head = this.#head.next;
    }
    if (this.#head === undefined) this.#tail = undefined;
  }

  #arm(): void {
    const head = this.#head;
    if (head === undefined) return;
    this.#cancelTimer = this.#clock.schedule(head.at - this.#clock.now(), this.#onTimer);
  }

  #disarm(): void {
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
  }

  #fire(): void {
    this.#cancelTimer = undefined;
    const now = this.#clock.now();
    while (this.#head !== undefined && this.#head.at <= now) {
      const entry = this.#head;
      this.#head = entry.next;
      if (this.#head === undefined) this.#tail = undefined;
      const target = entry.target;
      if (target === undefined) continue;
      entry.target = undefined;
      this.#size--;
      target.expire();
    }
    this.#drop();
    if (this.#cancelTimer === undefined) this.#arm(); // a callback may have added and armed
  }
}
