/**
 * Defects found by the simulation, each pinned by its seed: a discovery whose
 * group-version document met 429s beyond its retry skipped that group for good — the
 * operator served no ConfigMaps ever after. It discovers again until it has them all.
 */
import { assertEquals } from "../../assert.ts";
import { kopf } from "../../../mod.ts";
import { simulate, type Simulation } from "../../../src/testing/mod.ts";

function labeller(): kopf.OperatorRegistry {
  const registry = new kopf.OperatorRegistry();
  kopf.on.create("configmaps", { registry, id: "mark" }, ({ patch }) => {
    patch.metadata.labels = { done: "yes" };
  });
  return registry;
}

async function createSome(sim: Simulation): Promise<void> {
  for (let i = 0; i < 5; i++) {
    sim.cluster.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `c${i}`, namespace: "default" },
    });
    await sim.sleep(5);
  }
  await sim.sleep(60);
}

function allMarked(sim: Simulation): string | undefined {
  const left = sim.cluster.list("configmaps", { namespace: "default" })
    .filter((c) => c.metadata?.name?.startsWith("c") && c.metadata?.labels?.done !== "yes");
  return left.length ? `not marked: ${left.map((c) => c.metadata?.name).join(", ")}` : undefined;
}

const SEEDS = 20;

const THROTTLED = {
  crashes: false,
  restarts: false,
  takeovers: false,
  tokenExpiry: false,
  watchTimeouts: false,
  watchDrops: false,
  bookmarks: false,
  expiredResumes: false,
  pagedLists: false,
  watchLag: false,
  conflicts: false,
  lostReplies: false,
  errors: 15, // a 429 or 5xx for a third of the requests
} as const;

Deno.test("a group-version skipped by a throttled discovery is discovered again (seeds 11, 12, 18 and 20 found it)", async () => {
  const report = await simulate({
    operator: labeller,
    seeds: SEEDS,
    settle: 120,
    faults: THROTTLED,
    scenario: createSome,
    invariants: [allMarked],
  });
  assertEquals(report.failures.map((f) => `${f.seed}: ${f.invariant}: ${f.message}`), []);
});
