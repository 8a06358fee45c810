/**
 * Time, in one place: the operator reads the time and sets timers only through a
 * {@link Clock}, so that a test can replace it (fix the wall time of progress records,
 * or move time by hand) and every part of the operator sees the same time.
 *
 * Two readings, because they answer different questions: {@link Clock.now} measures
 * durations (it never goes backwards, even when the system's time is set), while
 * {@link Clock.wall} is what is written on objects (progress records, peering records)
 * and shown to handlers (`started`), where a time must mean the same to other processes.
 *
 * @module
 */

import { onAbort } from "./abort_listeners.ts";

/** A source of time with cancellable timers. */
export interface Clock {
  /** Seconds since an arbitrary origin, for durations and deadlines; never goes backwards. */
  now(): number;
  /** The wall time: milliseconds since the Unix epoch (fractions allowed), like `Date.now()`. */
  wall(): number;
  /**
   * Call `callback` once after `seconds` on {@link Clock.now}'s scale (as soon as possible
   * for zero or less, but never synchronously; never for an infinite duration). Returns a
   * function that cancels the call if it has not happened yet.
   */
  schedule(seconds: number, callback: () => void): () => void;
}

// setTimeout() overflows above 2^31-1 ms (about 24.8 days): longer timers go in steps.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The real clock: `performance.now()`, `Date.now()` and `setTimeout()`. */
export const realClock: Clock = Object.freeze({
  now: (): number => performance.now() / 1000,
  wall: (): number => Date.now(),
  schedule: (seconds: number, callback: () => void): () => void => {
    if (seconds === Infinity) return () => {};
    const deadline = performance.now() + Math.max(0, seconds) * 1000;
    let timer: ReturnType<typeof setTimeout>;
    const arm = () => {
      const left = deadline - performance.now();
      timer = setTimeout(
        left > MAX_TIMER_MS ? arm : callback,
        Math.min(Math.max(0, left), MAX_TIMER_MS),
      );
    };
    arm();
    return () => clearTimeout(timer);
  },
});

/**
 * Wait `seconds` on the clock (the real one by default), or less if `signal` aborts first.
 * Never rejects: resolves `true` when the time has passed, `false` when aborted, so each
 * caller decides whether an abort is an error (`signal.throwIfAborted()`) or just an end.
 * An infinite duration waits for the signal only.
 */
export function sleep(
  seconds: number,
  signal?: AbortSignal,
  clock: Clock = realClock,
): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const cancel = clock.schedule(seconds, () => {
      unlisten?.();
      resolve(true);
    });
    const unlisten = signal === undefined ? undefined : onAbort(signal, () => {
      cancel();
      resolve(false);
    });
  });
}

/**
 * Whether the promise settles within `seconds` on the clock: false when the time is up
 * first, or when any of the signals aborts first. A rejection of the promise is passed on.
 */
export async function settlesWithin(
  promise: Promise<unknown>,
  seconds: number,
  clock: Clock = realClock,
  ...signals: (AbortSignal | undefined)[]
): Promise<boolean> {
  const stop = new AbortController();
  const unlisten = signals.map((signal) => signal && onAbort(signal, () => stop.abort()));
  if (signals.some((signal) => signal?.aborted)) stop.abort();
  try {
    return await Promise.race([
      promise.then(() => true),
      sleep(Math.max(0, seconds), stop.signal, clock).then(() => false),
    ]);
  } finally {
    stop.abort();
    for (const remove of unlisten) remove?.();
  }
}
