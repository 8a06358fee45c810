/**
 * The sections of `OperatorSettings` on how each object is processed: its queue and
 * workers with the error delays between attempts, the state kept on the object (finalizer,
 * progress, diff-base), and the stopping of daemons and timers.
 *
 * Apart from `OperatorSettings` itself (`operator_settings.ts`), which gathers and checks
 * the sections.
 *
 * @module
 */

import { AnnotationsDiffBaseStorage, type DiffBaseStorage } from "./diffbase_storages.ts";
import type { FieldSpec } from "./field_paths.ts";
import type { ProgressStorage } from "./progress_storages.ts";
import { SmartProgressStorage } from "./multi_progress_storages.ts";

/**
 * How events of one object are queued and processed by its worker.
 *
 * @example Fewer objects at once, and more time to finish when stopping
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.batching.workerLimit = 10;
 *   settings.batching.batchWindow = 0.5; // coalesce bursts of changes of one object
 *   settings.batching.exitTimeout = 20;
 * });
 * ```
 */
export class BatchingSettings {
  /** How many per-object workers may run at once; `null` for no limit. */
  workerLimit: number | null = null;
  /** How long an idle worker waits for new events before it exits. */
  idleTimeout = 5.0;
  /** Events arriving within this window after the first are coalesced into the last one. */
  batchWindow = 0.1;
  /** How long workers may take to finish their queues when the operator exits. */
  exitTimeout = 2.0;
  /**
   * Pauses after consecutive unexpected errors of the framework for one object (not of
   * handlers); the last one repeats; empty disables throttling. Fibonacci up to 10 minutes.
   */
  errorDelays: Iterable<number> = [1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610];
}

/**
 * The pause after the `failures`-th consecutive failure (counted from 0) along the error
 * delays: their values in order, then the last one again; `undefined` when there are none
 * (then nothing is retried before the object's next change). The one rule of the
 * framework's own retries for an object: its processing, and the storing of its outcome.
 */
export function errorDelayAfter(delays: Iterable<number>, failures: number): number | undefined {
  let delay: number | undefined;
  let step = 0;
  for (const value of delays) {
    delay = value;
    if (step++ >= failures) break;
  }
  return delay;
}

/**
 * Where and how the operator keeps its state on the objects.
 *
 * @example A finalizer and storages of the operator's own name
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.persistence.finalizer = "example.com/finalizer";
 *   settings.persistence.progressStorage = new kopf.AnnotationsProgressStorage({
 *     prefix: "example.com",
 *   });
 *   settings.persistence.diffbaseStorage = new kopf.AnnotationsDiffBaseStorage({
 *     prefix: "example.com",
 *   });
 * });
 * ```
 */
export class PersistenceSettings {
  /** The finalizer that blocks deletion while the operator still has work to do. */
  finalizer = "kopf.zalando.org/KopfFinalizerMarker";
  /** Where the handlers' progress is kept between handling cycles. */
  progressStorage: ProgressStorage = new SmartProgressStorage();
  /** Where the last handled essence of each object is kept. */
  diffbaseStorage: DiffBaseStorage = new AnnotationsDiffBaseStorage();
  /**
   * Fields whose values the diff-base keeps only as digests (so do the handlers' `old`,
   * `new` and `diff`, and log lines mask them): dotted paths like `"spec.password"`, or
   * arrays of keys where a key has dots (`["spec", "tls.crt"]`); a path to an object
   * covers every value under it. They apply to objects of every resource served. The
   * `data` and `stringData` of core v1 Secrets are sensitive without being listed.
   */
  sensitiveFields: FieldSpec[] = [];
  /** How long to wait for our own patch's resourceVersion to arrive before going on. */
  consistencyTimeout = 5.0;
}

/**
 * How daemons and timers are stopped.
 *
 * @example Check stopping daemons every 10 seconds rather than every minute
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.background.cancellationPolling = 10;
 * });
 * ```
 */
export class BackgroundSettings {
  /** How often to re-check a stopping daemon that has no cancellation timeout. */
  cancellationPolling = 60;
  /**
   * Kopf's time for a daemon to exit at once before the slower, persisted way is used.
   * Accepted for compatibility, with no effect (a warning says so when set): here the
   * processing of a deleted object waits for its daemons' exits itself.
   */
  instantExitTimeout: number | null = null;
  /** Kopf's zero-time event-loop turns for a daemon to exit at once; as above, no effect. */
  instantExitZeroTimeCycles: number | null = 10;
}
