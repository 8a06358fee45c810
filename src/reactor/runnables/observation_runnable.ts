/**
 * The observation as a runnable: one watch per served resource and namespace (and a watch
 * of namespaces or CRDs where needed) feeds every event into the queueing. It pauses while
 * a peer pauses the operator, feeds again what was seen on standby once Leases are gained,
 * and announces `listed` (the initial watches have listed their objects; for an operator
 * paused from the start, which does not list: once they are set up) and `ready` (listed and
 * indexed). The observation ends only when told to; a failure to start it (e.g. no
 * discovery) ends the operator.
 *
 * @module
 */

import type { ObservedEvent } from "../../structs/bodies.ts";
import type { Resource } from "../../structs/resources.ts";
import { observationClient } from "../observation/observation_client.ts";
import { discoveredGroups } from "../observation/discovered_groups.ts";
import { Observer } from "../observation/observer.ts";
import { WatchSelecting } from "../observation/selecting.ts";
import { keepsLastStates, ServedResources } from "../observation/served_resources.ts";
import type { OperatorParts } from "../operator_parts.ts";
import type { Reactions, RunContext, Runnable } from "../manager.ts";
import type { AdmissionRunnable } from "./admission_runnable.ts";
import type { ClientRunnable } from "./client_runnable.ts";
import type { PeeringRunnable } from "./peering_runnable.ts";
import type { ProcessingRunnable } from "./processing_runnable.ts";
import type { QueueingRunnable } from "./queueing_runnable.ts";

/** What the observation feeds and consults. */
export interface ObservationNeeds {
  /** The API client and discovery. */
  readonly client: ClientRunnable;
  /** The peering: a paused operator does not watch. */
  readonly peering: PeeringRunnable;
  /** The admission: its managed webhooks follow the discovered resources. */
  readonly admission: AdmissionRunnable;
  /** The processing: which states it skips, which listed ones it awaits indexed. */
  readonly processing: ProcessingRunnable;
  /** The queueing, fed with every event. */
  readonly queueing: QueueingRunnable;
}

/** The watches of the served resources; see the module docs. */
export class ObservationRunnable implements Runnable {
  readonly name = "observation";
  readonly after: readonly Runnable[];
  readonly #parts: OperatorParts;
  readonly #needs: ObservationNeeds;
  readonly #observing = new AbortController();
  #observer: Observer | undefined;
  #running: Promise<void> | undefined;

  /** The observation of the operator, feeding the queueing. */
  constructor(parts: OperatorParts, needs: ObservationNeeds) {
    this.#parts = parts;
    this.#needs = needs;
    this.after = [needs.client, needs.peering, needs.admission, needs.processing, needs.queueing];
  }

  /** Pause and resume with the peering; feed again what was seen on standby. */
  readonly reactions: Reactions = {
    paused: () => this.#observer?.pause(),
    resumed: () => this.#observer?.resume(),
    gained: () => this.#observer?.refeed(), // the objects seen on standby were only indexed
  };

  /** Start watching; announce `listed` and `ready` as they come. */
  start(context: RunContext): void {
    const observer = this.#observer = this.#makeObserver();
    if (this.#needs.peering.paused) observer.pause();
    const processor = this.#needs.processing.processor;
    const running = this.#running = observer.run(this.#observing.signal);
    running.then(
      () => {
        if (!this.#observing.signal.aborted) {
          context.fail(new Error("The observation has ended by itself."));
        }
      },
      (error) => context.fail(error),
    );
    const stopped = () => context.signal.aborted;
    // Listed: later objects arrive as watch events.
    void observer.listed.then(() => processor.listingsQueued());
    // Ready for the readiness probe once they are also indexed (the handling has begun).
    void observer.listed.then(() => this.#parts.indexers?.populating).then(() => {
      if (!stopped()) return context.announce({ type: "ready" });
    });
    // Paused by a peer from the start, the watches do not list: "listed" once set up.
    void (this.#needs.peering.paused ? observer.ready : observer.listed).then(() => {
      if (stopped()) return;
      this.#parts.logger.debug(
        "The operator is ready: the initial watches have listed their objects.",
      );
      return context.announce({ type: "listed" });
    });
  }

  /**
   * Resolves once the initial watches have listed their objects (every one of them is
   * queued); never if it does not start.
   */
  get listed(): Promise<void> {
    if (this.#observer === undefined) throw new Error("The observation is used before its start.");
    return this.#observer.listed;
  }

  /** Stop watching. */
  halt(): void {
    this.#observing.abort();
  }

  /** Wait for the watches to end. */
  async stop(): Promise<void> {
    await this.#running?.catch(() => {}); // a failure is reported through the context
  }

  #makeObserver(): Observer {
    const { matcher, settings, clock, logger, scope } = this.#parts;
    const { client, queueing } = this.#needs;
    const selecting = new WatchSelecting(matcher, settings, logger);
    const served = new ServedResources(matcher, logger);
    return new Observer({
      client: observationClient(client.api, client.discovery, () => discoveredGroups(matcher)),
      table: this.#parts.objects,
      scope,
      clock,
      select: (discovered) => {
        this.#needs.admission.resourcesChanged(discovered); // the managed webhooks' rules follow
        const selected = served.select(discovered);
        queueing.serve(selected); // their queue gauges show 0 from the start
        return selected;
      },
      feed: (resource: Resource, event: ObservedEvent) => queueing.intake.feed(resource, event),
      takes: (entry, object, text) => queueing.intake.takes(entry, object, text),
      keepsLastStates: (resource) => keepsLastStates(matcher, resource),
      selection: (resource) => selecting.of(resource),
      scanning: settings.scanning,
      watching: settings.watching,
      logger,
    });
  }
}
