/**
 * Daemons and timers (for resources that have them) are told the object's new state. For
 * an object marked for deletion, they are stopped and waited for -- aside, without holding
 * a place among the processings, since a daemon may take long to exit; while some are still
 * exiting, the changing handlers wait (the object keeps our finalizer, and is processed
 * again to wait for them once more). Delete handlers run after they have all exited.
 *
 * @module
 */

import { isDeletionOngoing } from "../../handling/cause_detection.ts";
import type { Spawner, SpawningOutcome } from "../../engines/daemons.ts";
import type { ObjectProcessing, Stage } from "./object_processing.ts";

/** Tell the daemons and timers; wait for those exiting; see the module docs. */
export class SpawningStage implements Stage {
  readonly name = "daemons and timers";
  readonly #spawner: Spawner | undefined;

  /** The stage over the operator's daemons and timers, if it has any. */
  constructor(spawner: Spawner | undefined) {
    this.#spawner = spawner;
  }

  /** Tell the engine of the object's state, if its resource has daemons or timers. */
  run(processing: ObjectProcessing): boolean | Promise<boolean> {
    const spawner = this.#spawner;
    if (spawner === undefined || !spawner.serves(processing.resource)) return true;
    const { resource, body, memory, logger, ref, signal } = processing;
    const outcome = spawner.process({
      resource,
      body,
      source: processing.source,
      deleted: isDeletionOngoing(body),
      gone: processing.gone,
      left: processing.left,
      memory,
      logger,
      ref,
      signal,
    });
    if (outcome.exits === undefined) return note(processing, outcome);
    return this.#awaitExits(processing, spawner, outcome.exits);
  }

  async #awaitExits(
    processing: ObjectProcessing,
    spawner: Spawner,
    exits: Promise<void>,
  ): Promise<boolean> {
    await processing.aside(exits);
    return note(processing, spawner.recheck(processing.resource, processing.body));
  }
}

/** Those still exiting hold the changing handlers back until they are checked again. */
function note(processing: ObjectProcessing, outcome: SpawningOutcome): true {
  if (outcome.stopping) {
    processing.spawningStops = true;
    processing.revisitIn(outcome.delay ?? 0);
  }
  return true;
}
