/**
 * Deletion with finalizers: objects are created, then deleted — some at once (before the
 * operator has seen them, or while their creation is handled), some later. Every object
 * the operator's finalizer held when it was deleted is gone with its deletion handled (its
 * tombstone written); none is stuck; no object that still exists has a tombstone.
 */
import type { Simulation } from "../../../src/testing/mod.ts";
import { CRD, finalized, KEX, kopfExample } from "../kopf_examples.ts";
import { tombstoneOf } from "../operators/tombstones.ts";

export const operator = "tests/simulation/operators/deletion.ts";

export const resources = [CRD];

/** The objects deleted while the finalizer held them (this seed's run). */
const held = new Set<string>();
/** The objects deleted at all (this seed's run). */
const deleted = new Set<string>();

function remove(sim: Simulation, name: string): void {
  const left = sim.cluster.delete(KEX, name, { namespace: "default" });
  deleted.add(name);
  if (finalized(left)) held.add(name);
}

export async function scenario(sim: Simulation): Promise<void> {
  held.clear();
  deleted.clear();
  for (let i = 0; i < 12; i++) {
    const name = `doomed-${i}`;
    sim.cluster.create(kopfExample(name));
    // A third at once, a third while their creation is handled, the rest later or never.
    if (i % 3 === 0) remove(sim, name);
    else if (i % 3 === 1) {
      await sim.sleep(1 + sim.random() * 3);
      remove(sim, name);
    }
    await sim.sleep(sim.random());
  }
  await sim.sleep(30);
  for (let i = 2; i < 12; i += 6) remove(sim, `doomed-${i}`);
  await sim.sleep(30);
}

export const invariants = [
  function deletionsHandled(sim: Simulation): string | undefined {
    const configmaps = sim.cluster.list("configmaps", { namespace: "default" });
    const tombstones = new Set(configmaps.map((c) => c.metadata?.name));
    const problems: string[] = [];
    for (const name of deleted) {
      if (sim.cluster.get(KEX, name, { namespace: "default" })) problems.push(`${name} exists`);
    }
    for (const name of held) {
      if (!tombstones.has(tombstoneOf(name))) problems.push(`${name} went unhandled`);
    }
    for (const kex of sim.cluster.list(KEX, { namespace: "default" })) {
      const name = String(kex.metadata?.name);
      if (tombstones.has(tombstoneOf(name))) problems.push(`${name} exists with a tombstone`);
      if (!finalized(kex)) problems.push(`${name} has no finalizer`);
    }
    return problems.length ? problems.join("; ") : undefined;
  },
];

export const ciSeeds = 20;
