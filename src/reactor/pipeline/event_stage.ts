/**
 * Event handlers (`kopf.on.event`) run for every event, the initial listing included,
 * once each: nothing of them is persisted, their errors are logged and ignored (never
 * retried), their results go to the status like other handlers'. Their messages are only
 * logged, never posted as Kubernetes Events.
 *
 * @module
 */

import type { ObjectEvent } from "../../structs/bodies.ts";
import type { Clock } from "../../structs/clock.ts";
import type { OperatorMetrics } from "../../structs/operator_metrics.ts";
import type { HandlerMatcher } from "../../intents/handler_matching.ts";
import { buildEventKwargs } from "../../intents/kwargs_builders.ts";
import { executeHandlerOnce, observeRuns, type RetriedHandler } from "../../handling/execution.ts";
import { deliverResults } from "../../handling/handler_results.ts";
import { HandlerState, type Outcome } from "../../handling/handler_progress.ts";
import { createObjectScope, runInObjectScope } from "../../handling/object_loggers.ts";
import type { ObjectProcessing, Stage } from "./object_processing.ts";

/** Run the event handlers of the object; see the module docs. */
export class EventStage implements Stage {
  readonly name = "event handlers";
  readonly #matcher: HandlerMatcher;
  readonly #clock: Clock;
  readonly #metrics: OperatorMetrics | undefined;

  /** The stage over the operator's handlers. */
  constructor(matcher: HandlerMatcher, clock: Clock, metrics: OperatorMetrics | undefined) {
    this.#matcher = matcher;
    this.#clock = clock;
    this.#metrics = metrics;
  }

  /** Run them, if the resource has any (no async call for nothing). */
  run(processing: ObjectProcessing): boolean | Promise<boolean> {
    if (this.#matcher.handlersFor(processing.resource).event.length === 0) return true;
    const event = processing.event;
    if (event.type === "LEFT") return true; // out of the watch's selection: not an event of theirs
    return this.#runHandlers(processing, event);
  }

  async #runHandlers(processing: ObjectProcessing, event: ObjectEvent): Promise<boolean> {
    const { resource, body, patch, memory, indices } = processing;
    // Their own logger (never posting), on the same object reference.
    const scope = createObjectScope(body, { local: true }, processing.ref);
    const logger = scope.logger;
    const kwargsFor = (param: unknown) =>
      buildEventKwargs({
        resource,
        body,
        source: processing.source,
        patch,
        logger,
        memoOf: () => memory.memo,
        param,
        indices,
      }, event);
    const handlers = this.#matcher.selectEventHandlers(resource, {
      body,
      kwargs: () => kwargsFor(undefined),
    });
    const outcomes = new Map<string, Outcome>();
    for (const handler of handlers) {
      const state = HandlerState.fromScratch(this.#clock);
      const invoke = () =>
        runInObjectScope(
          scope,
          () => handler.fn(kwargsFor(handler.param) as unknown as Parameters<typeof handler.fn>[0]),
        );
      const observers = observeRuns(this.#metrics, resource, handler.id, body);
      const once = onceOf(handler.id);
      outcomes.set(handler.id, await executeHandlerOnce(once, state, logger, invoke, observers));
    }
    deliverResults(outcomes, patch);
    return true;
  }
}

/** An event handler runs once: its errors are ignored, never retried, never timed out. */
function onceOf(id: string): RetriedHandler {
  return { id, errors: "ignored", timeout: null, retries: null, backoff: 0 };
}
