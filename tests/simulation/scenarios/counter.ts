/**
 * A shared counter: each counted ConfigMap's create handler adds it to one counter
 * ConfigMap with a client of its own, reading and writing the counter with its
 * resourceVersion and retrying on 409. Ten objects come in bursts, so that handlers race.
 * The counter must end at the number of objects created: no count lost, none doubled.
 */
import type { RawBody } from "../../../mod.ts";
import type { Simulation } from "../../../src/testing/mod.ts";
import { COUNTED_LABELS, COUNTER } from "../operators/counting.ts";

export const operator = "tests/simulation/operators/counter_versioned.ts";

/** How many objects are counted. */
export const OBJECTS = 10;

export const resources: readonly RawBody[] = [
  { apiVersion: "v1", kind: "ConfigMap", metadata: { ...COUNTER }, data: { count: "0" } },
];

export async function scenario(sim: Simulation): Promise<void> {
  for (let i = 0; i < OBJECTS; i++) {
    sim.cluster.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `counted-${i}`, namespace: "default", labels: { ...COUNTED_LABELS } },
    });
    // Bursts: most objects come together, some a little apart.
    if (sim.random() < 0.3) await sim.sleep(sim.random() * 2);
  }
  await sim.sleep(60);
}

export const invariants = [
  function counterEqualsObjectsCreated(sim: Simulation): string | undefined {
    const created = sim.cluster.list("configmaps", { namespace: "default" })
      .filter((c) => c.metadata?.labels?.counted === COUNTED_LABELS.counted).length;
    const counter = sim.cluster.get("configmaps", COUNTER.name, { namespace: COUNTER.namespace });
    const count = (counter?.data as Record<string, string> | undefined)?.count;
    return count === String(created)
      ? undefined
      : `the counter is ${count}, but ${created} objects were created`;
  },
];

export const ciSeeds = 20;
