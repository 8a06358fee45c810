/**
 * The per-object pipeline's stages, and the run of one object state through them. Loaded
 * apart from `pipeline.ts` (which imports it when a pipeline is made, without waiting):
 * these are the handling's modules -- the causes, the handling cycle, the patches'
 * application, the status conditions -- which nothing needs before an object's first state
 * is processed, so an operator's start does not wait for them before its first watch.
 *
 * | stage              | module                 | does                                              |
 * | ------------------ | ---------------------- | ------------------------------------------------- |
 * | recall             | `recall_stage.ts`      | the object's memory; its newest state             |
 * | pending outcome    | `recall_stage.ts`      | an outcome not stored before goes first           |
 * | indexing           | `indexing_stage.ts`    | the indices; waits for the initial indexing       |
 * | event handlers     | `event_stage.ts`       | `kopf.on.event` handlers, for every event         |
 * | daemons and timers | `spawning_stage.ts`    | tells them the state; awaits their exits          |
 * | changing handlers  | `changing_stage.ts`    | the cause, the finalizer, the handling cycle      |
 * | children's changes | `child_stage.ts`       | `kopf.on.child` handlers, for the children noted  |
 * | storing            | `storing_stage.ts`     | the patch and finalizer, in as few requests       |
 *
 * @module
 */

import type { ObservedEvent } from "../../structs/bodies.ts";
import type { Clock } from "../../structs/clock.ts";
import type { Resource } from "../../structs/resources.ts";
import type { Semaphore } from "../../structs/semaphores.ts";
import { isThenable } from "../../structs/thenables.ts";
import type { OperatorSettings } from "../../settings/operator_settings.ts";
import { keepsEssence } from "../../settings/diffbase_storages.ts";
import type { HandlerMatcher } from "../../intents/handler_matching.ts";
import type { OperatorIndexers } from "../../engines/indexing.ts";
import { ChangingStage } from "./changing_stage.ts";
import { ChildStage } from "./child_stage.ts";
import { EventStage } from "./event_stage.ts";
import { IndexingStage } from "./indexing_stage.ts";
import {
  type AsideWait,
  ObjectProcessing,
  type Reconciliation,
  type Stage,
  waitInPlace,
} from "./object_processing.ts";
import { OutcomeStorer } from "./outcome_storing.ts";
import { PendingOutcomeStage, RecallStage } from "./recall_stage.ts";
import { SpawningStage } from "./spawning_stage.ts";
import { StoringStage } from "./storing_stage.ts";
import type { PipelineOptions } from "./pipeline_options.ts";

/** The stages of one pipeline, and the run of a state through them. */
export class Stages {
  /** The stages, in their order. */
  readonly list: readonly Stage[];
  readonly #indexers: OperatorIndexers | undefined;
  readonly #matcher: HandlerMatcher;
  readonly #settings: OperatorSettings;

  /** The stages over the operator's parts, with the limit of the pipeline's writes. */
  constructor(options: PipelineOptions, matcher: HandlerMatcher, clock: Clock, writes: Semaphore) {
    this.#indexers = options.indexers;
    this.#matcher = matcher;
    this.#settings = options.settings;
    const storer = new OutcomeStorer({
      api: options.api,
      settings: options.settings,
      writes,
      metrics: options.metrics,
    });
    this.list = [
      new RecallStage(options.api, options.objects, options.ownership),
      new PendingOutcomeStage(storer),
      new IndexingStage(options.indexers),
      new EventStage(matcher, clock, options.metrics),
      new SpawningStage(options.spawner),
      new ChangingStage({
        matcher,
        settings: options.settings,
        clock,
        metrics: options.metrics,
        lifecycle: options.lifecycle,
        spawner: options.spawner,
      }),
      ...(options.children === undefined
        ? []
        : [new ChildStage(matcher, options.children, clock, options.metrics)]),
      new StoringStage(storer),
    ];
  }

  /** Process one state of one object through the stages, until one ends it. */
  async run(
    resource: Resource,
    event: ObservedEvent,
    signal: AbortSignal | undefined,
    aside: AsideWait | undefined,
  ): Promise<Reconciliation> {
    const indices = this.#indexers?.indices;
    const processing = new ObjectProcessing(resource, event, signal, aside ?? waitInPlace, indices);
    // Indexed: an iterator's objects per state processed are garbage for nothing.
    const stages = this.list;
    for (let i = 0; i < stages.length; i++) {
      // A stage with nothing to do answers at once: no turn of the event loop for it.
      const going = stages[i].run(processing);
      if (!(isThenable(going) ? await going : going)) break;
    }
    return processing.result(this.#settled);
  }

  /**
   * Whether the states our writes make would leave every stage nothing to do, as they left
   * the changing handlers (see `Reconciliation.echoes`): no event, index, daemon, timer or
   * child handlers act on the resource (they act on every state, our own writes' included),
   * no field handler watches fields beyond the essence, and the patch keeps the essence.
   */
  readonly #settled = (processing: ObjectProcessing): boolean => {
    const { resource } = processing;
    const h = this.#matcher.handlersFor(resource);
    if (h.event.length + h.index.length + h.daemon.length + h.timer.length > 0) return false;
    if (h.child.length > 0 || this.#matcher.extraFields(resource).length > 0) return false;
    const storage = this.#settings.persistence.diffbaseStorage;
    return keepsEssence(storage, processing.body, processing.patch);
  };
}
