/**
 * Child handlers (`kopf.on.child`): when the parent being processed has changes of its
 * children waiting (noted on its record by the children's watch, see `objects/parent_changes.ts`), the
 * child handlers whose filters pass -- the parent's, and `childLabels`/`childWhen` on the
 * child -- run for each change in turn, after the resource-changing handlers and before the
 * outcome is stored: their results go to the parent's status in the same write. The child
 * is read whole before the call when its watch carries metadata only (not for a deletion:
 * the last state the watch carried is given). A handler that fails temporarily is retried
 * after its backoff with the child's latest change (its retry state kept in memory); one
 * that fails for good, or exhausts its retries or time, is not run for that change again.
 * Nothing runs for a parent being deleted, gone, or another replica's.
 *
 * @module
 */

import type { Clock } from "../../structs/clock.ts";
import type { OperatorMetrics } from "../../structs/operator_metrics.ts";
import { APINotFoundError } from "../../client/api_errors.ts";
import type { HandlerMatcher } from "../../intents/handler_matching.ts";
import type { ChildHandler } from "../../intents/handlers.ts";
import { matchesFilters } from "../../intents/filters.ts";
import {
  buildChildFilterKwargs,
  buildChildKwargs,
  buildResourceKwargs,
} from "../../intents/kwargs_builders.ts";
import { executeHandlerOnce, observeRuns } from "../../handling/execution.ts";
import { deliverResults, storableResult } from "../../handling/handler_results.ts";
import { HandlerState, type Outcome } from "../../handling/handler_progress.ts";
import { runInObjectScope } from "../../handling/object_loggers.ts";
import { isDeletionOngoing } from "../../handling/cause_detection.ts";
import type { ChildChange } from "../../engines/child_changes.ts";
import type { ChildChanges } from "../objects/parent_changes.ts";
import type { ObjectProcessing, Stage } from "./object_processing.ts";

/** Run the child handlers of the parent for its children's changes; see the module docs. */
export class ChildStage implements Stage {
  readonly name = "child handlers";
  readonly #matcher: HandlerMatcher;
  readonly #changes: ChildChanges;
  readonly #clock: Clock;
  readonly #metrics: OperatorMetrics | undefined;

  /** The stage over the operator's child handlers and the children's noted changes. */
  constructor(
    matcher: HandlerMatcher,
    changes: ChildChanges,
    clock: Clock,
    metrics: OperatorMetrics | undefined,
  ) {
    this.#matcher = matcher;
    this.#changes = changes;
    this.#clock = clock;
    this.#metrics = metrics;
  }

  /** Run them if the parent has changes of children waiting (no async call otherwise). */
  run(processing: ObjectProcessing): boolean | Promise<boolean> {
    const uid = processing.body.metadata?.uid;
    if (uid === undefined || !this.#changes.has(processing.memory)) return true;
    if (
      processing.gone || processing.left || !processing.owned || isDeletionOngoing(processing.body)
    ) {
      this.#changes.forget(processing.memory);
      return true;
    }
    return this.#runAll(processing, uid);
  }

  async #runAll(processing: ObjectProcessing, uid: string): Promise<boolean> {
    const { resource, body, source, memory, indices } = processing;
    const memoOf = () => memory.memo;
    const handlers = this.#matcher.selectChildHandlers(resource, {
      body,
      kwargs: () => buildResourceKwargs({ resource, body, source, memoOf, indices }, {}),
    });
    const outcomes = new Map<string, Outcome>();
    for (const change of this.#changes.take(memory)) {
      const fitting = handlers.filter((h) => fits(h, change, uid));
      if (fitting.length === 0) continue;
      const child = await this.#whole(change, processing);
      if (child === undefined) continue; // deleted meanwhile: its deletion comes next
      for (const handler of fitting) {
        const outcome = await this.#runOne(processing, handler, change, child);
        if (outcome.result !== undefined) outcomes.set(handler.id, outcome);
        if (!outcome.final) {
          this.#changes.retry(processing.memory, change);
          processing.revisitIn(outcome.delay ?? 0);
        }
      }
    }
    deliverResults(outcomes, processing.patch);
    return true;
  }

  /** The child as the handler gets it: read whole if its watch carried metadata only. */
  async #whole(
    change: ChildChange,
    processing: ObjectProcessing,
  ): Promise<ChildChange["child"] | undefined> {
    const source = change.source;
    if (source === undefined || change.event === "DELETED") return change.child;
    try {
      return await source.read(change.child);
    } catch (error) {
      if (error instanceof APINotFoundError) return undefined;
      processing.logger.warning(
        `Could not read the child ${describe(change)}: ${(error as Error).message}; ` +
          "the child handlers get its metadata only.",
      );
      return change.child;
    }
  }

  async #runOne(
    processing: ObjectProcessing,
    handler: ChildHandler,
    change: ChildChange,
    child: ChildChange["child"],
  ): Promise<Outcome> {
    const { resource, body, patch, memory, indices, logger } = processing;
    const state = this.#changes.state(memory, handler.id, change.child) ??
      HandlerState.fromScratch(this.#clock);
    const kwargs = buildChildKwargs({
      resource,
      body,
      source: processing.source,
      patch,
      logger,
      memoOf: () => memory.memo,
      param: handler.param,
      indices,
    }, {
      retry: state.retries,
      started: state.startedAt,
      runtime: state.runtime,
      child,
      childEvent: change.event,
    });
    const observers = observeRuns(this.#metrics, resource, handler.id, body);
    const outcome = await executeHandlerOnce(
      handler,
      state,
      logger,
      () => runInObjectScope(processing, async () => storableResult(await handler.fn(kwargs))),
      observers,
    );
    this.#changes.setState(
      memory,
      handler.id,
      change.child,
      outcome.final ? undefined : state.withOutcome(outcome),
    );
    return outcome;
  }
}

/** Whether the handler is for this change: its child resource, owner kind and child filters. */
function fits(handler: ChildHandler, change: ChildChange, parentUid: string): boolean {
  if (!handler.childSelector.check(change.resource)) return false;
  if (!handler.anyOwner && !isControlledBy(change, parentUid)) return false;
  if (!handler.childFilters.hasFilters) return true;
  return matchesFilters(handler.childFilters, {
    body: change.child,
    kwargs: () => buildChildFilterKwargs(change.child, change.event),
  });
}

/** Whether the parent is the child's controller (not only one of its owners). */
function isControlledBy(change: ChildChange, parentUid: string): boolean {
  const refs = change.child.metadata?.ownerReferences ?? [];
  return refs.some((ref) => ref.uid === parentUid && ref.controller === true);
}

function describe(change: ChildChange): string {
  const meta = change.child.metadata;
  return `${change.resource.plural} ${meta?.namespace ? `${meta.namespace}/` : ""}${meta?.name}`;
}
