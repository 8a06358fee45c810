/**
 * Daemons and timers as a runnable (with such handlers only): the engine is told of every
 * object's state by the processing, pauses while a peer pauses the operator, stops the
 * daemons and timers of objects that stop being this replica's (and is awaited for that),
 * and stops them all when the operator stops.
 *
 * @module
 */

import type { Spawner } from "../../engines/daemons.ts";
import type { OperatorParts } from "../operator_parts.ts";
import type { Reactions, Runnable } from "../manager.ts";
import type { ClientRunnable } from "./client_runnable.ts";
import type { CoordinationRunnable } from "./coordination_runnable.ts";
import type { PeeringRunnable } from "./peering_runnable.ts";
import { outsideContexts } from "../../platform/async_context.ts";

/** The engine of daemons and timers, if any; see the module docs. */
export class DaemonsRunnable implements Runnable {
  readonly name = "daemons and timers";
  readonly after: readonly Runnable[];
  readonly #parts: OperatorParts;
  readonly #client: ClientRunnable;
  readonly #coordination: CoordinationRunnable;
  readonly #peering: PeeringRunnable;
  #spawner: Spawner | undefined;

  /** The daemons of the operator, after the client, the coordination and the peering. */
  constructor(
    parts: OperatorParts,
    client: ClientRunnable,
    coordination: CoordinationRunnable,
    peering: PeeringRunnable,
  ) {
    this.#parts = parts;
    this.#client = client;
    this.#coordination = coordination;
    this.#peering = peering;
    this.after = [client, coordination, peering];
  }

  /** The engine; `undefined` before the start or without daemons and timers. */
  get spawner(): Spawner | undefined {
    return this.#spawner;
  }

  /** A paused operator keeps no daemons and timers running; lost objects keep none either. */
  readonly reactions: Reactions = {
    paused: () => this.#spawner?.pause(),
    resumed: () => this.#spawner?.resume(),
    losing: (event) => this.#spawner?.revoke(event.deadline),
  };

  /** Make the engine, paused if a peer pauses the operator already. */
  async start(): Promise<void> {
    const { registry, matcher, settings, clock, writes, indexers, metrics } = this.#parts;
    if (!matcher.handlers.some((h) => h.kind === "daemon" || h.kind === "timer")) return;
    // Loaded only for daemons and timers: an operator without them never loads the engine.
    const { Spawner } = await outsideContexts(() => import("../../engines/daemons.ts"));
    this.#spawner = new Spawner({
      api: this.#client.api,
      registry,
      settings,
      clock,
      writes,
      indices: indexers?.indices,
      metrics,
      ownership: this.#coordination.ownership,
    });
    if (this.#peering.paused) this.#spawner.pause();
  }

  /** Ask every daemon and timer to stop; spawn none any more. */
  halt(): void {
    this.#spawner?.halt();
  }

  /** Wait for the daemons and timers to exit, up to the budget. */
  async stop(budget: number): Promise<void> {
    await this.#spawner?.shutdown(budget);
  }
}
