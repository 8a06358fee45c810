/**
 * The indices are updated from the object's state (for resources with indexing functions).
 * While the operator's initial listings are not all indexed yet, everything after waits
 * (without holding a place among the processings), so that every handler sees complete
 * indices. Objects of other replicas (leader election, sharding) go no further: they are
 * only indexed here, so that the indices stay whole.
 *
 * @module
 */

import type { OperatorIndexers } from "../../engines/indexing.ts";
import type { ObjectProcessing, Stage } from "./object_processing.ts";

/** Index the object's state, and wait for the initial indexing; see the module docs. */
export class IndexingStage implements Stage {
  readonly name = "indexing";
  readonly #indexers: OperatorIndexers | undefined;

  /** The stage over the operator's indexing functions, if it has any. */
  constructor(indexers: OperatorIndexers | undefined) {
    this.#indexers = indexers;
  }

  /** Index; then go on only with this replica's objects. */
  run(processing: ObjectProcessing): boolean | Promise<boolean> {
    if (this.#indexers !== undefined) return this.#index(processing, this.#indexers);
    return processing.owned;
  }

  async #index(processing: ObjectProcessing, indexers: OperatorIndexers): Promise<boolean> {
    const { resource, body, memory, ref } = processing;
    if (indexers.serves(resource)) {
      const { delay } = await indexers.process({
        resource,
        body,
        source: processing.source,
        gone: processing.gone || processing.left, // out of sight: not in the indices
        memory,
        ref,
      });
      if (delay !== undefined) processing.revisitIn(delay);
    }
    const populating = indexers.populating;
    if (populating !== undefined) {
      await processing.aside(populating);
      if (indexers.populating !== undefined) return processing.finish(); // stopped meanwhile
    }
    return processing.owned;
  }
}
