/**
 * Sharding with real processes: three replicas split 3,000 objects in six shards; one
 * replica is killed with SIGKILL mid-run. Every creation and every later change is
 * handled; no two runs for one object overlap; the dead replica's shards pass to the
 * survivors once its Leases expire, and they handle its objects from then on.
 */
import { assert, assertEquals } from "../assert.ts";
import type { RawBody } from "../../mod.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { assignShards, shardOf } from "../../src/engines/sharding.ts";
import {
  holderOf,
  installCrd,
  KIND,
  overlappingRuns,
  type Replica,
  startReplica,
  until,
} from "./replicas.ts";

const SHARDS = 6;
const OBJECTS = Number(Deno.env.get("SHARDING_TEST_OBJECTS") ?? 3000);
const ID = "sharding-test";
const ENV = { REPLICA_TIMINGS: "4,3,0.5", REPLICA_HANDLER_MS: "5" };
const FLAGS = ["-n", "default", "--shards", String(SHARDS), "--leader-election-id", ID];
const NAMES = ["replica-0", "replica-1", "replica-2"];

function field(body: RawBody | undefined, handler: string): string | undefined {
  const status = body?.status as Record<string, { by?: string }> | undefined;
  return status?.[handler]?.by;
}

Deno.test({
  name:
    "sharding: three replicas, 3,000 objects, one killed mid-run; all handled, none twice at once",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await using cluster = await FakeCluster.start();
    await installCrd(cluster);
    const kubeconfig = await cluster.writeKubeconfig();
    const replicas: Replica[] = NAMES.map((name) => startReplica(name, kubeconfig, FLAGS, ENV));
    try {
      // The shards settle as every replica computes them for the three members.
      const planned = assignShards(SHARDS, NAMES);
      await until("the shards held as planned", () => {
        return planned.every((owner, shard) => holderOf(cluster, `${ID}-shard-${shard}`) === owner);
      }, 60);
      const dying = replicas[1];
      const deadShards = planned.flatMap((owner, shard) => owner === dying.name ? [shard] : []);
      assert(deadShards.length === SHARDS / NAMES.length);

      const names = Array.from({ length: OBJECTS }, (_, i) => `obj-${i}`);
      for (const name of names) {
        cluster.create({ ...KIND, metadata: { name, namespace: "default" }, spec: { value: 1 } });
      }
      const created = () => names.filter((name) => field(cluster.get(KIND, name), "create"));
      const all = (count: () => number) => () => count() === OBJECTS;
      await until(
        "a third of the objects handled",
        () => created().length >= OBJECTS / 3,
        120,
        250,
      );
      dying.kill("SIGKILL");
      const killedAt = dying.killedAt!;

      await until("every creation handled", all(() => created().length), 180, 1000);
      const survivors = NAMES.filter((name) => name !== dying.name);
      for (const shard of deadShards) {
        assert(survivors.includes(holderOf(cluster, `${ID}-shard-${shard}`)!), `shard ${shard}`);
      }

      // Every later change too.
      for (const name of names) {
        const body = cluster.get(KIND, name)!;
        cluster.replace({ ...body, spec: { value: 2 } });
      }
      const updated = () =>
        names.filter((name) => field(cluster.get(KIND, name), "update/spec.value"));
      await until("every change handled", all(() => updated().length), 180, 1000);

      assertEquals(overlappingRuns(replicas), []);
      assert(dying.runs.every((run) => run.start <= killedAt));
      const handledBy = new Map<string, Set<string>>();
      for (const replica of replicas) {
        for (const run of replica.runs) {
          const set = handledBy.get(run.object) ?? new Set();
          set.add(replica.name);
          handledBy.set(run.object, set);
        }
      }
      let takenOver = 0;
      for (const name of names) {
        const body = cluster.get(KIND, name)!;
        const shard = shardOf(body, SHARDS);
        const by = field(body, "update/spec.value")!;
        if (deadShards.includes(shard)) {
          // The dead replica's objects: the survivors took them, only after its death.
          assert(survivors.includes(by), `${name} (shard ${shard}) updated by ${by}`);
          for (const replica of replicas) {
            if (replica === dying) continue;
            for (const run of replica.runs.filter((r) => r.object === name)) {
              assert(run.start > killedAt, `${name} run by ${replica.name} before the kill`);
            }
          }
          takenOver++;
        } else {
          // The others' objects stay with their replica.
          assertEquals(by, planned[shard], `${name} (shard ${shard})`);
          assertEquals([...handledBy.get(name)!], [planned[shard]], name);
        }
      }
      assert(takenOver > OBJECTS / 6, `${takenOver} objects of the dead shards`);
      assert(dying.runs.length > 0, "the dying replica handled its share before");
    } catch (error) {
      for (const replica of replicas) {
        console.error(`--- ${replica.name}\n${replica.log.slice(-5000)}`);
      }
      throw error;
    } finally {
      for (const replica of replicas) await replica[Symbol.asyncDispose]();
    }
  },
});
