/**
 * The operator's endpoints as a runnable: liveness (the probe handlers), metrics
 * (Prometheus) and readiness, when asked for. The readiness follows the operator's events:
 * paused by a peer, on standby among replicas, ready once listed and indexed, stopping.
 * Started early (before the login), so that the orchestrator can probe a starting
 * operator; stopped last.
 *
 * @module
 */

import type { OperatorMetrics } from "../../structs/operator_metrics.ts";
import { watchProcessMetrics } from "../../platform/process_metrics.ts";
import {
  endpointLimits,
  type EndpointRoute,
  livenessRoute,
  metricsRoute,
  Readiness,
  readinessRoute,
  type RunningEndpoints,
  startEndpoints,
} from "../../engines/endpoints.ts";
import { activityOf, type OperatorParts } from "../operator_parts.ts";
import type { Reactions, Runnable } from "../manager.ts";

/** Where the endpoints listen (`http://host:port/path`); none: nothing is started. */
export interface EndpointUrls {
  /** The liveness probe's URL. */
  readonly liveness?: string;
  /** The metrics' URL. */
  readonly metrics?: string;
}

/** The probes and the metrics; see the module docs. */
export class EndpointsRunnable implements Runnable {
  readonly name = "endpoints";
  readonly after: readonly Runnable[];
  readonly #parts: OperatorParts;
  readonly #urls: EndpointUrls;
  readonly #readiness = new Readiness();
  #endpoints: RunningEndpoints | undefined;
  #process: { stop(): void } | undefined;

  /** The endpoints at these URLs, after the runnables given (the startup handlers). */
  constructor(parts: OperatorParts, urls: EndpointUrls, after: readonly Runnable[]) {
    this.#parts = parts;
    this.#urls = urls;
    this.after = after;
    this.#readiness.webhooks = parts.matcher.handlers.some((h) => h.kind === "webhook");
  }

  /** The state changes that the readiness and the operator's gauges show. */
  readonly reactions: Reactions = {
    paused: () => this.#setPaused(true),
    resumed: () => this.#setPaused(false),
    standby: () => this.#setStandby(true),
    gained: () => this.#setStandby(false),
    losing: (event) => this.#setStandby(!event.active),
    ready: () => {
      if (this.#readiness.stopping) return;
      this.#readiness.ready = true;
      this.#parts.metrics?.ready.set([], 1);
    },
  };

  /** Listen at the URLs asked for, with `/readyz` beside each. */
  async start(): Promise<void> {
    const routes = new Map<string, EndpointRoute>();
    const { liveness, metrics: metricsUrl } = this.#urls;
    if (liveness !== undefined) routes.set(liveness, livenessRoute(activityOf(this.#parts)));
    const metrics: OperatorMetrics | undefined = this.#parts.metrics;
    if (metricsUrl !== undefined && metrics !== undefined) {
      routes.set(metricsUrl, metricsRoute(metrics.registry));
    }
    if (routes.size === 0) return;
    const limits = endpointLimits(this.#parts.settings.endpoints);
    this.#endpoints = await startEndpoints(routes, readinessRoute(this.#readiness), limits);
    this.#process = metrics === undefined ? undefined : watchProcessMetrics(metrics.registry);
    for (const url of this.#endpoints.urls) {
      const path = new URL(url).pathname;
      const what = liveness !== undefined && new URL(liveness).pathname === path
        ? "liveness probes"
        : metricsUrl !== undefined && new URL(metricsUrl).pathname === path
        ? "metrics scrapes"
        : "readiness probes";
      this.#parts.logger.debug(`Answering ${what} at ${url}.`);
    }
  }

  /** The operator stops: not ready any more. */
  halt(): void {
    this.#readiness.stopping = true;
  }

  /** Stop listening. */
  async stop(): Promise<void> {
    this.#process?.stop();
    await this.#endpoints?.close();
  }

  #setPaused(paused: boolean): void {
    this.#readiness.paused = paused;
    this.#parts.metrics?.peeringPaused.set([], paused ? 1 : 0);
  }

  #setStandby(standby: boolean): void {
    this.#readiness.standby = standby;
    this.#parts.metrics?.leading.set([], standby ? 0 : 1);
  }
}
