/**
 * Time for the reactor: a monotonic clock with cancellable timers, replaceable in tests.
 *
 * @module
 */

/** A source of time. All values are in seconds. */
export interface Clock {
  /** Seconds since an arbitrary origin; never goes backwards. */
  now(): number;
  /**
   * Call `callback` once after `seconds` (as soon as possible for zero or less, but never
   * synchronously; never for an infinite duration). Returns a function that cancels the
   * call if it has not happened yet.
   */
  schedule(seconds: number, callback: () => void): () => void;
}

// setTimeout() overflows above 2^31-1 ms (about 24.8 days): longer timers go in steps.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The real clock: `performance.now()` and `setTimeout()`. */
export const realClock: Clock = {
  now: () => performance.now() / 1000,
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
};

/**
 * Resolve after `seconds` on the clock, or as soon as `signal` aborts (resolving, never
 * rejecting). An infinite duration waits for the signal only.
 */
export function sleep(clock: Clock, seconds: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const onAbort = () => {
      cancel();
      resolve();
    };
    const cancel = clock.schedule(seconds, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
