/**
 * The operator's gauges as a runnable (with metrics only): read when scraped -- the objects
 * known, the queue's depth and oldest wait, the busy workers, the daemons and timers, the
 * indices' sizes.
 *
 * @module
 */

import type { OperatorMetrics } from "../../structs/operator_metrics.ts";
import { resourceLabel } from "../../structs/metric_labels.ts";
import type { OperatorParts } from "../operator_parts.ts";
import type { Multiplexer } from "../queueing/multiplexer.ts";
import type { Runnable } from "../manager.ts";
import type { DaemonsRunnable } from "./daemons_runnable.ts";
import type { QueueingRunnable } from "./queueing_runnable.ts";

/** The gauges read when scraped; see the module docs. */
export class GaugesRunnable implements Runnable {
  readonly name = "gauges";
  readonly after: readonly Runnable[];
  readonly #parts: OperatorParts;
  readonly #queueing: QueueingRunnable;
  readonly #daemons: DaemonsRunnable;

  /** The gauges of the operator's queueing and daemons. */
  constructor(parts: OperatorParts, queueing: QueueingRunnable, daemons: DaemonsRunnable) {
    this.#parts = parts;
    this.#queueing = queueing;
    this.#daemons = daemons;
    this.after = [queueing, daemons];
  }

  /** Register the gauges' collectors (with the queue's multiplexer, loaded for them). */
  async start(): Promise<void> {
    const metrics = this.#parts.metrics;
    if (metrics !== undefined) this.#collect(metrics, await this.#queueing.multiplexer());
  }

  #collect(metrics: OperatorMetrics, multiplexer: Multiplexer): void {
    const { objects, indexers } = this.#parts;
    const spawner = this.#daemons.spawner;
    metrics.objects.collectWith((set) => {
      for (const [resource, count] of objects.sizes()) set([resourceLabel(resource)], count);
    });
    metrics.queueDepth.collectWith((set) => {
      for (const [resource, { depth }] of multiplexer.waiting()) {
        set([resourceLabel(resource)], depth);
      }
    });
    metrics.queueOldestAge.collectWith((set) => {
      for (const [resource, { oldest }] of multiplexer.waiting()) {
        set([resourceLabel(resource)], oldest);
      }
    });
    metrics.workersBusy.collectWith((set) => set([], multiplexer.busy));
    metrics.spawned.collectWith((set) => {
      const running = spawner?.running() ?? { daemon: 0, timer: 0 };
      set(["daemon"], running.daemon);
      set(["timer"], running.timer);
    });
    metrics.indexSize.collectWith((set) => {
      for (const [name, index] of Object.entries(indexers?.indices ?? {})) {
        set([name], index.size);
      }
    });
  }
}
