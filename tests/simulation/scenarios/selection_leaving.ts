/**
 * Selection leaving: ConfigMaps selected by `app: demo` get the operator's finalizer; some
 * then lose the label (they leave the selection: `DELETED` on the watch, the object still
 * there), some of those are deleted afterwards, some selected ones are deleted. Left
 * objects keep no finalizer and get no deletion handled; deleted selected ones are gone,
 * their deletion handled if our finalizer held them; nothing is stuck.
 *
 * Without crashes and restarts: an object that leaves while no operator runs is never
 * seen again by a watch that selects by the label, and keeps the finalizer for ever (a
 * known defect; the selection-leaving test shows it with its seed).
 */
import type { Simulation } from "../../../src/testing/mod.ts";
import { finalized } from "../kopf_examples.ts";
import { DEMO } from "../operators/leaving.ts";
import { tombstoneOf } from "../operators/tombstones.ts";

export const operator = "tests/simulation/operators/leaving.ts";

type Fate = "stays" | "leaves" | "leaves, then deleted" | "deleted";
const FATES: readonly Fate[] = ["stays", "leaves", "leaves, then deleted", "deleted"];

/** What happened to each object (this seed's run). */
const fates = new Map<string, Fate>();
/** The selected objects deleted while our finalizer held them (this seed's run). */
const held = new Set<string>();

export async function scenario(sim: Simulation): Promise<void> {
  fates.clear();
  held.clear();
  const names = Array.from({ length: 12 }, (_, i) => `demo-${i}`);
  for (const name of names) {
    sim.cluster.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name, namespace: "default", labels: { ...DEMO } },
    });
    fates.set(name, FATES[names.indexOf(name) % FATES.length]);
    await sim.sleep(sim.random());
  }
  // Some leave while their creation may still be handled, some much later.
  for (const name of names) {
    await sim.sleep(sim.random() * 5);
    const fate = fates.get(name)!;
    if (fate.startsWith("leaves")) {
      sim.cluster.patch("configmaps", name, { metadata: { labels: { app: null } } });
    } else if (fate === "deleted" && finalized(sim.cluster.delete("configmaps", name))) {
      held.add(name);
    }
  }
  await sim.sleep(60);
  for (const [name, fate] of fates) {
    if (fate === "leaves, then deleted") sim.cluster.delete("configmaps", name);
  }
  await sim.sleep(30);
}

export const invariants = [
  function leftObjectsLetGo(sim: Simulation): string | undefined {
    const configmaps = sim.cluster.list("configmaps", { namespace: "default" });
    const tombstones = new Set(configmaps.map((c) => c.metadata?.name));
    const problems: string[] = [];
    for (const [name, fate] of fates) {
      const object = sim.cluster.get("configmaps", name);
      const handled = tombstones.has(tombstoneOf(name));
      if (fate === "stays" && !finalized(object)) problems.push(`${name} (stays): no finalizer`);
      if (fate === "leaves" && finalized(object)) problems.push(`${name} (left): finalizer kept`);
      if (fate !== "stays" && fate !== "leaves" && object) {
        problems.push(`${name} (${fate}) exists`);
      }
      if (held.has(name) && !handled) problems.push(`${name} (deleted): deletion unhandled`);
      if (fate.startsWith("leaves") && handled) problems.push(`${name} (left): deletion handled`);
    }
    return problems.length ? problems.join("; ") : undefined;
  },
];

export const faults = { crashes: false, restarts: false };

export const ciSeeds = 20;
