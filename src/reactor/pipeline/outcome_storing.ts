/**
 * Storing the outcome of a processing: the patch of all stages (and the finalizer's
 * change) applied to the object in as few requests as possible. When storing fails, the
 * handlers are not run again: the outcome is kept in the object's memory and stored again
 * after the operator's error delays (Kopf's throttling), before anything else is done with
 * the object. A refusal for good (see `isRefusedOutcome`) is an ERROR, posted as an Event on
 * the object; a failure that outlasted the client's retries (5xx, throttling, a lost
 * connection) is a WARNING; the retries are DEBUG; success after failures is INFO.
 *
 * @module
 */

import type { BodySource, RawBody } from "../../structs/bodies.ts";
import { summarizeError } from "../../structs/log_formats.ts";
import { isThenable } from "../../structs/thenables.ts";
import type { ObjectLogger } from "../../structs/loggers.ts";
import type { OperatorMetrics } from "../../structs/operator_metrics.ts";
import { resourceLabel } from "../../structs/metric_labels.ts";
import type { Resource } from "../../structs/resources.ts";
import type { Semaphore } from "../../structs/semaphores.ts";
import type { ApiClient } from "../../client/api.ts";
import { APIError, APIServerError } from "../../client/api_errors.ts";
import { APIOutcomeUnknownError } from "../../client/connection_errors.ts";
import { readSameObject } from "../../client/same_objects.ts";
import { errorDelayAfter } from "../../settings/processing_settings.ts";
import type { OperatorSettings } from "../../settings/operator_settings.ts";
import {
  applyChanges,
  type ApplyChangesOptions,
  type ApplyResult,
  isRefusedOutcome,
} from "../../handling/application.ts";
import type { UnstoredOutcome } from "../../handling/memories.ts";
import type { ObjectEntry } from "../objects/object_entries.ts";

/** What came of storing: the state it produced, or that the object is gone, or a retry. */
export interface Stored {
  /** The `resourceVersion` our write produced. */
  readonly version?: string;
  /** The `resourceVersion` each of our writes made, in order (see `ApplyResult.versions`). */
  readonly versions?: readonly string[];
  /** The object as our write left it. */
  readonly body?: RawBody;
  /** The object is gone: nothing to write. */
  readonly gone?: boolean;
  /** Storing failed: seconds until it is tried again (none: with the next change). */
  readonly retryIn?: number;
  /** The guarded finalizer change was refused: the object had changed meanwhile. */
  readonly refused?: boolean;
}

/** A stored outcome as its write answered: the object parsed only when first asked for. */
class StoredOutcome implements Stored {
  constructor(readonly applied: ApplyResult, readonly refused?: boolean) {}

  get version(): string | undefined {
    return this.applied.version;
  }

  get versions(): readonly string[] {
    return this.applied.versions;
  }

  get body(): RawBody | undefined {
    return this.applied.body;
  }
}

/** What storing needs of the operator. */
export interface OutcomeStorerOptions {
  /** The API client. */
  readonly api: ApiClient;
  /** The settings: the finalizer's name, the error delays. */
  readonly settings: OperatorSettings;
  /** The limit of the operator's concurrent writes. */
  readonly writes: Semaphore;
  /** Where the patches are counted; nowhere by default. */
  readonly metrics?: OperatorMetrics;
}

/** The object whose outcome is stored (an object's processing is one). */
export interface StoreTarget {
  /** The object's resource. */
  readonly resource: Resource;
  /** The object's state that the outcome is of. */
  readonly body: RawBody;
  /** For an object known by its metadata only: where its whole object is read. */
  readonly source: BodySource | undefined;
  /** What the operator knows of the object: the outcome waits there if not stored. */
  readonly memory: ObjectEntry;
  /** The object's logger. */
  readonly logger: ObjectLogger;
}

/** Stores outcomes; see the module docs. */
export class OutcomeStorer {
  readonly #options: OutcomeStorerOptions;

  /** A storer over the operator's parts. */
  constructor(options: OutcomeStorerOptions) {
    this.#options = options;
  }

  /**
   * Store the outcome on the object; on failure, keep it in the memory; see the module docs.
   * The operator's stop does not abort it: handlers that have finished have their outcome
   * written before the operator lets go (the requests' own timeouts bound it).
   */
  async store(target: StoreTarget, outcome: UnstoredOutcome): Promise<Stored> {
    const { resource, body, source, memory, logger } = target;
    const { api, settings, writes, metrics } = this.#options;
    // The request's options are made once, before waiting for a place among the writes.
    const request = {
      api,
      resource,
      body,
      source,
      patch: outcome.patch,
      finalizer: settings.persistence.finalizer,
      finalizerChange: outcome.finalizerChange,
      ...ownWrites(settings),
    };
    let applied;
    let refused = false;
    try {
      applied = await this.#apply(request);
      refused = applied.conflict;
      if (applied.conflict) {
        logger.debug("The object has changed meanwhile; the finalizer waits for its new state.");
        if (outcome.fallback !== undefined) {
          const fallback = { ...request, patch: outcome.fallback, finalizerChange: undefined };
          applied = await writes.run(() => applyChanges(fallback));
        }
      }
    } catch (error) {
      return this.#failed(outcome, memory, logger, error);
    }
    if (applied.requests > 0) metrics?.patches.inc([resourceLabel(resource)], applied.requests);
    if (outcome.failures > 0) {
      const times = outcome.failures === 1
        ? "1 failed attempt"
        : `${outcome.failures} failed attempts`;
      logger.info(`The outcome ${whose(outcome)} is stored at last, after ${times}.`);
    }
    memory.unstored = undefined;
    if (applied.gone) {
      logger.debug("The object is gone; nothing to patch.");
      return { gone: true };
    }
    memory.wrote(applied.version);
    // The body is parsed only if asked for: a cycle not done yet checks its records there.
    return new StoredOutcome(applied, refused || undefined);
  }

  /**
   * Which of these handlers' progress records the stored object does not show, as the
   * progress storage reads it. A metadata-only body, and a storage that answers with a
   * promise (it keeps the records elsewhere), show nothing to compare: none is lost.
   */
  lostRecords(stored: RawBody, keys: readonly string[], metadataOnly: boolean): string[] {
    if (metadataOnly) return [];
    const storage = this.#options.settings.persistence.progressStorage;
    const lost: string[] = [];
    for (const key of keys) {
      const record = storage.fetch({ key, body: stored });
      if (isThenable(record)) return [];
      if (record === null) lost.push(key);
    }
    return lost;
  }

  /**
   * Apply the changes. A guarded change (our finalizer's) whose answer is unknown -- its
   * reply lost, or a server error that may come after the work was done -- is not sent
   * again as it was (the client does not replay it): it is resolved by reading. The object
   * as it is now tells whether the change took effect, and the guard, made anew from it,
   * makes another try safe.
   */
  async #apply(request: ApplyChangesOptions): Promise<ApplyResult> {
    const writes = this.#options.writes;
    for (let attempt = 0;; attempt++) {
      try {
        return await writes.run(() => applyChanges(request));
      } catch (error) {
        const unknown = error instanceof APIOutcomeUnknownError || error instanceof APIServerError;
        if (request.finalizerChange === undefined || !unknown || attempt >= RESOLUTIONS) {
          throw error;
        }
        const fresh = await readSameObject(request.api, request.resource, request.body);
        if (fresh === undefined) return GONE; // released and deleted (a namesake is not ours)
        request = { ...request, body: fresh };
      }
    }
  }

  /** Keep the outcome for later, and say so (once loudly, then quietly). */
  #failed(
    outcome: UnstoredOutcome,
    memory: ObjectEntry,
    logger: ObjectLogger,
    error: unknown,
  ): Stored {
    memory.unstored = outcome;
    const retryIn = errorDelayAfter(this.#options.settings.batching.errorDelays, outcome.failures);
    const when = retryIn === undefined ? "with the object's next change" : `in ${retryIn}s`;
    const why = error instanceof APIError
      ? `HTTP ${error.code}: ${error.statusMessage ?? error.reason ?? error.message}`
      : summarizeError(error);
    if (outcome.failures++ > 0) {
      logger.debug(
        `Storing the outcome ${whose(outcome)} failed again (${why}); retrying ${when}.`,
      );
    } else if (isRefusedOutcome(error)) {
      logger.error(
        `The API server refused to store the outcome ${whose(outcome)} (${why}); they are not ` +
          `run again, and storing is retried ${when}.`,
      );
    } else {
      logger.warning(
        `Storing the outcome ${whose(outcome)} failed (${why}); they are not run again, and ` +
          `storing is retried ${when}.`,
      );
    }
    return { retryIn };
  }
}

/** How the operator's own writes go: by server-side apply under its field manager, or not. */
function ownWrites(
  settings: OperatorSettings,
): Pick<ApplyChangesOptions, "fieldManager" | "serverSideApply"> {
  const { outcomes, fieldManager } = settings.applying;
  return outcomes ? { fieldManager, serverSideApply: true } : {};
}

/** How many times a guarded change whose answer is unknown is resolved by reading. */
const RESOLUTIONS = 2;

/** What applying comes to when the object is gone. */
const GONE: ApplyResult = Object.freeze({
  body: undefined,
  version: undefined,
  versions: [],
  requests: 0,
  gone: true,
  conflict: false,
});

/** Whose outcome it is, for the messages: built only when one is logged, which is rare. */
export function whose(outcome: UnstoredOutcome): string {
  return outcome.handlers.length > 0
    ? `of ${outcome.handlers.map((id) => `'${id}'`).join(", ")}`
    : "of the handling";
}
