/**
 * How the replicas of an operator share the work (`settings.leadership`) as a runnable: the
 * Leases of leader election or sharding, made from the settings. It announces `standby`
 * when it starts (nothing is handled until Leases are gained), `gained` when Leases are
 * gained, and `losing` when objects stop being this replica's; the reactions to `losing`
 * (the processing and the daemons of those objects end) are awaited, up to the Leases'
 * deadline, before the Leases may pass to another replica. The Leases are renewed until
 * the very end of the operator's stop and then released: the work of a stopping replica
 * finishes and is stored under its Leases.
 *
 * @module
 */

import { runWithRequestPriority } from "../../client/request_priorities.ts";
import { settlesWithin } from "../../structs/clock.ts";
import type { RawBody } from "../../structs/bodies.ts";
import type { Coordination, Handover, Ownership } from "../../engines/leader_election.ts";
import { createCoordination } from "../../engines/coordinations.ts";
import type { OperatorParts } from "../operator_parts.ts";
import type { RunContext, Runnable } from "../manager.ts";
import type { ClientRunnable } from "./client_runnable.ts";

/** The replicas' coordination, if the settings ask for one; see the module docs. */
export class CoordinationRunnable implements Runnable, Ownership {
  readonly name = "coordination";
  readonly after: readonly Runnable[];
  readonly #parts: OperatorParts;
  readonly #client: ClientRunnable;
  readonly #leasing = new AbortController();
  #coordination: Coordination | undefined;
  #running: Promise<void> | undefined;
  #announcing: Promise<void> | undefined;

  /** The coordination of the operator, through the client. */
  constructor(parts: OperatorParts, client: ClientRunnable) {
    this.#parts = parts;
    this.#client = client;
    this.after = [client];
  }

  /** Whether replicas coordinate at all (then objects are handled only when owned). */
  get enabled(): boolean {
    return this.#coordination !== undefined;
  }

  /** Whether this replica handles the object now; all objects without a coordination. */
  owns(body: RawBody): boolean {
    return this.#coordination?.owns(body) ?? true;
  }

  /** The ownership to consult per object, or `undefined` when all objects are ours. */
  get ownership(): Ownership | undefined {
    return this.#coordination;
  }

  /** Create the coordination, announce the standby, and run it in the background. */
  async start(context: RunContext): Promise<void> {
    const { settings, logger, clock } = this.#parts;
    const coordination = this.#coordination = await createCoordination(
      this.#client.api,
      settings.leadership,
      logger,
      clock,
    );
    if (coordination === undefined) return;
    await context.announce({ type: "standby" });
    // Exempt from the client's limit: a renewal waiting behind handlers' requests could miss
    // its deadline, and the replica would let go of its objects.
    this.#running = runWithRequestPriority("exempt", () => coordination.run(this.#leasing.signal))
      .catch(context.fail);
    this.#announcing = (async () => {
      for await (const change of coordination.changes) {
        if (change.type === "gained") await context.announce({ type: "gained" });
        else await this.#letGo(change.handover, context);
      }
    })();
  }

  /** Objects are lost: everyone lets them go (until the deadline), then the Lease may pass. */
  async #letGo(handover: Handover, context: RunContext): Promise<void> {
    const { logger, clock } = this.#parts;
    const active = this.#coordination?.active ?? false;
    const done = context.announce({ type: "losing", deadline: handover.deadline, active });
    if (!await settlesWithin(done, handover.deadline - clock.now(), clock)) {
      logger.error(
        "The handling of objects that stopped being this replica's did not finish in " +
          "time; another replica may handle them meanwhile.",
      );
    }
    handover.complete();
  }

  /** Stop renewing, and give the Leases back: the last of the operator's work is stored. */
  async stop(): Promise<void> {
    this.#leasing.abort();
    await this.#running;
    await runWithRequestPriority("exempt", () => this.#coordination?.release());
    await this.#announcing;
  }
}
