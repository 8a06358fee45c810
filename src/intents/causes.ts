/**
 * The cause of a resource-changing cycle: why handlers run for one state of one object. One
 * shape from its detection on -- the handlers' selection and filters, their arguments
 * (`reason`, `old`, `new`, `diff`), the progress' purpose, and what `kopf.execute()`
 * changes of it for sub-handlers.
 *
 * @module
 */

import type { RawBody } from "../structs/bodies.ts";
import type { Diff } from "../structs/diffs.ts";
import type { Reason } from "./reasons.ts";

/** Why a resource-changing cycle runs for one state of one object; see the module docs. */
export interface Cause {
  /** The object as it is now. */
  readonly body: RawBody;
  /** Why the cycle runs. */
  readonly reason: Reason;
  /**
   * The object was first seen by a listing and not yet fully handled in this operator's
   * lifetime: resume handlers mix in (never for creations).
   */
  readonly initial: boolean;
  /** The object is marked for deletion. */
  readonly deleted: boolean;
  /** The last handled essence (the diff-base); `null` when none is stored. */
  readonly old: RawBody | null;
  /** The current essence. */
  readonly new: RawBody;
  /** The changes from `old` to `new`. */
  readonly diff: Diff;
}

/**
 * What `kopf.execute({ cause })` changes about its parent's cause for the sub-handlers it
 * runs: not a cause of its own, only the parts given; the rest of the cause, and the object
 * with its patch, logger and memo, stay the parent's.
 */
export interface CauseOverrides {
  /** The reason: selects the sub-handlers by it, and is their `reason` argument. */
  readonly reason?: "create" | "update" | "delete" | "resume";
  /**
   * The object's old state (an essence, a body, or a handler's `body`; `null` for none):
   * field sub-handlers see their field of it.
   */
  readonly old?: object | null;
  /** The object's new state, likewise. */
  readonly new?: object;
  /** The changes from `old` to `new`; computed from them when they are given without it. */
  readonly diff?: Diff;
}
