/**
 * Abort listeners that cost the same however many there are on one signal.
 *
 * An `EventTarget` keeps its listeners in a list and searches it on every
 * `addEventListener` and `removeEventListener`: with thousands of listeners on one
 * signal -- the operator's stop signal, followed by every waiting worker and every
 * request in flight -- each call costs in proportion (~170 us at 10,000 listeners on
 * Deno, 2 us with none), and a burst of objects becomes quadratic. Here each signal has
 * one real listener, which calls the listeners of a set: adding and removing one is O(1).
 *
 * @module
 */

/**
 * A listener object: its `handleAbort()` is called. An object that has its own state to
 * act on (a request's attempt, a waiter) listens as it is, with no closure made to bind it.
 */
export interface AbortListener {
  handleAbort(): void;
}

/** The listeners of each signal that has any (or had: the set stays, empty, once made). */
const fanOuts = new WeakMap<AbortSignal, Set<AbortListener>>();

/** The listeners of the signal, made (and followed) at the first. */
function listenersOf(signal: AbortSignal): Set<AbortListener> {
  let listeners = fanOuts.get(signal);
  if (listeners === undefined) {
    const set = new Set<AbortListener>();
    listeners = set;
    fanOuts.set(signal, set);
    signal.addEventListener("abort", () => {
      const called = [...set];
      set.clear();
      for (const each of called) {
        try {
          each.handleAbort();
        } catch (error) {
          queueMicrotask(() => {
            throw error;
          });
        }
      }
    }, { once: true });
  }
  return listeners;
}

/**
 * Call `listener` once when the signal aborts (not at all if it has aborted already: check
 * `signal.aborted` first). Returns the function that removes it. The listeners of one
 * signal are called in the order they were added; one that throws does not stop the
 * others (its error is rethrown in a microtask, as an event listener's would be reported).
 */
export function onAbort(signal: AbortSignal, listener: () => void): () => void {
  const listeners = listenersOf(signal);
  const own: AbortListener = { handleAbort: listener }; // its own entry, even if added twice
  listeners.add(own);
  return () => {
    listeners.delete(own);
  };
}

/**
 * Call `listener.handleAbort()` once when the signal aborts, as {@link onAbort} does, until
 * {@link unlistenAbort} removes it: no closures are made for either. An object listens to
 * one signal once at most (adding it again changes nothing).
 */
export function listenAbort(signal: AbortSignal, listener: AbortListener): void {
  listenersOf(signal).add(listener);
}

/** Stop calling the listener when the signal aborts (nothing if it is not listening). */
export function unlistenAbort(signal: AbortSignal, listener: AbortListener): void {
  fanOuts.get(signal)?.delete(listener);
}
