/**
 * Sharding: replicas of one operator (child processes, `kopf run --shards N`) sharing the
 * objects of one fake cluster, with 1 (a single replica, no coordination), 2 and 3 shards
 * — one replica per shard. For each: objects handled per second from their creation, the
 * CPU of each replica, and the CPU per object (all replicas' CPU over all objects, and
 * each replica's over the objects it handled). Each replica still receives every object's
 * events (it indexes them, and skips those of other shards), so the CPU per handled
 * object shows what coordination costs; on a 2-core machine the wall time cannot scale
 * past two replicas, the CPU per object can.
 *
 *     deno task bench shards
 *     KOPF_BENCH_SHARDS_OBJECTS=10000 KOPF_BENCH_SHARDS=1,2,3,4 deno task bench shards
 */
import { parse as parseYaml } from "yaml";
import type { BenchFigure, BenchSection } from "./types.ts";
import type { RawBody } from "../../mod.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { cpuSeconds, now } from "./support/process.ts";
import { replicaName, shardsHeld, startShardReplicas } from "./support/shard_replicas.ts";

const ROOT = new URL("../../", import.meta.url);
const KIND = { apiVersion: "kopf.dev/v1", kind: "KopfExample" };
const OBJECTS = Number(Deno.env.get("KOPF_BENCH_SHARDS_OBJECTS") ?? 3000);
const COUNTS = (Deno.env.get("KOPF_BENCH_SHARDS") ?? "1,2,3").split(",").map(Number);

interface Row {
  shards: number;
  seconds: number;
  perReplicaCpu: number[];
  handled: number[];
}

async function until(check: () => boolean, seconds: number, what: string): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function measure(shards: number): Promise<Row> {
  await using cluster = await FakeCluster.start();
  const crd = parseYaml(await Deno.readTextFile(new URL("examples/crd.yaml", ROOT))) as RawBody;
  cluster.create(crd);
  const kubeconfig = await cluster.writeKubeconfig();
  const replicas = startShardReplicas(kubeconfig, shards);
  try {
    if (shards > 1) {
      await until(() => shardsHeld(cluster, shards), 60, "every replica to hold a shard");
    } else {
      await new Promise((resolve) => setTimeout(resolve, 2000)); // the replica's start-up
    }
    const cpuBefore = await Promise.all(replicas.map((r) => cpuSeconds(r.pid)));
    const started = now();
    for (let i = 0; i < OBJECTS; i++) {
      cluster.create({ ...KIND, metadata: { name: `obj-${i}`, namespace: "default" } });
      if (i % 100 === 99) await new Promise((resolve) => setTimeout(resolve, 0));
    }
    const handledBy = () => {
      const counts = new Map<string, number>();
      for (const body of cluster.list(KIND)) {
        const by = (body.status as { create?: { by?: string } } | undefined)?.create?.by;
        if (by !== undefined) counts.set(by, (counts.get(by) ?? 0) + 1);
      }
      return counts;
    };
    let counts = new Map<string, number>();
    await until(
      () => {
        counts = handledBy();
        return [...counts.values()].reduce((a, b) => a + b, 0) === OBJECTS;
      },
      600,
      "every object handled",
    );
    const seconds = (now() - started) / 1000;
    const cpuAfter = await Promise.all(replicas.map((r) => cpuSeconds(r.pid)));
    return {
      shards,
      seconds,
      perReplicaCpu: cpuAfter.map((after, i) => after - cpuBefore[i]),
      handled: replicas.map((_, i) => counts.get(replicaName(i)) ?? 0),
    };
  } finally {
    await Promise.all(replicas.map((r) => r.stop()));
  }
}

const rows: Row[] = [];

export const section: BenchSection = {
  title: `Sharding: ${OBJECTS} objects over 1, 2 and 3 replicas`,
  async run(): Promise<BenchFigure[]> {
    const figures: BenchFigure[] = [];
    for (const shards of COUNTS) {
      const row = await measure(shards);
      rows.push(row);
      const total = row.perReplicaCpu.reduce((a, b) => a + b, 0);
      figures.push({
        name: `${shards} shard(s), ${shards} replica(s)`,
        value: `${Math.round(OBJECTS / row.seconds)} objects/s; CPU ${
          (total * 1000 / OBJECTS).toFixed(2)
        } ms per object in all; per replica ${
          row.perReplicaCpu.map((cpu, i) =>
            `${cpu.toFixed(1)} s (${
              (cpu * 1000 / Math.max(1, row.handled[i])).toFixed(2)
            } ms per own object)`
          ).join(", ")
        }`,
      });
    }
    return figures;
  },
  footer(): string {
    const header =
      "| shards = replicas | objects/s | CPU per object, all replicas | CPU per replica | CPU per own object, per replica |\n|---|---|---|---|---|";
    const lines = rows.map((row) => {
      const total = row.perReplicaCpu.reduce((a, b) => a + b, 0);
      return `| ${row.shards} | ${Math.round(OBJECTS / row.seconds)} | ${
        (total * 1000 / OBJECTS).toFixed(2)
      } ms | ${row.perReplicaCpu.map((c) => `${c.toFixed(1)} s`).join(", ")} | ${
        row.perReplicaCpu.map((c, i) => `${(c * 1000 / Math.max(1, row.handled[i])).toFixed(2)} ms`)
          .join(", ")
      } |`;
    });
    return [header, ...lines].join("\n");
  },
};
