/**
 * Running one daemon or timer of one object: a daemon's function, run again only after
 * temporary errors; a timer's schedule (`timers.ts`) and its runs; after each run, its
 * result delivered to the status and its patch applied. The engine (`daemons.ts`) keeps the
 * objects and decides what runs; this module runs it.
 *
 * @module
 */

import { type Clock, sleep } from "../structs/clock.ts";
import type { Index } from "../structs/indices.ts";
import type { ObjectReference } from "../structs/object_refs.ts";
import type { OperatorMetrics } from "../structs/operator_metrics.ts";
import { Patch } from "../structs/patches.ts";
import type { Resource } from "../structs/resources.ts";
import type { Semaphore } from "../structs/semaphores.ts";
import type { DaemonStopper } from "../structs/stoppers.ts";
import type { BodyHolder } from "../structs/views.ts";
import type { ApiClient } from "../client/api.ts";
import { runWithRequestPriority } from "../client/request_priorities.ts";
import type { OperatorSettings } from "../settings/operator_settings.ts";
import type { DaemonHandler, TimerHandler } from "../intents/handlers.ts";
import { buildDaemonKwargs, buildTimerKwargs } from "../intents/kwargs_builders.ts";
import { applyChanges } from "../handling/application.ts";
import { executeHandlerOnce, observeRuns } from "../handling/execution.ts";
import { type ObjectScope, runInObjectScope } from "../handling/object_loggers.ts";
import { deliverResults, storableResult } from "../handling/handler_results.ts";
import { HandlerState, type Outcome } from "../handling/handler_progress.ts";
import { runTimer } from "./timers.ts";

/** A daemon or a timer. */
export type SpawningHandler = DaemonHandler | TimerHandler;

/** One running (or stopping) daemon or timer of one object. */
export interface Spawned {
  readonly handler: SpawningHandler;
  readonly stopper: DaemonStopper;
  /** When it was asked to stop, on the monotonic clock. */
  stoppedAt: number | undefined;
  /** Settles when its task has exited. */
  readonly exited: Promise<void>;
  /** Whether the processing has given up waiting for it. */
  abandoned: boolean;
}

/** What the engine keeps about one object with daemons or timers. */
export interface ObjectRecord {
  readonly resource: Resource;
  readonly key: string;
  readonly holder: BodyHolder;
  readonly scope: ObjectScope & { readonly ref: ObjectReference };
  readonly memory: { readonly memo: unknown };
  /** The latest `resourceVersion` seen, to tell a new state from a revisit of the same. */
  version: string | undefined;
  /** When the object last changed (or was first seen), on the monotonic clock. */
  changedAt: number;
  /** Daemons and timers that run or are stopping, by handler id. */
  readonly running: Map<string, Spawned>;
  /** Ids of those that ended on their own: never spawned again for this object. */
  readonly finished: Set<string>;
  /** The object is gone from the cluster: forget it once nothing runs. */
  gone: boolean;
}

/** What runs need: the operator's parts that a daemon's or timer's run touches. */
export interface DaemonRunnerOptions {
  /** The API client for applying the handlers' patches. */
  readonly api: ApiClient;
  /** The operator's settings (the finalizer's name). */
  readonly settings: OperatorSettings;
  /** The clock of delays, intervals and idling, and of `started` and `runtime`. */
  readonly clock: Clock;
  /** The operator's limit of concurrent writes, shared with the object processing. */
  readonly writes?: Semaphore;
  /** The operator's declared indices by name, given to the daemons and timers. */
  readonly indices?: Readonly<Record<string, Index>>;
  /** Where the runs are counted; nowhere by default. */
  readonly metrics?: OperatorMetrics;
}

/** Runs daemons and timers for the engine; see the module docs. */
export class DaemonRunner {
  readonly #options: DaemonRunnerOptions;
  readonly #clock: Clock;

  /** A runner over the operator's parts. */
  constructor(options: DaemonRunnerOptions) {
    this.#options = options;
    this.#clock = options.clock;
  }

  /**
   * Run the daemon or timer until it ends on its own (resolves `true`) or is stopped
   * (`false`).
   */
  run(record: ObjectRecord, handler: SpawningHandler, stopper: DaemonStopper): Promise<boolean> {
    // They can wait: their requests (the function's and its patches) go after live changes'.
    return runWithRequestPriority("deferred", () => this.#run(record, handler, stopper));
  }

  #run(record: ObjectRecord, handler: SpawningHandler, stopper: DaemonStopper): Promise<boolean> {
    if (handler.kind === "daemon") return this.#runDaemon(record, handler, stopper);
    let state: HandlerState | undefined;
    return runTimer({
      handler,
      now: () => this.#clock.now(),
      sleep: (seconds) => this.#sleep(seconds, stopper.signal),
      get stopped() {
        return stopper.isSet;
      },
      get changedAt() {
        return record.changedAt;
      },
      attempt: async (fresh: boolean) => {
        if (fresh || state === undefined) state = HandlerState.fromScratch(this.#clock);
        const outcome = await this.#attempt(record, handler, state, stopper);
        state = state.withOutcome(outcome);
        return outcome;
      },
    });
  }

  /** A daemon: its function, run again only after temporary errors. */
  async #runDaemon(
    record: ObjectRecord,
    handler: DaemonHandler,
    stopper: DaemonStopper,
  ): Promise<boolean> {
    if (handler.initialDelay !== null && handler.initialDelay > 0) {
      await this.#sleep(handler.initialDelay, stopper.signal);
    }
    let state = HandlerState.fromScratch(this.#clock);
    while (!stopper.isSet) {
      const outcome = await this.#attempt(record, handler, state, stopper);
      state = state.withOutcome(outcome);
      if (outcome.final) return true;
      await this.#sleep(outcome.delay ?? 0, stopper.signal);
    }
    return false;
  }

  /** Run the function once; deliver its result and apply its patch. */
  async #attempt(
    record: ObjectRecord,
    handler: SpawningHandler,
    state: HandlerState,
    stopper: DaemonStopper,
  ): Promise<Outcome> {
    const patch = new Patch();
    const init = {
      resource: record.resource,
      body: record.holder.body,
      holder: record.holder,
      patch,
      logger: record.scope.logger,
      memo: record.memory.memo,
      param: handler.param,
      indices: this.#options.indices,
    };
    const retry = { retry: state.retries, started: state.startedAt, runtime: state.runtime };
    const kwargs = handler.kind === "daemon"
      ? buildDaemonKwargs(init, { ...retry, stopped: stopper })
      : buildTimerKwargs(init, retry);
    const outcome = await executeHandlerOnce(
      handler,
      state,
      record.scope.logger,
      () => runInObjectScope(record.scope, async () => storableResult(await handler.fn(kwargs))),
      observeRuns(this.#options.metrics, record.resource, handler.id, record.holder.body),
    );
    deliverResults(new Map([[handler.id, outcome]]), patch, true);
    if (!patch.isEmpty && !record.gone) await this.#apply(record, patch);
    return outcome;
  }

  async #apply(record: ObjectRecord, patch: Patch): Promise<void> {
    const applying = this.#options.settings.applying;
    try {
      const apply = () =>
        applyChanges({
          api: this.#options.api,
          resource: record.resource,
          body: record.holder.body,
          patch,
          finalizer: this.#options.settings.persistence.finalizer,
          // Merged, beside the handling cycles whose intent an apply would have to state;
          // recorded under the operator's field manager when it applies its own writes.
          fieldManager: applying.outcomes ? applying.fieldManager : undefined,
        });
      const applied = await (this.#options.writes ? this.#options.writes.run(apply) : apply());
      if (applied.gone) record.scope.logger.debug("The object is gone; nothing to patch.");
    } catch (error) {
      record.scope.logger.exception("Applying the changes of a daemon or timer failed.", error);
    }
  }

  /** Sleep on the runner's clock, waking early when the signal aborts. */
  async #sleep(seconds: number, signal: AbortSignal): Promise<void> {
    await sleep(Math.max(0, seconds), signal, this.#clock);
  }
}

/** How a daemon or timer is named in messages: `Daemon 'monitor'`. */
export function title(handler: SpawningHandler): string {
  return `${handler.kind === "daemon" ? "Daemon" : "Timer"} '${handler.id}'`;
}
