/**
 * The first stages of the pipeline: the object's memory is recalled (and forgotten when it
 * is gone, or out of sight: it left its watch's selection, and is read afresh to tell
 * whether it was deleted); a state older than one already known (our own patch, whose echo
 * is late; a state read afresh before a resumed watch delivers it again) is replaced by the
 * object as it is now, so that no handler runs again on a state that has moved on. Every
 * read compares the uid: an object of the same name made since is not this one. Then an outcome that the
 * API server refused to store goes first: until it is stored, nothing runs for the object,
 * so that handlers that have succeeded do not run again.
 *
 * @module
 */

import type { RawBody } from "../../structs/bodies.ts";
import type { ApiClient } from "../../client/api.ts";
import { readSameObject } from "../../client/same_objects.ts";
import type { UnstoredOutcome } from "../../handling/memories.ts";
import type { ObjectTable } from "../objects/object_table.ts";
import type { Ownership } from "../../engines/leader_election.ts";
import type { ObjectProcessing, Stage } from "./object_processing.ts";
import { type OutcomeStorer, whose } from "./outcome_storing.ts";

/** Recall the object's memory; go on with its newest state; see the module docs. */
export class RecallStage implements Stage {
  readonly name = "recall";
  readonly #api: ApiClient;
  readonly #objects: ObjectTable;
  readonly #ownership: Ownership | undefined;

  /** The stage over the operator's object table. */
  constructor(api: ApiClient, objects: ObjectTable, ownership: Ownership | undefined) {
    this.#api = api;
    this.#objects = objects;
    this.#ownership = ownership;
  }

  /** Recall (or forget) the object; read it afresh if a newer state is known. */
  run(processing: ObjectProcessing): boolean | Promise<boolean> {
    const { resource, event } = processing;
    const memory = processing.memory = this.#objects.recall(resource, event.object, {
      noticedByListing: event.type === null,
    });
    if (processing.left) return this.#confirmLeaving(processing);
    if (processing.gone) this.#objects.forget(resource, event.object);
    const stale = !processing.gone && memory.isStale(processing.body.metadata?.resourceVersion);
    return stale ? this.#reread(processing) : this.#note(processing);
  }

  /**
   * A stale state: read the object afresh. Deleted meanwhile (or a namesake made since),
   * it goes no further: its watch tells of the deletion.
   */
  async #reread(processing: ObjectProcessing): Promise<boolean> {
    const fresh = await this.#read(processing);
    if (fresh === undefined) return processing.finish();
    processing.moveTo(fresh);
    return this.#note(processing);
  }

  /**
   * The object is out of its watch's sight (its `DELETED` on a watch with selectors, or a
   * re-listing without it): a read tells. Gone, or a namesake there instead: a deletion.
   * There and matching the selectors again (it left and came back): nothing here, since the
   * watch tells of it again (`ADDED`) and its handlers see it then. There and outside them:
   * it left, and is forgotten.
   */
  async #confirmLeaving(processing: ObjectProcessing): Promise<boolean> {
    const { resource, event } = processing;
    const fresh = await this.#read(processing);
    const back = fresh !== undefined && event.type === "LEFT" && event.selects(fresh);
    if (back) return processing.finish();
    this.#objects.forget(resource, event.object);
    if (fresh === undefined) processing.becomeGone();
    else processing.moveTo(fresh);
    return this.#note(processing);
  }

  /** The object as it is now; none if it is gone, or another object has its name now. */
  #read(processing: ObjectProcessing): Promise<RawBody | undefined> {
    return readSameObject(this.#api, processing.resource, processing.body, {
      signal: processing.signal,
    });
  }

  /** The newest version known, and whether the object is this replica's. */
  #note(processing: ObjectProcessing): true {
    processing.memory.know(processing.body.metadata?.resourceVersion);
    processing.owned = this.#ownership?.owns(processing.body) ?? true;
    return true;
  }
}

/** Store first an outcome that could not be stored before; see the module docs. */
export class PendingOutcomeStage implements Stage {
  readonly name = "pending outcome";
  readonly #storer: OutcomeStorer;

  /** The stage storing through the storer. */
  constructor(storer: OutcomeStorer) {
    this.#storer = storer;
  }

  /** Store the object's unstored outcome, if any, before anything else runs for it. */
  run(processing: ObjectProcessing): boolean | Promise<boolean> {
    const memory = processing.memory;
    const unstored = memory.unstored;
    if (unstored === undefined) return true;
    if (!processing.owned) {
      // Another replica handles it now: writing an older outcome could undo its work.
      memory.unstored = undefined;
      processing.logger.warning(
        `The outcome ${whose(unstored)} was not stored before the object stopped being this ` +
          "replica's; the replica that handles it now runs them again.",
      );
      return true;
    }
    if (processing.gone) {
      memory.unstored = undefined;
      return true;
    }
    return this.#storeFirst(processing, unstored);
  }

  async #storeFirst(processing: ObjectProcessing, unstored: UnstoredOutcome): Promise<boolean> {
    const memory = processing.memory;
    const stored = await this.#storer.store(processing, unstored);
    if (memory.unstored !== undefined) {
      return processing.finish(stored.retryIn === undefined ? {} : { delay: stored.retryIn });
    }
    if (stored.gone) return processing.finish(); // its deletion comes through the watch
    // Stored: the processing goes on with the state it produced, progress included -- not
    // with the next event, since a store that changed nothing sends none.
    if (stored.body !== undefined) processing.moveTo(stored.body, processing.source);
    return true;
  }
}
