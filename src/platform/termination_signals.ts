/**
 * Termination signals (SIGINT, SIGTERM) on Deno and on Node.
 *
 * @module
 */
import process from "node:process";

/** The signals that ask an operator to stop. */
export type TerminationSignal = "SIGINT" | "SIGTERM";

const SIGNALS: readonly TerminationSignal[] = ["SIGINT", "SIGTERM"];

/**
 * Call `handler` on every SIGINT and SIGTERM (SIGTERM is not available on Windows and is
 * skipped there). Returns the function that removes the listeners.
 */
export function onTerminationSignals(handler: (signal: TerminationSignal) => void): () => void {
  const removers: (() => void)[] = [];
  for (const signal of SIGNALS) {
    const listener = () => handler(signal);
    try {
      if (typeof Deno !== "undefined") {
        Deno.addSignalListener(signal, listener);
        removers.push(() => Deno.removeSignalListener(signal, listener));
      } else {
        process.on(signal, listener);
        removers.push(() => process.off(signal, listener));
      }
    } catch {
      // The platform does not support this signal (e.g. SIGTERM on Windows): nothing to listen.
    }
  }
  return () => {
    for (const remove of removers.splice(0)) remove();
  };
}
