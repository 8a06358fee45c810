/**
 * Cause detection: why a resource-changing handling cycle runs for an object now --
 * Kopf's rules, from the watch event, the deletion mark, our finalizer and the diff
 * between the stored diff-base and the current essence.
 *
 * | situation | reason |
 * |---|---|
 * | the watch says `DELETED` | `gone`: forget the object, nothing to patch |
 * | `deletionTimestamp` set, our finalizer present | `delete` |
 * | `deletionTimestamp` set, no finalizer, optional delete handlers apply | `delete` (best effort) |
 * | `deletionTimestamp` set otherwise | `free`: not our concern |
 * | no diff-base stored | `create` (never mixed with resuming) |
 * | no essential change, first seen by a listing and not yet fully handled | `resume` |
 * | no essential change | `noop` |
 * | otherwise | `update` |
 *
 * @module
 */

import type { RawBody } from "../structs/bodies.ts";
import type { Diff } from "../structs/diffs.ts";
import type { Cause } from "../intents/causes.ts";
import type { Reason } from "../intents/reasons.ts";

/** The reasons for which handlers run (others are informational). */
export const HANDLER_REASONS: ReadonlySet<Reason> = new Set([
  "create",
  "update",
  "delete",
  "resume",
]);

/** How each reason is named in log messages (`Creation is processed: ...`). */
export const TITLES: Readonly<Record<Reason, string>> = Object.freeze({
  create: "creation",
  update: "updating",
  delete: "deletion",
  resume: "resuming",
  noop: "no-op",
  free: "freeing",
  gone: "disappearance",
});

/** A title with its first letter capitalised. */
export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Whether the object is marked for deletion. */
export function isDeletionOngoing(body: RawBody): boolean {
  return Boolean(body.metadata?.deletionTimestamp);
}

/** Whether our finalizer holds the object. */
export function hasFinalizer(body: RawBody, finalizer: string): boolean {
  return body.metadata?.finalizers?.includes(finalizer) ?? false;
}

/** What cause detection looks at. */
export interface DetectionInputs {
  /** The watch event type: `DELETED`, another type, or `null` for a listing. */
  readonly eventType: string | null;
  /** The object. */
  readonly body: RawBody;
  /** The operator's finalizer. */
  readonly finalizer: string;
  /** The stored diff-base (`null` when none). */
  readonly old: RawBody | null;
  /** The essential diff between the diff-base and the current essence. */
  readonly diff: Diff;
  /** First seen by a listing and not yet fully handled in this operator's lifetime. */
  readonly initial: boolean;
  /** Whether delete handlers apply although our finalizer is absent (optional ones). */
  readonly optionalDeletion?: boolean;
}

/** The parts of a {@link Cause} that detection decides; the rest is what it looked at. */
export type Detection = Pick<Cause, "reason" | "initial" | "deleted">;

/** Detect the reason of a resource-changing cycle; see the module docs for the rules. */
export function detectCause(inputs: DetectionInputs): Detection {
  const deleted = isDeletionOngoing(inputs.body);
  const { initial } = inputs;
  if (inputs.eventType === "DELETED") return { reason: "gone", initial, deleted: true };
  if (deleted) {
    const ours = hasFinalizer(inputs.body, inputs.finalizer) || (inputs.optionalDeletion ?? false);
    return { reason: ours ? "delete" : "free", initial, deleted };
  }
  if (inputs.old === null) return { reason: "create", initial: false, deleted };
  if (inputs.diff.length === 0) return { reason: initial ? "resume" : "noop", initial, deleted };
  return { reason: "update", initial, deleted };
}
