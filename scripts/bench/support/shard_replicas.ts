/**
 * The replicas of the sharding benchmarks (`shards`, and the shards part of
 * `big_clusters`): `kopf run --shards N` processes of `shard_operator.ts` on one fake
 * cluster, `replica-0`, `replica-1`, … by their `POD_ID`; and whether each holds a shard.
 */
import type { FakeCluster } from "../../../src/testing/mod.ts";
import { recordOf } from "../../../src/engines/leases.ts";
import { ChildProcess } from "./process.ts";

const ROOT = new URL("../../../", import.meta.url);
const MAIN = new URL("src/cli/main.ts", ROOT).pathname;
const OPERATOR = new URL("scripts/bench/support/shard_operator.ts", ROOT).pathname;
const LEASE = { apiVersion: "coordination.k8s.io/v1", kind: "Lease" };

/** The `POD_ID` of the i-th replica: what the objects' `status.create.by` names. */
export function replicaName(i: number): string {
  return `replica-${i}`;
}

/**
 * Start one replica per shard in the namespace `default`, logging in with the kubeconfig;
 * a single one runs without Leases.
 */
export function startShardReplicas(kubeconfig: string, shards: number): ChildProcess[] {
  const flags = shards > 1 ? ["--shards", String(shards), "--leader-election-id", "bench"] : [];
  return Array.from({ length: shards }, (_, i) =>
    new ChildProcess(
      [MAIN, "run", "-n", "default", "--standalone", "--kubeconfig", kubeconfig, "-q"]
        .concat(flags, [OPERATOR]),
      { env: { POD_ID: replicaName(i) } },
    ));
}

/** Whether every shard's Lease is held, each by a replica of its own. */
export function shardsHeld(cluster: FakeCluster, shards: number): boolean {
  const holders = new Set(
    Array.from({ length: shards }, (_, i) => cluster.get(LEASE, `bench-shard-${i}`))
      .map((lease) => lease === undefined ? "" : recordOf(lease).holderIdentity),
  );
  return holders.size === shards && !holders.has("");
}
