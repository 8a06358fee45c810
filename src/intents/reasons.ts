/**
 * The vocabulary of causes: why a resource-changing handler runs, and which operator
 * activity an activity handler serves.
 *
 * @module
 */

/** Why a resource-changing handler is invoked (`reason` in its arguments). */
export type Reason = "create" | "update" | "delete" | "resume" | "noop" | "free" | "gone";

/**
 * The values of {@link Reason}, by name.
 *
 * @example One handler for creations and updates, telling them apart
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.resume("kopfexamples", ({ reason, logger }) => {
 *   if (reason === kopf.Reason.RESUME) logger.info("found unchanged at startup");
 *   else logger.info(`mixed into a ${reason}`);
 * });
 * ```
 */
export const Reason: {
  /** The object is new to the operator. */
  readonly CREATE: "create";
  /** The object's essence changed since it was last handled. */
  readonly UPDATE: "update";
  /** The object is marked for deletion. */
  readonly DELETE: "delete";
  /** The operator (re)started and found the object unchanged. */
  readonly RESUME: "resume";
  /** Nothing to do. */
  readonly NOOP: "noop";
  /** The object is deleted and must only be released (finalizer removed). */
  readonly FREE: "free";
  /** The object is gone from the cluster. */
  readonly GONE: "gone";
} = Object.freeze({
  CREATE: "create",
  UPDATE: "update",
  DELETE: "delete",
  RESUME: "resume",
  NOOP: "noop",
  FREE: "free",
  GONE: "gone",
});

/** The reasons a resource-changing handler can be registered for. */
export type HandlerReason = "create" | "update" | "delete";

/** An operator-level activity (`activity` in the arguments of activity handlers). */
export type Activity = "startup" | "cleanup" | "login" | "probe";

/** The two kinds of admission webhooks. */
export type WebhookType = "validating" | "mutating";
