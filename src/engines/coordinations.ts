/**
 * The coordination of replicas that `settings.leadership` asks for: leader election over
 * one Lease, or sharding over one Lease per shard, made and named from the settings.
 *
 * @module
 */

import type { Clock } from "../structs/clock.ts";
import type { Logger } from "../structs/loggers.ts";
import type { ApiClient } from "../client/api.ts";
import type { LeadershipSettings } from "../settings/cluster_settings.ts";
import type { Coordination } from "./leader_election.ts";
import { outsideContexts } from "../platform/async_context.ts";

/**
 * The coordination the settings ask for, not running yet; `undefined` without leader
 * election or sharding. The Leases' namespace is the settings', else the credentials'
 * (a pod's own), else `default`.
 */
export async function createCoordination(
  api: ApiClient,
  settings: LeadershipSettings,
  logger: Logger,
  clock: Clock,
): Promise<Coordination | undefined> {
  if (!settings.enabled) return undefined;
  const namespace = settings.namespace ?? await api.defaultNamespace() ?? "default";
  // Loaded with the coordination: without it, the peers' records are never read.
  const { detectOwnIdentity } = await outsideContexts(() => import("./peer_records.ts"));
  const identity = detectOwnIdentity();
  const timings = {
    leaseDuration: settings.leaseDuration,
    renewDeadline: settings.renewDeadline,
    retryPeriod: settings.retryPeriod,
  };
  // Each kind loads when asked for: an operator of one replica never loads either.
  if (settings.leaderElection) {
    const [{ LeaseLock }, { LeaderElector }] = await outsideContexts(() =>
      Promise.all([import("./leases.ts"), import("./leader_election.ts")])
    );
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
    return new LeaderElector({ lock, timings, logger, clock });
  }
  const { ShardCoordinator } = await outsideContexts(() => import("./sharding.ts"));
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
  });
}
