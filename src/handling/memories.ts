/**
 * What the operator remembers about each object during its lifetime (never persisted), as
 * the handling sees it: the object's memo, whether it was first seen by a listing, whether
 * it has been fully handled once (after which resume handlers do not run again), and the
 * base of a cause in progress. The reactor keeps it, with the rest of what it knows of the
 * object, in its object table (`reactor/objects/`).
 *
 * @module
 */

import type { RawBody } from "../structs/bodies.ts";
import type { Resource } from "../structs/resources.ts";
import type { Patch } from "../structs/patches.ts";
import type { FinalizerChange } from "./application.ts";

/** An outcome that could not be stored yet, kept to be stored again. */
export interface UnstoredOutcome {
  /** The changes to store: results, progress, diff-base. */
  readonly patch: Patch;
  /** The finalizer change that went with them, if any. */
  readonly finalizerChange?: FinalizerChange;
  /** What to store instead if the finalizer change is refused as a conflict. */
  readonly fallback?: Patch;
  /** The ids of the handlers whose outcome it holds, for messages. */
  readonly handlers: readonly string[];
  /** How many times storing it has failed. */
  failures: number;
}

/**
 * The essence an object had when the cause being handled began (see
 * {@link ObjectMemory.causeBase}).
 */
export interface CauseBase {
  /** The cause's reason: a base of another cause is no base of this one. */
  readonly reason: string;
  /** The essence the cause began with. */
  readonly essence: RawBody;
}

/** The in-memory state of one object, as its handling reads and changes it. */
export interface ObjectMemory {
  /** The object's own copy of the operator's memo, made when first read. */
  readonly memo: unknown;
  /** Whether the object was first seen in a listing (at start or after a lost watch). */
  readonly noticedByListing: boolean;
  /** Whether a cycle has finished all its handlers (or had none) since first seen. */
  fullyHandledOnce: boolean;
  /** Whether optional delete handlers have run for an object without our finalizer. */
  deletionHandled: boolean;
  /**
   * The essence the object had when the cause in progress began, while its handlers run
   * over several cycles: stored as the diff-base when the cause completes, so that a change
   * made between its cycles is handled afterwards as an update rather than lost. Never
   * persisted: after a restart in the middle of a cause, its current essence serves.
   */
  causeBase: CauseBase | undefined;
}

/** Where the memories of objects already seen are looked up (e.g. for admission's memos). */
export interface ObjectMemories {
  /** The memory of an object if it has been seen, without making one. */
  peek(resource: Resource, body: RawBody): ObjectMemory | undefined;
}
