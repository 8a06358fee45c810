/**
 * How the replicas of an operator share the work (`settings.leadership`): the Leases of
 * leader election or sharding, made from the settings, and what the rest of the reactor
 * does when this replica gains or loses objects — refeed them when gained; when lost, let
 * the running processing and the daemons and timers of those objects end before the
 * Leases may pass to another replica.
 *
 * @module
 */
import type { Clock } from "../structs/clock.ts";
import type { Logger } from "../structs/loggers.ts";
import type { LeadershipSettings } from "../settings/operator_settings.ts";
import type { ApiClient } from "../client/api.ts";
import { LeaseLock } from "../engines/leases.ts";
import {
  type Coordination,
  type CoordinationHooks,
  LeaderElector,
} from "../engines/leader_election.ts";
import { ShardCoordinator } from "../engines/sharding.ts";
import { detectOwnIdentity } from "../engines/peering.ts";

export type { Coordination, CoordinationHooks };

/** What the coordination is made of. */
export interface CoordinationOptions {
  /** The API client. */
  readonly api: ApiClient;
  /** `settings.leadership`. */
  readonly settings: LeadershipSettings;
  /** This replica's identity; a new one (as peering makes it) if omitted. */
  readonly identity?: string;
  /** Where to report. */
  readonly logger: Logger;
  /** The clock. */
  readonly clock: Clock;
  /** What to do when objects are gained or lost. */
  readonly hooks: CoordinationHooks;
}

/**
 * The coordination the settings ask for, not running yet; `undefined` without leader
 * election or sharding. The Leases' namespace is the settings', else the credentials'
 * (a pod's own), else `default`.
 */
export async function createCoordination(
  options: CoordinationOptions,
): Promise<Coordination | undefined> {
  const { api, settings, logger, clock, hooks } = options;
  if (!settings.enabled) return undefined;
  const namespace = settings.namespace ?? await api.defaultNamespace() ?? "default";
  const identity = options.identity ?? detectOwnIdentity();
  const timings = {
    leaseDuration: settings.leaseDuration,
    renewDeadline: settings.renewDeadline,
    retryPeriod: settings.retryPeriod,
  };
  if (settings.leaderElection) {
    logger.info(
      `Leader election: the Lease ${namespace}/${settings.name}, as ${identity}; on standby ` +
        "until it is acquired.",
    );
    const lock = new LeaseLock({
      api,
      namespace,
      name: settings.name,
      identity,
      leaseDuration: settings.leaseDuration,
      clock,
    });
    return new LeaderElector({ lock, timings, logger, clock, ...hooks });
  }
  logger.info(
    `Sharding: ${settings.shards} shards with the Leases ${namespace}/${settings.name}-shard-*, ` +
      `as ${identity}.`,
  );
  return new ShardCoordinator({
    api,
    namespace,
    name: settings.name,
    identity,
    shards: settings.shards,
    timings,
    logger,
    clock,
    ...hooks,
  });
}
