/**
 * Shrinking a failing seed: a lost-update race needs no fault at all (the latencies of
 * concurrent handlers are enough), and the shrunk run replays exactly with the faults it
 * suppressed.
 */
import { assert, assertEquals } from "../../assert.ts";
import { kopf } from "../../../mod.ts";
import { ApiClient, getObject, replaceObject, Vault } from "../../../src/client/mod.ts";
import { simulate, type Simulation } from "../../../src/testing/mod.ts";

const CONFIGMAPS = new kopf.Resource({
  group: "",
  version: "v1",
  plural: "configmaps",
  kind: "ConfigMap",
  namespaced: true,
});
const COUNTER = { name: "counter", namespace: "default" };

/** Handlers that count items in a shared ConfigMap, without a resourceVersion: a race. */
function racyCounter(): kopf.OperatorRegistry {
  const registry = new kopf.OperatorRegistry();
  let api: ApiClient | undefined;
  const client = () =>
    api ??= new ApiClient(
      new Vault({ relogin: async () => ({ own: await kopf.loginWithDefaults() }) }),
    );
  kopf.on.create("configmaps", {
    registry,
    id: "count",
    labels: { item: "yes" },
  }, async () => {
    const counter = await getObject(client(), CONFIGMAPS, COUNTER);
    const count = Number((counter.data as Record<string, string> | undefined)?.count ?? 0);
    const { resourceVersion: _, ...metadata } = counter.metadata ?? {};
    await replaceObject(client(), CONFIGMAPS, COUNTER, {
      ...counter,
      metadata,
      data: { count: String(count + 1) },
    });
  });
  return registry;
}

async function tenItems(sim: Simulation): Promise<void> {
  sim.cluster.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: COUNTER,
    data: { count: "0" },
  });
  for (let i = 0; i < 10; i++) {
    sim.cluster.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `item-${i}`, namespace: "default", labels: { item: "yes" } },
    });
    await sim.sleep(sim.random() * 2);
  }
  await sim.sleep(60);
}

function counted(sim: Simulation): string | undefined {
  const data = sim.cluster.get("configmaps", "counter")?.data as { count?: string } | undefined;
  return data?.count === "10" ? undefined : `the counter is ${data?.count}, not 10`;
}

Deno.test("a lost update is shrunk to the faults it needs, and the shrunk run replays", async () => {
  const options = {
    operator: racyCounter, // a fresh registry, and client, for each seed
    scenario: tenItems,
    settle: 60,
    invariants: [counted],
  };
  const report = await simulate({ ...options, seeds: 30, shrink: true, stopAtFailure: true });
  assertEquals(report.failures.length, 1, "the race shows within 30 seeds");
  const failure = report.failures[0];
  const shrunk = failure.shrunk!;
  assert(shrunk !== undefined);
  assert(!shrunk.needed.includes("crashes"), `needed: ${shrunk.needed.join(", ")}`);
  assert(shrunk.suppress.length > 5, `suppressed: ${shrunk.suppress.join(", ")}`);
  const replay = await simulate({ ...options, seed: failure.seed, suppress: shrunk.suppress });
  assertEquals(replay.failures[0]?.invariant, "counted");
  assertEquals(replay.failures[0].trace, shrunk.trace);
});
