/**
 * The last stage: everything the stages wrote into the patch (and the finalizer's change)
 * is applied in as few requests as possible (see `outcome_storing.ts`). The version our
 * write produced tells the queueing which older states not to process again. A cause not
 * done yet goes on only if the stored object shows the progress just written. An object
 * that left the watch's selection is tried again when its finalizer's release is refused.
 *
 * @module
 */

import type { UnstoredOutcome } from "../../handling/memories.ts";
import type { ObjectProcessing, Stage } from "./object_processing.ts";
import type { OutcomeStorer } from "./outcome_storing.ts";

/**
 * Seconds until an object that left the watch's selection is read and released again when
 * the release was refused (another writer came first): its watch tells of it no more.
 */
const LEFT_AGAIN = 1;

/** Store the outcome of the processing, if there is one; see the module docs. */
export class StoringStage implements Stage {
  readonly name = "storing";
  readonly #storer: OutcomeStorer;

  /** The stage storing through the storer. */
  constructor(storer: OutcomeStorer) {
    this.#storer = storer;
  }

  /** Store what the stages left, unless nothing or the object is gone. */
  run(processing: ObjectProcessing): boolean | Promise<boolean> {
    if (processing.gone) return true;
    if (processing.patch.isEmpty && processing.finalizerChange === undefined) return true;
    return this.#store(processing);
  }

  async #store(processing: ObjectProcessing): Promise<boolean> {
    const { memory } = processing;
    const outcome: UnstoredOutcome = {
      patch: processing.patch,
      finalizerChange: processing.finalizerChange,
      fallback: processing.fallback,
      handlers: processing.ran,
      failures: 0,
    };
    const stored = await this.#storer.store(processing, outcome);
    if (stored.retryIn !== undefined || memory.unstored !== undefined) {
      return processing.finish(stored.retryIn === undefined ? {} : { delay: stored.retryIn });
    }
    processing.wrote(stored.version, stored.versions);
    if (stored.refused && processing.left) {
      // Out of the watch's selection, no next change will come to release the finalizer.
      processing.revisitIn(LEFT_AGAIN);
    }
    if (processing.recorded.length > 0 && stored.body !== undefined) {
      const metadataOnly = processing.source !== undefined;
      const lost = this.#storer.lostRecords(stored.body, processing.recorded, metadataOnly);
      if (lost.length > 0) return this.#progressLost(processing, lost);
    }
    return true;
  }

  /**
   * The server dropped the progress just written (e.g. `StatusProgressStorage` on a kind
   * without a `status`, such as ConfigMaps): going on would run the same handlers again and
   * again, as fast as the writes go. The object waits for its next change instead.
   */
  #progressLost(processing: ObjectProcessing, lost: readonly string[]): false {
    const { resource, logger } = processing;
    logger.error(
      `The progress of ${lost.join(", ")} is not kept: the API server dropped what ` +
        `settings.persistence.progressStorage wrote to ${resource.plural} (a kind without a ` +
        "status keeps none there). The handlers would run again and again, so the object " +
        "waits for its next change. Keep the progress in annotations: the default storage, " +
        "or kopf.AnnotationsProgressStorage.",
    );
    return processing.finish();
  }
}
