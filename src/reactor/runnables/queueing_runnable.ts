/**
 * The queueing as a runnable: one worker per object between the observation and the
 * processing. Objects that stop being this replica's are drained (their processing in
 * progress ends) before their Lease may pass; when the operator stops, the workers finish
 * what they hold within the exit budget, then are aborted.
 *
 * @module
 */

import { Multiplexer } from "../queueing/multiplexer.ts";
import { Intake } from "../queueing/intake.ts";
import type { OperatorParts } from "../operator_parts.ts";
import type { Reactions, Runnable } from "../manager.ts";
import type { CoordinationRunnable } from "./coordination_runnable.ts";
import type { ProcessingRunnable } from "./processing_runnable.ts";

/** The per-object queueing; see the module docs. */
export class QueueingRunnable implements Runnable {
  readonly name = "queueing";
  readonly after: readonly Runnable[];
  readonly #parts: OperatorParts;
  readonly #processing: ProcessingRunnable;
  readonly #coordination: CoordinationRunnable;
  #multiplexer: Multiplexer | undefined;
  #intake: Intake | undefined;

  /** The queueing of the operator, feeding the processing. */
  constructor(
    parts: OperatorParts,
    processing: ProcessingRunnable,
    coordination: CoordinationRunnable,
  ) {
    this.#parts = parts;
    this.#processing = processing;
    this.#coordination = coordination;
    this.after = [processing, coordination];
  }

  /** Where the watches' events enter the queue; there once started. */
  get intake(): Intake {
    if (this.#intake === undefined) throw new Error("The queueing is used before its start.");
    return this.#intake;
  }

  /** The multiplexer; there once started. */
  get multiplexer(): Multiplexer {
    if (this.#multiplexer === undefined) throw new Error("The queueing is used before its start.");
    return this.#multiplexer;
  }

  /** Lost objects: their processing in progress ends before the Lease may pass. */
  readonly reactions: Reactions = {
    losing: () => this.#multiplexer?.drain((_resource, body) => !this.#coordination.owns(body)),
  };

  /** Make the multiplexer; workers start as events arrive. */
  start(): void {
    const processor = this.#processing.processor;
    const { settings, clock, logger, objects } = this.#parts;
    const multiplexer = this.#multiplexer = new Multiplexer({
      processor,
      batching: settings.batching,
      queueing: settings.queueing,
      persistence: settings.persistence,
      clock,
      logger,
      objects,
    });
    this.#intake = new Intake(processor, multiplexer, this.#parts.metrics);
  }

  /** The objects being handled now. */
  pending(): readonly string[] {
    return this.#multiplexer?.processing() ?? [];
  }

  /** Accept no new objects; wake the waiting workers. */
  halt(): void {
    this.#multiplexer?.halt();
  }

  /** Let the workers finish within the budget, then abort them. */
  async stop(budget: number): Promise<void> {
    await this.#multiplexer?.shutdown(budget);
  }
}
