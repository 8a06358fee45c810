/**
 * What the simulation's own tests run most: an operator that labels each new ConfigMap,
 * a scenario that creates some, and the invariant that all are labelled.
 */
import { kopf } from "../../../mod.ts";
import type { Simulation } from "../../../src/testing/mod.ts";

/** A registry whose create handler `mark` labels each ConfigMap `done: yes`. */
export function labeller(): kopf.OperatorRegistry {
  const registry = new kopf.OperatorRegistry();
  kopf.on.create("configmaps", { registry, id: "mark" }, ({ patch }) => {
    patch.metadata.labels = { done: "yes" };
  });
  return registry;
}

/** Create ConfigMaps `c0`, `c1`, … in `default`, `apart` seconds apart, then wait. */
export function createSome(count = 10, apart?: number, after = 120) {
  return async (sim: Simulation): Promise<void> => {
    for (let i = 0; i < count; i++) {
      sim.cluster.create({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: `c${i}`, namespace: "default" },
      });
      await sim.sleep(apart ?? sim.random() * 3);
    }
    await sim.sleep(after);
  };
}

/** The invariant: every ConfigMap `c…` is labelled. */
export function allMarked(sim: Simulation): string | undefined {
  const left = sim.cluster.list("configmaps", { namespace: "default" })
    .filter((c) => c.metadata?.name?.startsWith("c") && c.metadata?.labels?.done !== "yes");
  return left.length ? `not marked: ${left.map((c) => c.metadata?.name).join(", ")}` : undefined;
}
