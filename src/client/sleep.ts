/**
 * Pauses that end early when the operation is cancelled.
 *
 * @module
 */

/** Wait for the given seconds; rejects with the signal's reason when it aborts first. */
export function sleep(seconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, Math.max(0, seconds * 1000));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
