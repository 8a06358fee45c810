/**
 * Peering as a runnable: joined before the objects are watched, so that a paused operator
 * never starts handling them. Without a peering object, with `standalone`, or with replicas
 * coordinated by Leases (they would be peers of one priority, and all pause), the operator
 * runs alone. The peering's changes are announced as `paused` and `resumed`; the state at
 * the start is announced too, and runnables started later read {@link PeeringRunnable.paused}.
 *
 * @module
 */

import { runWithRequestPriority } from "../../client/request_priorities.ts";
import type { Peering } from "../../engines/peering.ts";
import type { OperatorParts } from "../operator_parts.ts";
import type { RunContext, Runnable } from "../manager.ts";
import type { ClientRunnable } from "./client_runnable.ts";
import { outsideContexts } from "../../platform/async_context.ts";

/** The operator's part in a peering, if any; see the module docs. */
export class PeeringRunnable implements Runnable {
  readonly name = "peering";
  readonly after: readonly Runnable[];
  readonly #parts: OperatorParts;
  readonly #client: ClientRunnable;
  #peering: Peering | undefined;
  #announcing: Promise<void> | undefined;

  /** The peering of the operator, through the client. */
  constructor(parts: OperatorParts, client: ClientRunnable) {
    this.#parts = parts;
    this.#client = client;
    this.after = [client];
  }

  /** Whether a peer pauses the operator now. */
  get paused(): boolean {
    return this.#peering?.paused ?? false;
  }

  /** Join the peering (or decide to run alone), and announce its state and its changes. */
  async start(context: RunContext): Promise<void> {
    const { settings, logger, clock } = this.#parts;
    const alone = settings.peering.standalone || settings.leadership.enabled;
    // Loaded only to peer: an operator alone never loads the peering's engine.
    const engine = alone
      ? undefined
      : await outsideContexts(() => import("../../engines/peering.ts"));
    // The peering resources' groups only, not every group the cluster serves.
    const groups = engine?.PEERING_GROUPS.map((group) => ({ group })) ?? [];
    const resources = alone ? [] : await this.#client.discovery.resourcesIn(groups, context.signal);
    // Exempt from the client's limit, as leader election: its keep-alives must not wait
    // behind handlers' requests (the peering's tasks begun here keep the priority).
    const peering = this.#peering = engine === undefined ? undefined : await runWithRequestPriority(
      "exempt",
      () =>
        engine.startPeering({
          api: this.#client.api,
          resources,
          settings: settings.peering,
          namespaces: this.#parts.scope,
          logger,
          clock,
          signal: context.signal,
          fail: (error) => context.fail(error),
        }),
    );
    // Announced also when alone (never paused), so that the gauge says so from the start.
    let paused = peering?.paused ?? false;
    await context.announce({ type: paused ? "paused" : "resumed" });
    if (peering === undefined) return;
    this.#announcing = (async () => {
      for await (const now of peering.changes) {
        if (now === paused) continue;
        paused = now;
        await context.announce({ type: paused ? "paused" : "resumed" });
      }
    })();
  }

  /** Leave the peering: the own record is removed, so that others need not wait for it. */
  async stop(): Promise<void> {
    await runWithRequestPriority("exempt", () => this.#peering?.stop());
    await this.#announcing;
  }
}
