/**
 * The manager of an operator's runnables: each engine and loop of the operator (the probes,
 * the API client, the event posting, peering, the Leases, admission, daemons, processing,
 * queueing, observation, ...) is a {@link Runnable} with a start and a stop, and the
 * runnables it needs. The manager starts them in that order, and stops them in reverse:
 * first it halts every started runnable (synchronously, the last started first: nothing new
 * begins, and whatever waits is released), then it stops each of them in the same order,
 * awaiting each. The time a stop may take waiting for work in progress is the manager's to
 * give: one budget, from one place (`settings.batching.exitTimeout`).
 *
 * Changes of state that other runnables react to (a peer pauses the operator, Leases are
 * gained or lost, the initial listings are in) are {@link OperatorEvent}s: a runnable
 * announces one through its {@link RunContext}, and the manager routes it to the
 * {@link Runnable.reactions} of every runnable that runs, awaiting them all, so that the
 * announcer knows when everyone has reacted (e.g. that nothing runs any more for objects
 * whose Lease is given up). Runnables never call one another's callbacks: they announce,
 * and they react.
 *
 * A runnable that cannot go on fails through {@link RunContext.fail}: the operator stops,
 * and the manager's {@link Manager.run} rejects with that error once everything has stopped.
 *
 * @module
 */

import type { Logger } from "../structs/loggers.ts";
import { describeError } from "../structs/log_formats.ts";

/** A change of the operator's state that runnables announce and react to. */
export type OperatorEvent =
  /** A peer of a higher (or the same) priority pauses the operator. */
  | { readonly type: "paused" }
  /** No peer stands in the way any more. */
  | { readonly type: "resumed" }
  /** The replicas' coordination runs: this replica handles nothing until it gains Leases. */
  | { readonly type: "standby" }
  /** This replica has gained Leases: it handles (some) objects now. */
  | { readonly type: "gained" }
  /**
   * Objects stop being this replica's (a Lease lost or given up): the reactions resolve
   * once nothing runs for them any more, or at the deadline (the clock's `now()` scale).
   * `active` tells whether this replica still handles anything.
   */
  | { readonly type: "losing"; readonly deadline: number; readonly active: boolean }
  /** The initial watches have listed their objects: later objects arrive as events. */
  | { readonly type: "listed" }
  /** Listed and indexed: the handling has begun (the readiness probe's "ready"). */
  | { readonly type: "ready" };

/** The names of the operator's events. */
export type OperatorEventType = OperatorEvent["type"];

/** How a runnable reacts to the events it cares about. */
export type Reactions = {
  readonly [T in OperatorEventType]?: (
    event: Extract<OperatorEvent, { readonly type: T }>,
  ) => void | Promise<void>;
};

/** What a runnable gets when it starts. */
export interface RunContext {
  /** Aborted when the operator begins to stop. */
  readonly signal: AbortSignal;
  /** Tell the other runnables of a change; resolves once all have reacted. */
  announce(event: OperatorEvent): Promise<void>;
  /** The runnable cannot go on: the operator stops and fails with this error. */
  fail(error: unknown): void;
}

/** One engine or loop of the operator, as the manager runs it. */
export interface Runnable {
  /** What it is, for the logs. */
  readonly name: string;
  /** The runnables it needs: they start before it and stop after it. */
  readonly after: readonly Runnable[];
  /** How it reacts to the events of others, from its start until its stop. */
  readonly reactions?: Reactions;
  /**
   * Start; resolves once it runs (its long work goes on in the background). A rejection
   * ends the operator's start: what has started is stopped, and the operator fails.
   */
  start?(context: RunContext): void | Promise<void>;
  /**
   * The operator begins to stop: begin nothing new, and release whatever waits on others;
   * called for all runnables, the last started first, before any {@link Runnable.stop}.
   */
  halt?(): void;
  /**
   * Stop, and resolve once stopped; waits for work in progress take up to `budget`
   * seconds (the operator's exit timeout) before they give up.
   */
  stop?(budget: number): void | Promise<void>;
  /**
   * Run what starts after this runnable (the starts of the runnables after it, and what
   * those start in turn) inside a context of its own, e.g. where `kopf.event()` posts.
   */
  enclose?<T>(fn: () => T): T;
  /** What it holds now that an exit at once would lose (e.g. objects being handled). */
  pending?(): readonly string[];
}

/** What a {@link Manager} is made of. */
export interface ManagerOptions {
  /** Where failures of stops and reactions are reported. */
  readonly logger: Logger;
  /** The seconds a stop may wait for work in progress: read when the stop begins. */
  readonly budget: () => number;
}

/** Starts runnables in order, routes their events, and stops them in reverse; see above. */
export class Manager {
  readonly #logger: Logger;
  readonly #budget: () => number;
  readonly #runnables: Runnable[] = [];
  /** The runnables that react to events now: started, and not stopped yet. */
  readonly #reacting = new Set<Runnable>();

  /** A manager of no runnables yet. */
  constructor(options: ManagerOptions) {
    this.#logger = options.logger;
    this.#budget = options.budget;
  }

  /** Add a runnable (after the runnables it needs); returns it. */
  add<R extends Runnable>(runnable: R): R {
    for (const needed of runnable.after) {
      if (!this.#runnables.includes(needed)) {
        throw new Error(`The runnable ${runnable.name} needs ${needed.name}, not added before it.`);
      }
    }
    this.#runnables.push(runnable);
    return runnable;
  }

  /** The runnables in their start order. */
  get runnables(): readonly Runnable[] {
    return this.#runnables;
  }

  /** What the running runnables hold now that an exit at once would lose. */
  pending(): string[] {
    const pending: string[] = [];
    for (const runnable of this.#reacting) pending.push(...runnable.pending?.() ?? []);
    return pending;
  }

  /**
   * Start every runnable, run until `signal` aborts or a runnable fails, then stop them
   * all. Rejects with a failure to start, or with a failure while running unless the
   * signal had asked for the stop already.
   */
  async run(signal: AbortSignal): Promise<void> {
    const stopping = new AbortController();
    let failure: { readonly error: unknown } | undefined;
    const fail = (error: unknown) => {
      failure ??= { error };
      stopping.abort();
    };
    const onAbort = () => stopping.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) stopping.abort();
    const context: RunContext = {
      signal: stopping.signal,
      announce: (event) => this.#announce(event, fail),
      fail,
    };
    const started: Runnable[] = [];
    let starting = true;
    try {
      let enclose = <T>(fn: () => T): T => fn();
      for (const runnable of this.#runnables) {
        if (stopping.signal.aborted) break;
        // Reacting from the start on: a start may announce, and others may answer it.
        this.#reacting.add(runnable);
        started.push(runnable);
        await enclose(() => runnable.start?.(context));
        const inner = runnable.enclose?.bind(runnable);
        if (inner !== undefined) {
          const outer = enclose;
          enclose = <T>(fn: () => T): T => outer(() => inner(fn));
        }
      }
      starting = false;
      await untilAborted(stopping.signal);
    } catch (error) {
      failure ??= { error };
    } finally {
      signal.removeEventListener("abort", onAbort);
      stopping.abort();
      await this.#stop(started);
    }
    if (failure !== undefined && (starting || !signal.aborted)) throw failure.error;
  }

  /** Halt all the started runnables, then stop them one by one; the last started first. */
  async #stop(started: readonly Runnable[]): Promise<void> {
    const reversed = [...started].reverse();
    for (const runnable of reversed) {
      try {
        runnable.halt?.();
      } catch (error) {
        this.#logger.error(`Halting the ${runnable.name} failed: ${describeError(error)}`);
      }
    }
    const budget = this.#budget();
    for (const runnable of reversed) {
      try {
        await runnable.stop?.(budget);
      } catch (error) {
        this.#logger.error(`Stopping the ${runnable.name} failed: ${describeError(error)}`);
      } finally {
        this.#reacting.delete(runnable);
      }
    }
  }

  /** Route an event to the reactions of the running runnables; a failing one fails all. */
  async #announce(event: OperatorEvent, fail: (error: unknown) => void): Promise<void> {
    const reactions: Promise<void>[] = [];
    for (const runnable of this.#reacting) {
      const react = runnable.reactions?.[event.type] as
        | ((event: OperatorEvent) => void | Promise<void>)
        | undefined;
      if (react === undefined) continue;
      reactions.push(
        (async () => await react(event))().catch((error) => {
          this.#logger.error(
            `The ${runnable.name} failed to react to "${event.type}": ${describeError(error)}`,
          );
          fail(error);
        }),
      );
    }
    await Promise.all(reactions);
  }
}

function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener("abort", () => resolve(), { once: true })
  );
}
