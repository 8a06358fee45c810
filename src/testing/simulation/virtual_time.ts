/**
 * Virtual time: a clock that moves only when the simulation's driver says so, and the
 * timers on it. The driver takes one due timer at a time, in order of time (and of
 * scheduling among equal times, as the runtime's own timers do), and lets every promise
 * reaction that timer caused run before the next: hours of backoffs, lease renewals and
 * handler timeouts pass in as many steps as there are timers.
 *
 * @module
 */
import type { Clock } from "../../structs/clock.ts";
import { KopfError } from "../../structs/errors.ts";
import { nextMacrotask } from "../../platform/macrotasks.ts";
import { bindToCurrentContext } from "../../platform/async_context.ts";

/** The simulation cannot go on: time would have to stand still for ever. */
export class SimulationStallError extends KopfError {
  /** The error's name. */
  override name = "SimulationStallError";
}

interface Timer {
  readonly id: number;
  at: number;
  seq: number;
  readonly callback: () => void;
  /** Seconds between calls of an interval; `undefined` for a one-off timer. */
  readonly every: number | undefined;
  cancelled: boolean;
}

/** Timers due at the same time keep the order they were scheduled in. */
function earlier(a: Timer, b: Timer): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

/** Consecutive steps at one instant before the driver calls it a spin. */
const MAX_STEPS_AT_ONE_TIME = 200_000;

/** A clock of virtual time and its timers; see the module. */
export class VirtualTime implements Clock {
  #now = 0;
  #seq = 0;
  #ids = 0;
  readonly #heap: Timer[] = [];
  readonly #byId = new Map<number, Timer>();
  /** Timers fired so far. */
  steps = 0;
  /** What timers threw: a runtime would report them as uncaught. */
  readonly uncaught: unknown[] = [];

  /** @param epoch The wall time (ms since the Unix epoch) at the simulation's start. */
  constructor(readonly epoch: number) {}

  /** Seconds since the simulation's start. */
  now(): number {
    return this.#now;
  }

  /** The virtual wall time, in milliseconds since the Unix epoch. */
  wall(): number {
    return this.epoch + this.#now * 1000;
  }

  /** {@link Clock.schedule} on virtual time. */
  schedule(seconds: number, callback: () => void): () => void {
    if (seconds === Infinity) return () => {};
    const id = this.add(seconds, callback, undefined);
    return () => this.cancel(id);
  }

  /**
   * A timer in `seconds` (an interval if `every` is given); returns its id. The callback
   * runs in the async context of the caller, as a runtime timer's does.
   */
  add(seconds: number, callback: () => void, every: number | undefined): number {
    const id = ++this.#ids;
    const delay = Number.isFinite(seconds) && seconds > 0 ? seconds : 0;
    const timer: Timer = {
      id,
      at: this.#now + delay,
      seq: ++this.#seq,
      callback: bindToCurrentContext(callback),
      every: every === undefined ? undefined : Math.max(every, 0.001),
      cancelled: false,
    };
    this.#byId.set(id, timer);
    this.#push(timer);
    return id;
  }

  /** Cancel a timer by its id; unknown ids are ignored. */
  cancel(id: number): void {
    const timer = this.#byId.get(id);
    if (timer === undefined) return;
    timer.cancelled = true;
    this.#byId.delete(id);
  }

  /** How many timers are waiting. */
  get pending(): number {
    return this.#byId.size;
  }

  /** When the next timer is due; `undefined` if none is. */
  nextDue(): number | undefined {
    this.#dropCancelled();
    return this.#heap[0]?.at;
  }

  /**
   * Run until `done()` says so, or until the time `limit` (seconds since the start) is
   * reached (the clock then stands at it). Resolves with why it stopped: `done`, `limit`,
   * or `idle` (no timer is left and `done()` is still false: nothing can happen).
   */
  async run(done: () => boolean, limit: number): Promise<"done" | "limit" | "idle"> {
    let sameTime = 0;
    for (;;) {
      await nextMacrotask();
      if (done()) return "done";
      const due = this.nextDue();
      if (due === undefined) return "idle";
      if (due > limit) {
        this.#now = Math.max(this.#now, limit);
        return "limit";
      }
      sameTime = due > this.#now ? 0 : sameTime + 1;
      if (sameTime > MAX_STEPS_AT_ONE_TIME) {
        throw new SimulationStallError(
          `Timers kept firing at ${this.#now.toFixed(3)} s of simulated time without it ` +
            `moving on (${MAX_STEPS_AT_ONE_TIME} steps): something reschedules itself with no delay.`,
        );
      }
      this.#fire();
    }
  }

  #fire(): void {
    this.#dropCancelled();
    const timer = this.#pop()!;
    this.#now = Math.max(this.#now, timer.at);
    this.steps++;
    if (timer.every !== undefined) {
      timer.at = this.#now + timer.every;
      timer.seq = ++this.#seq;
      this.#push(timer);
    } else {
      this.#byId.delete(timer.id);
    }
    try {
      timer.callback();
    } catch (error) {
      this.uncaught.push(error);
    }
  }

  #dropCancelled(): void {
    while (this.#heap.length > 0 && this.#heap[0].cancelled) this.#pop();
  }

  #push(timer: Timer): void {
    const heap = this.#heap;
    heap.push(timer);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!earlier(heap[i], heap[parent])) break;
      [heap[i], heap[parent]] = [heap[parent], heap[i]];
      i = parent;
    }
  }

  #pop(): Timer | undefined {
    const heap = this.#heap;
    const top = heap[0];
    if (top === undefined) return undefined;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let least = i;
        if (left < heap.length && earlier(heap[left], heap[least])) least = left;
        if (right < heap.length && earlier(heap[right], heap[least])) least = right;
        if (least === i) break;
        [heap[i], heap[least]] = [heap[least], heap[i]];
        i = least;
      }
    }
    return top;
  }
}
