/**
 * One turn of the runtime's event loop, without the clamping of nested `setTimeout(0)`
 * (4 ms after five levels): the simulation's driver waits for it between two steps, so
 * that every promise reaction queued by a step has run before the next one is taken.
 *
 * @module
 */
import { setImmediate } from "node:timers";

/**
 * Resolves in the next macrotask of the event loop: after every microtask queued before
 * it. Bound at import, so that replacing the global timers (as the simulation does) does
 * not change it.
 */
export function nextMacrotask(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
