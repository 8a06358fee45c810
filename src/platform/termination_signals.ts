/**
 * Termination signals (SIGINT, SIGTERM) on Deno and on Node.
 *
 * @module
 */
import { nodeProcess } from "./process.ts";

/** The signals that ask an operator to stop. */
export type TerminationSignal = "SIGINT" | "SIGTERM";

const SIGNALS: readonly TerminationSignal[] = ["SIGINT", "SIGTERM"];

/**
 * A repeat of a signal sooner than this (ms) is the same signal delivered twice, not a
 * second Ctrl+C: the terminal signals the whole process group, and a parent such as npx
 * (`npx -y deno task run`) forwards the signal to its child again, within milliseconds.
 */
export const REPEAT_WINDOW_MS = 500;

/**
 * The handler, called once for a signal repeated within {@link REPEAT_WINDOW_MS} of its
 * last call; `now` is the clock in milliseconds.
 */
export function collapsingRepeats(
  handler: (signal: TerminationSignal) => void,
  now: () => number = () => performance.now(),
): (signal: TerminationSignal) => void {
  let last: { signal: TerminationSignal; at: number } | undefined;
  return (signal) => {
    const at = now();
    if (last?.signal === signal && at - last.at < REPEAT_WINDOW_MS) return;
    last = { signal, at };
    handler(signal);
  };
}

/**
 * Call `handler` on every SIGINT and SIGTERM (SIGTERM is not available on Windows and is
 * skipped there), but once for a signal repeated at once (see {@link collapsingRepeats}).
 * Returns the function that removes the listeners.
 */
export function onTerminationSignals(handler: (signal: TerminationSignal) => void): () => void {
  const removers: (() => void)[] = [];
  const collapsed = collapsingRepeats(handler);
  for (const signal of SIGNALS) {
    const listener = () => collapsed(signal);
    try {
      if (typeof Deno !== "undefined") {
        Deno.addSignalListener(signal, listener);
        removers.push(() => Deno.removeSignalListener(signal, listener));
      } else {
        nodeProcess().on(signal, listener);
        removers.push(() => nodeProcess().off(signal, listener));
      }
    } catch {
      // The platform does not support this signal (e.g. SIGTERM on Windows): nothing to listen.
    }
  }
  return () => {
    for (const remove of removers.splice(0)) remove();
  };
}
