/**
 * The queueing as a runnable: one worker per object between the observation and the
 * processing. Objects that stop being this replica's are drained (their processing in
 * progress ends) before their Lease may pass; when the operator stops, the workers finish
 * what they hold within the exit budget, then are aborted.
 *
 * The queue's modules (the multiplexer, its workers, lanes and places) load when the first
 * object's state is fed, or once the initial listings are in, whichever comes first: an
 * operator's first watches need none of them. What is fed meanwhile is queued, in its order,
 * once they are loaded (the feed's promise holds the watch until then).
 *
 * @module
 */

import type { ObservedEvent } from "../../structs/bodies.ts";
import type { Resource } from "../../structs/resources.ts";
import { outsideContexts } from "../../platform/async_context.ts";
import type { Multiplexer } from "../queueing/multiplexer.ts";
import type { ObjectEntry } from "../objects/object_entries.ts";
import { Intake } from "../queueing/intake.ts";
import type { OperatorParts } from "../operator_parts.ts";
import type { Reactions, RunContext, Runnable } from "../manager.ts";
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
  #loading: Promise<Multiplexer> | undefined;
  #intake: Intake | undefined;
  #context: RunContext | undefined;
  /** The resources served before the multiplexer is there: it learns them when made. */
  readonly #served: Resource[] = [];
  #halted = false;

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

  /** The multiplexer, loaded if it is not yet; rejects if its modules fail to load. */
  multiplexer(): Promise<Multiplexer> {
    return this.#load();
  }

  /**
   * Lost objects: their processing in progress ends before the Lease may pass. Listed: the
   * multiplexer loads, if nothing fed has loaded it yet.
   */
  readonly reactions: Reactions = {
    losing: () => this.#multiplexer?.drain((_resource, body) => !this.#coordination.owns(body)),
    listed: () => {
      const context = this.#context;
      this.#load().catch((error) => context?.fail(error));
    },
  };

  /** The intake; the multiplexer and its workers come with the first state fed. */
  start(context: RunContext): void {
    this.#context = context;
    const processor = this.#processing.processor;
    const queue = {
      push: (resource: Resource, event: ObservedEvent, again?: boolean, known?: ObjectEntry) => {
        const multiplexer = this.#multiplexer;
        if (multiplexer !== undefined) return multiplexer.push(resource, event, again, known);
        return this.#load().then((loaded) => loaded.push(resource, event, again));
      },
      passEcho: (entry: ObjectEntry, version: string) =>
        this.#multiplexer?.passEcho(entry, version) ?? false,
    };
    this.#intake = new Intake(processor, queue, this.#parts.metrics);
  }

  /** The resources the watches serve: their queue gauges show 0 from the start. */
  serve(resources: Iterable<Resource>): void {
    if (this.#multiplexer !== undefined) this.#multiplexer.serve(resources);
    else this.#served.push(...resources);
  }

  /** The objects being handled now. */
  pending(): readonly string[] {
    return this.#multiplexer?.processing() ?? [];
  }

  /** Accept no new objects; wake the waiting workers. */
  halt(): void {
    this.#halted = true;
    this.#multiplexer?.halt();
  }

  /** Let the workers finish within the budget, then abort them. */
  async stop(budget: number): Promise<void> {
    const multiplexer = this.#multiplexer ?? await this.#loading?.catch(() => undefined);
    await multiplexer?.shutdown(budget);
  }

  #load(): Promise<Multiplexer> {
    return this.#loading ??= outsideContexts(() => import("../queueing/multiplexer.ts")).then(
      ({ Multiplexer }) => {
        const { settings, clock, logger, objects } = this.#parts;
        const multiplexer = new Multiplexer({
          processor: this.#processing.processor,
          batching: settings.batching,
          queueing: settings.queueing,
          persistence: settings.persistence,
          clock,
          logger,
          objects,
        });
        multiplexer.serve(this.#served.splice(0));
        if (this.#halted) multiplexer.halt();
        return this.#multiplexer = multiplexer;
      },
    );
  }
}
