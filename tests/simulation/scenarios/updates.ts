/**
 * Update handlers: each object's spec is patched several times in quick succession (less
 * than the handlers take to run and store), some while the object is still being created.
 * The handlers must have seen each object's last spec (also the built-in invariant), and
 * written what they saw.
 */
import type { Simulation } from "../../../src/testing/mod.ts";
import { CRD, KEX, kopfExample } from "../kopf_examples.ts";

export const operator = "tests/simulation/operators/updates.ts";

export const resources = [CRD];

export async function scenario(sim: Simulation): Promise<void> {
  const names = Array.from({ length: 6 }, (_, i) => `updated-${i}`);
  for (const name of names) sim.cluster.create(kopfExample(name, { field: "v0" }));
  for (let round = 1; round <= 5; round++) {
    for (const name of names) {
      if (sim.random() < 0.7) sim.cluster.patch(KEX, name, { spec: { field: `v${round}` } });
      await sim.sleep(sim.random() * 0.2);
    }
    await sim.sleep(sim.random() * 3);
  }
  await sim.sleep(30);
}

export const invariants = [
  function lastSpecSeen(sim: Simulation): string | undefined {
    const behind = sim.cluster.list(KEX, { namespace: "default" }).flatMap((kex) => {
      const field = (kex.spec as { field?: string }).field;
      const seen = (kex.status as { seen?: string } | undefined)?.seen;
      return seen === field ? [] : [`${kex.metadata?.name}: saw ${seen}, not ${field}`];
    });
    return behind.length ? behind.join("; ") : undefined;
  },
];

export const ciSeeds = 20;
