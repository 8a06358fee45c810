/**
 * Creation with several handlers: ConfigMaps created a few at a time, each of which both
 * create handlers must label — under crashes, restarts, conflicts and lost replies.
 */
import type { Simulation } from "../../../src/testing/mod.ts";

export const operator = "tests/simulation/operators/labelling.ts";

export const ciSeeds = 20;

const OBJECTS = 8;

export async function scenario(sim: Simulation): Promise<void> {
  for (let i = 0; i < OBJECTS; i++) {
    sim.cluster.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `labelled-${i}`, namespace: "default", labels: { app: "labelled" } },
    });
    await sim.sleep(sim.random() * 5);
  }
  await sim.sleep(60);
}

export const invariants = [
  function bothLabelled(sim: Simulation): string | undefined {
    const missing = sim.cluster.list("configmaps", { namespace: "default" })
      .filter((c) => c.metadata?.labels?.app === "labelled")
      .filter((c) => c.metadata?.labels?.first !== "done" || c.metadata?.labels?.second !== "done")
      .map((c) => c.metadata?.name);
    return missing.length ? `not labelled by both handlers: ${missing.join(", ")}` : undefined;
  },
];
