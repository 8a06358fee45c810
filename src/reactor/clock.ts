/**
 * Time for the reactor: a monotonic clock and interruptible sleeps, replaceable in tests.
 *
 * @module
 */

/** A source of time. All values are in seconds. */
export interface Clock {
  /** Seconds since an arbitrary origin; never goes backwards. */
  now(): number;
  /**
   * Resolve after `seconds`, or as soon as `signal` is aborted (resolving, never
   * rejecting). An infinite duration waits for the signal only.
   */
  sleep(seconds: number, signal?: AbortSignal): Promise<void>;
}

// setTimeout() overflows above 2^31-1 ms (about 24.8 days): longer sleeps go in steps.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The real clock: `performance.now()` and `setTimeout()`. */
export const realClock: Clock = {
  now: () => performance.now() / 1000,
  sleep: async (seconds: number, signal?: AbortSignal): Promise<void> => {
    const deadline = performance.now() + seconds * 1000;
    while (!signal?.aborted) {
      const left = deadline - performance.now();
      if (!(left > 0)) return;
      await timerOrAbort(Math.min(left, MAX_TIMER_MS), left === Infinity, signal);
    }
  },
};

function timerOrAbort(ms: number, forever: boolean, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (forever) {
      // Nothing but the signal can end it; without a signal, it never ends (by request).
      signal?.addEventListener("abort", () => resolve(), { once: true });
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
