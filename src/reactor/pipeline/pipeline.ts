/**
 * The per-object pipeline: what the queueing's worker runs for every state of every object,
 * as named stages over one context (`ObjectProcessing`), each doing one thing and calling
 * the layer that knows how (the stages: `pipeline_stages.ts`).
 *
 * A stage may end the processing (a state that moved on, another replica's object, an
 * outcome that could not be stored); what it comes to is a {@link Reconciliation}: which
 * `resourceVersion` our patch produced (older states are not processed again) and when to
 * process the object again if nothing newer comes first.
 *
 * This module is also the one place that coordinates the indexing: it is told which listed
 * objects to wait for ({@link Pipeline.expect}), when the listings are all queued
 * ({@link Pipeline.listingsQueued}), and when to stop waiting ({@link Pipeline.halt}).
 *
 * @module
 */

import type { ObservedEvent } from "../../structs/bodies.ts";
import { type Clock, realClock } from "../../structs/clock.ts";
import type { OperatorMetrics } from "../../structs/operator_metrics.ts";
import { resourceLabel } from "../../structs/metric_labels.ts";
import type { Resource } from "../../structs/resources.ts";
import { Semaphore } from "../../structs/semaphores.ts";
import { inSpan, isTracing } from "../../platform/tracing.ts";
import { outsideContexts } from "../../platform/async_context.ts";
import type { HandlerMatcher } from "../../intents/handler_matching.ts";
import { matcherOf } from "../../intents/registry.ts";
import type { ObjectTable } from "../objects/object_table.ts";
import type { OperatorIndexers } from "../../engines/indexing.ts";
import type { Ownership } from "../../engines/leader_election.ts";
import type { AsideWait, Reconciliation } from "./object_processing.ts";
import type { Stages } from "./pipeline_stages.ts";
import type { ProcessingContext, Processor } from "../queueing/workers.ts";
import type { PipelineOptions } from "./pipeline_options.ts";

/** How many objects are patched at once by default. */
export const DEFAULT_WRITE_LIMIT = 32;

/** The processing of all objects of one operator; see the module docs. */
export class Pipeline implements Processor {
  readonly #matcher: HandlerMatcher;
  readonly #objects: ObjectTable;
  readonly #indexers: OperatorIndexers | undefined;
  readonly #metrics: OperatorMetrics | undefined;
  readonly #ownership: Ownership | undefined;
  readonly #options: PipelineOptions;
  readonly #clock: Clock;
  readonly #writes: Semaphore;
  /** The stages, once their modules are loaded; loading since the first need. */
  #stages: Stages | undefined;
  #loading: Promise<Stages> | undefined;

  /** The processing over the operator's parts; its stages load when first needed. */
  constructor(options: PipelineOptions) {
    this.#matcher = matcherOf(options.registry);
    this.#options = options;
    this.#objects = options.objects;
    this.#indexers = options.indexers;
    this.#metrics = options.metrics;
    this.#ownership = options.ownership;
    this.#clock = options.clock ?? realClock;
    this.#writes = options.writes ?? new Semaphore(options.writeLimit ?? DEFAULT_WRITE_LIMIT);
  }

  /**
   * Load the stages' modules (the handling of changes, the patches' application) unless
   * loading already; resolves once loaded, rejects if they fail to load. Not at the start:
   * an operator's first watches need none of it, so they need not wait for it either.
   */
  load(): Promise<void> {
    return this.#load().then(() => {});
  }

  #load(): Promise<Stages> {
    return this.#loading ??= outsideContexts(() => import("./pipeline_stages.ts")).then((
      { Stages },
    ) => this.#stages = new Stages(this.#options, this.#matcher, this.#clock, this.#writes));
  }

  /**
   * An object state has been queued for processing: if it comes from an initial listing
   * of a resource with indexing functions, the handling of all objects waits for it to be
   * indexed.
   */
  expect(resource: Resource, event: ObservedEvent): void {
    this.#indexers?.expect(resource, event);
  }

  /**
   * Whether a state needs no processing here at all: its object is another replica's
   * (see `ownership`), no index handler looks at it, and no outcome of this replica's waits
   * to be dropped for it (see the pending outcome's stage). Such states go no further than
   * the feed -- no worker, no queueing -- and a deletion among them forgets the object here.
   */
  skips(resource: Resource, event: ObservedEvent): boolean {
    if (this.#ownership === undefined || this.#ownership.owns(event.object)) return false;
    if (this.#matcher.handlersFor(resource).index.length > 0) return false;
    const entry = this.#objects.peek(resource, event.object);
    if (entry?.unstored !== undefined) return false;
    if (entry !== undefined && (event.type === "DELETED" || event.type === "LEFT")) {
      this.#objects.forget(resource, event.object);
    }
    return true;
  }

  /**
   * Whether {@link skips} and {@link expect} need nothing of a live state but its identity
   * and version: with no ownership to judge (no Leases), neither looks at its body.
   */
  judgesByIdentity(_resource: Resource): boolean {
    return this.#ownership === undefined;
  }

  /**
   * The initial listings have all been queued: the handling begins once the objects
   * expected so far are indexed.
   */
  listingsQueued(): void {
    this.#indexers?.listingsFed();
  }

  /** The operator stops: nothing waits for the indices any longer. */
  halt(): void {
    this.#indexers?.halt();
  }

  /** Process a state the queue hands over, with what the queue gives (see `Processor`). */
  reconcile(event: ObservedEvent, context: ProcessingContext): Promise<Reconciliation> {
    return this.process(context.resource, event, context.signal, context.aside);
  }

  /**
   * Process one state of one object through the stages; see the module docs. `aside`
   * waits without holding the worker's place (without it, a wait simply holds it).
   */
  process(
    resource: Resource,
    event: ObservedEvent,
    signal?: AbortSignal,
    aside?: AsideWait,
  ): Promise<Reconciliation> {
    this.#metrics?.processingCycles.inc([resourceLabel(resource)]);
    if (!isTracing()) return this.#process(resource, event, signal, aside);
    // Traced: one span per processed state, the parent of its handler runs and requests.
    const meta = event.object.metadata;
    return inSpan(`kopf process ${resourceLabel(resource)}`, {
      "kopf.resource": resourceLabel(resource),
      "kopf.event.type": event.type ?? "LISTED",
      "k8s.namespace.name": meta?.namespace ?? "",
      "kopf.object.name": meta?.name ?? "",
      "kopf.object.uid": meta?.uid ?? "",
    }, () => this.#process(resource, event, signal, aside));
  }

  #process(
    resource: Resource,
    event: ObservedEvent,
    signal: AbortSignal | undefined,
    aside: AsideWait | undefined,
  ): Promise<Reconciliation> {
    const stages = this.#stages;
    if (stages !== undefined) return stages.run(resource, event, signal, aside);
    return this.#load().then((loaded) => loaded.run(resource, event, signal, aside));
  }
}
