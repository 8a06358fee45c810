/**
 * Admission as a runnable: the webhook server (with admission handlers only) answers while
 * the objects are observed -- with leader election, only while leading, since the managed
 * webhook configuration and the Service point at one replica's server. A failure of the
 * server ends the operator.
 *
 * @module
 */

import type { Resource } from "../../structs/resources.ts";
import type { RunningAdmission } from "../../engines/admission.ts";
import type { OperatorParts } from "../operator_parts.ts";
import type { Reactions, RunContext, Runnable } from "../manager.ts";
import type { ClientRunnable } from "./client_runnable.ts";
import type { CoordinationRunnable } from "./coordination_runnable.ts";
import { discoveredGroups } from "../observation/discovered_groups.ts";
import { outsideContexts } from "../../platform/async_context.ts";

/** The admission webhooks' server, if there are admission handlers; see the module docs. */
export class AdmissionRunnable implements Runnable {
  readonly name = "admission";
  readonly after: readonly Runnable[];
  readonly #parts: OperatorParts;
  readonly #client: ClientRunnable;
  readonly #webhooks: boolean;
  #context: RunContext | undefined;
  #admission: RunningAdmission | undefined;
  /** The start or stop of the server going on, one after another. */
  #changing: Promise<void> = Promise.resolve();

  /** The admission of the operator, through the client, after the coordination. */
  constructor(parts: OperatorParts, client: ClientRunnable, coordination: CoordinationRunnable) {
    this.#parts = parts;
    this.#client = client;
    this.after = [client, coordination];
    this.#webhooks = parts.matcher.handlers.some((h) => h.kind === "webhook");
  }

  /** Whether the server starts and stops with the leadership. */
  get #followsLeader(): boolean {
    return this.#webhooks && this.#parts.settings.leadership.leaderElection;
  }

  /** Leading now: serve. No longer leading: stop serving. */
  readonly reactions: Reactions = {
    gained: () => {
      if (this.#followsLeader) this.#change(() => this.#startServer());
    },
    losing: async () => {
      if (this.#followsLeader) await this.#change(() => this.#stopServer());
    },
  };

  /** Start the server now, unless it waits for the leadership (or there are no handlers). */
  async start(context: RunContext): Promise<void> {
    this.#context = context;
    if (this.#webhooks && !this.#followsLeader) await this.#startServer();
  }

  /**
   * The served resources have changed (e.g. a CRD appeared): the managed webhooks' rules
   * follow.
   */
  resourcesChanged(resources: readonly Resource[]): void {
    this.#admission?.resourcesChanged(resources);
  }

  /** Stop the server (and unmanage the non-persistent webhooks). */
  async stop(): Promise<void> {
    await this.#change(() => this.#stopServer());
  }

  #change(step: () => Promise<void>): Promise<void> {
    this.#changing = this.#changing.then(step).catch((error) => this.#context?.fail(error));
    return this.#changing;
  }

  async #startServer(): Promise<void> {
    if (this.#admission !== undefined) return;
    const context = this.#context!;
    const { registry, settings, memo, objects, indexers, logger, metrics } = this.#parts;
    const discovery = this.#client.discovery;
    // Loaded with the first server: an operator without admission handlers never loads it.
    const { startAdmission } = await outsideContexts(() => import("../../engines/admission.ts"));
    // The groups the handlers name, as the observation discovers them (the same documents).
    const groups = discoveredGroups(this.#parts.matcher);
    const running = await startAdmission({
      api: this.#client.api,
      registry,
      settings,
      resources: await (groups === undefined
        ? discovery.resources(context.signal)
        : discovery.resourcesIn(groups, context.signal)),
      memo,
      memories: objects,
      indices: indexers?.indices,
      logger,
      metrics,
    });
    this.#admission = running;
    running.failed.catch(context.fail);
  }

  async #stopServer(): Promise<void> {
    const running = this.#admission;
    this.#admission = undefined;
    await running?.stop();
  }
}
