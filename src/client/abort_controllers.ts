/**
 * Child abort controllers that follow a parent signal.
 *
 * `AbortSignal.any()` would do, but its combined signal is only weakly held by its
 * sources: if nothing else references it, it can be garbage-collected and then never
 * fires (seen on Deno with long-lived streams). Here the parent's listener holds the child
 * strongly until it is unlinked. The parent's listeners are kept by `onAbort`, one per
 * parent: many children of one parent (every request in flight) cost O(1) each.
 *
 * @module
 */

import { onAbort } from "../structs/abort_listeners.ts";

/** A controller aborted by its own `abort()` or by the parent's abort. */
export interface ChildController {
  /** The child controller; its signal aborts with the parent's reason too. */
  readonly controller: AbortController;
  /** The child's signal. */
  readonly signal: AbortSignal;
  /** Stop following the parent (call when the child's work is over). */
  unlink(): void;
}

/** Make a controller that follows the parent signal (if any). */
export function childController(parent?: AbortSignal): ChildController {
  const controller = new AbortController();
  if (parent?.aborted) controller.abort(parent.reason);
  const unlink = parent === undefined || parent.aborted
    ? () => {}
    : onAbort(parent, () => controller.abort(parent.reason));
  return { controller, signal: controller.signal, unlink };
}
