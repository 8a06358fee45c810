/**
 * The children of the served parents (`kopf.on.child`), watched apart from the served
 * resources: per child resource and namespace, a watch of metadata only, whose children's
 * changes are noted for their parents, which are queued again (see
 * `observation/child_watching.ts`, which decides all of that; this runnable only wires it
 * to a watch, the processing and the queueing).
 *
 * @module
 */

import { outsideContexts } from "../../platform/async_context.ts";
import type { ChildChanges } from "../objects/parent_changes.ts";
import { observationClient } from "../observation/observation_client.ts";
import { discoveredGroups } from "../observation/discovered_groups.ts";
import type { ChildWatching } from "../observation/child_watching.ts";
import { Observer } from "../observation/observer.ts";
import type { OperatorParts } from "../operator_parts.ts";
import type { Reactions, RunContext, Runnable } from "../manager.ts";
import type { ClientRunnable } from "./client_runnable.ts";
import type { ObservationRunnable } from "./observation_runnable.ts";
import type { PeeringRunnable } from "./peering_runnable.ts";
import type { ProcessingRunnable } from "./processing_runnable.ts";
import type { QueueingRunnable } from "./queueing_runnable.ts";

/** What the children's watching feeds and consults. */
export interface ChildrenNeeds {
  /** The API client and discovery. */
  readonly client: ClientRunnable;
  /** The peering: a paused operator does not watch. */
  readonly peering: PeeringRunnable;
  /** The processing: which parents are another replica's. */
  readonly processing: ProcessingRunnable;
  /** The queueing, where the parents are processed again. */
  readonly queueing: QueueingRunnable;
  /** The observation of the parents: none is processed again before they are listed. */
  readonly observation: ObservationRunnable;
}

/** The watches of the served parents' children; see the module docs. */
export class ChildrenRunnable implements Runnable {
  readonly name = "children";
  readonly after: readonly Runnable[];
  readonly #parts: OperatorParts;
  readonly #needs: ChildrenNeeds;
  readonly #changes: ChildChanges;
  readonly #observing = new AbortController();
  #observer: Observer | undefined;
  #running: Promise<void> | undefined;

  /** The children's watching of the operator; `changes` is where their changes wait. */
  constructor(parts: OperatorParts, needs: ChildrenNeeds, changes: ChildChanges) {
    this.#parts = parts;
    this.#needs = needs;
    this.#changes = changes;
    const { client, peering, processing, queueing, observation } = needs;
    this.after = [client, peering, processing, queueing, observation];
  }

  /** Pause and resume with the peering. */
  readonly reactions: Reactions = {
    paused: () => this.#observer?.pause(),
    resumed: () => this.#observer?.resume(),
  };

  /**
   * Start watching the children. Their watching's modules load here, only in operators with
   * child handlers; if they cannot, the operator does not start.
   */
  async start(context: RunContext): Promise<void> {
    const { ChildWatching } = await outsideContexts(() =>
      import("../observation/child_watching.ts")
    );
    const observer = this.#observer = this.#makeObserver(ChildWatching);
    if (this.#needs.peering.paused) observer.pause();
    // A child written by the operator's own flows is known from the answer on.
    this.#needs.client.writtenObjects = (resource, object) => observer.told(resource, object);
    const running = this.#running = observer.run(this.#observing.signal);
    running.then(
      () => {
        if (!this.#observing.signal.aborted) {
          context.fail(new Error("The watching of children has ended by itself."));
        }
      },
      (error) => context.fail(error),
    );
  }

  /** Stop watching. */
  halt(): void {
    this.#needs.client.writtenObjects = undefined;
    this.#observing.abort();
  }

  /** Wait for the watches to end. */
  async stop(): Promise<void> {
    await this.#running?.catch(() => {});
  }

  #makeObserver(Watching: typeof ChildWatching): Observer {
    const { matcher, settings, clock, logger, scope } = this.#parts;
    const { client, queueing, observation } = this.#needs;
    const watching = new Watching({
      matcher,
      api: client.api,
      changes: this.#changes,
      parents: queueing.intake,
      signal: this.#observing.signal,
      clock,
      logger,
    });
    void observation.listed.then(() => watching.servedListed());
    return new Observer({
      client: observationClient(client.api, client.discovery, () => discoveredGroups(matcher)),
      scope,
      clock,
      select: (discovered) => watching.select(discovered),
      feed: (resource, event) => watching.feed(resource, event),
      selection: (resource) => watching.selection(resource),
      onListed: (dimension) => watching.listed(dimension),
      toldOfWrites: true,
      scanning: settings.scanning,
      watching: settings.watching,
      logger,
    });
  }
}
