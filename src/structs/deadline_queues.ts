/**
 * Timeouts of one fixed length for many things at once (e.g. every API request of a
 * client), on one timer: their deadlines come in the order they were added, so they wait
 * in a queue and only the first one is timed. Adding and cancelling are O(1) — where a
 * timer each (`setTimeout` + `clearTimeout` per request) costs a runtime timer object and
 * its bookkeeping for every request, and most of them are cancelled long before they fire.
 *
 * @module
 */

import { type Clock, realClock } from "./clock.ts";

interface Entry {
  readonly at: number;
  callback: (() => void) | undefined; // undefined once called or cancelled
  next: Entry | undefined;
}

/** Callbacks called a fixed number of seconds after each was added, unless cancelled. */
export class DeadlineQueue {
  readonly #seconds: number;
  readonly #clock: Clock;
  #head: Entry | undefined;
  #tail: Entry | undefined;
  #cancelTimer: (() => void) | undefined;
  #size = 0;
  /** The timer's callback, made once: the timer is armed again whenever the queue refills. */
  readonly #onTimer = () => this.#fire();

  /** A queue of timeouts of `seconds` each, on the given clock (the real one by default). */
  constructor(seconds: number, clock: Clock = realClock) {
    this.#seconds = seconds;
    this.#clock = clock;
  }

  /** How many callbacks wait (neither called nor cancelled). */
  get size(): number {
    return this.#size;
  }

  /** Call `callback` after the queue's seconds; returns the function that cancels it. */
  add(callback: () => void): () => void {
    const entry: Entry = { at: this.#clock.now() + this.#seconds, callback, next: undefined };
    if (this.#tail === undefined) this.#head = entry;
    else this.#tail.next = entry;
    this.#tail = entry;
    this.#size++;
    if (this.#cancelTimer === undefined) this.#arm();
    return () => {
      if (entry.callback === undefined) return;
      entry.callback = undefined;
      this.#size--;
      this.#drop();
      if (this.#head === undefined) this.#disarm();
    };
  }

  /** Forget the cancelled entries at the front. */
  #drop(): void {
    while (this.#head !== undefined && this.#head.callback === undefined) {
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
      const callback = entry.callback;
      if (callback === undefined) continue;
      entry.callback = undefined;
      this.#size--;
      callback();
    }
    this.#drop();
    if (this.#cancelTimer === undefined) this.#arm(); // a callback may have added and armed
  }
}
