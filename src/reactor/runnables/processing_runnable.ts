/**
 * The processing of object states as a runnable: the per-object pipeline, fed by the
 * queueing. It holds the indexing's coordination: the handling waits until the initial
 * listings are indexed, and stops waiting when the operator stops.
 *
 * @module
 */

import { Pipeline } from "../pipeline/pipeline.ts";
import type { OperatorParts } from "../operator_parts.ts";
import type { Reactions, RunContext, Runnable } from "../manager.ts";
import type { ClientRunnable } from "./client_runnable.ts";
import type { CoordinationRunnable } from "./coordination_runnable.ts";
import type { DaemonsRunnable } from "./daemons_runnable.ts";

/** The processor of object states; see the module docs. */
export class ProcessingRunnable implements Runnable {
  readonly name = "processing";
  readonly after: readonly Runnable[];
  readonly #parts: OperatorParts;
  readonly #client: ClientRunnable;
  readonly #coordination: CoordinationRunnable;
  readonly #daemons: DaemonsRunnable;
  #processor: Pipeline | undefined;
  #context: RunContext | undefined;

  /** The processing of the operator, after the parts it calls. */
  constructor(
    parts: OperatorParts,
    client: ClientRunnable,
    coordination: CoordinationRunnable,
    daemons: DaemonsRunnable,
  ) {
    this.#parts = parts;
    this.#client = client;
    this.#coordination = coordination;
    this.#daemons = daemons;
    this.after = [client, coordination, daemons];
  }

  /** The processor; there once started. */
  get processor(): Pipeline {
    if (this.#processor === undefined) throw new Error("The processing is used before its start.");
    return this.#processor;
  }

  /**
   * Once the initial listings are in, the processor's stages load, if no object's state has
   * needed them yet (the watches did not wait for them); if they cannot, the operator fails.
   */
  readonly reactions: Reactions = {
    listed: () => {
      const context = this.#context;
      this.#processor?.load().catch((error) => context?.fail(error));
    },
  };

  /** Make the processor over the operator's parts. */
  start(context: RunContext): void {
    this.#context = context;
    const parts = this.#parts;
    this.#processor = new Pipeline({
      api: this.#client.api,
      registry: parts.registry,
      settings: parts.settings,
      objects: parts.objects,
      clock: parts.clock,
      spawner: this.#daemons.spawner,
      indexers: parts.indexers,
      writes: parts.writes,
      metrics: parts.metrics,
      lifecycle: parts.lifecycle,
      ownership: this.#coordination.ownership,
      children: parts.children,
    });
  }

  /** Nothing waits for the indices any longer. */
  halt(): void {
    this.#processor?.halt();
  }
}
