/**
 * Simulation: how fast `simulate()` runs an operator on virtual time, in one process.
 *
 * - **A day of timers**: 20 KopfExamples with a 60-second timer each, for 24 simulated
 *   hours in one seed (crashes and restarts off, every other fault on). Figures: the wall
 *   time, and the fewest and most runs of a timer (1,440 expected).
 * - **Many seeds**: 200 seeds of a 10-object, 10-minute scenario (the objects created, one
 *   patched and one deleted per minute, with a create, an update and a deletion handler),
 *   every fault on, and the default settling. Figure: the wall time.
 *
 *     deno task bench simulation
 */
import { parse as parseYaml } from "yaml";
import type { BenchFigure, BenchSection } from "./types.ts";
import { kopf, type RawBody } from "../../mod.ts";
import { simulate, type Simulation } from "../../src/testing/mod.ts";

const CRD = parseYaml(
  await Deno.readTextFile(new URL("../../examples/crd.yaml", import.meta.url)),
) as RawBody;

function kopfExample(name: string): RawBody {
  return {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name, namespace: "default" },
    spec: { field: "a" },
  };
}

async function dayOfTimers(): Promise<BenchFigure[]> {
  const registry = new kopf.OperatorRegistry();
  const runs = new Map<string, number>();
  kopf.timer("kopfexamples", { registry, interval: 60 }, function minutely({ name }) {
    runs.set(name, (runs.get(name) ?? 0) + 1);
  });
  const started = performance.now();
  const report = await simulate({
    operator: registry,
    resources: [CRD],
    seed: 1,
    faults: { crashes: false, restarts: false },
    settle: 0,
    scenario: async (sim) => {
      for (let i = 0; i < 20; i++) sim.cluster.create(kopfExample(`timed-${i}`));
      await sim.sleep(24 * 3600);
    },
  });
  const seconds = (performance.now() - started) / 1000;
  const counts = [...runs.values()];
  return [
    {
      name: "20 timers × 24 simulated hours, 1 seed: wall time",
      value: `${seconds.toFixed(1)} s`,
      target: "< 60 s",
      ok: seconds < 60 && report.failures.length === 0,
    },
    {
      name: "runs of a timer (1,440 expected)",
      value: `${Math.min(...counts)}–${Math.max(...counts)} over ${counts.length} timers`,
    },
  ];
}

async function tenMinutes(sim: Simulation): Promise<void> {
  for (let i = 0; i < 10; i++) sim.cluster.create(kopfExample(`object-${i}`));
  for (let minute = 0; minute < 10; minute++) {
    await sim.sleep(60);
    const name = `object-${minute}`;
    if (minute % 2 === 0) {
      sim.cluster.patch("kopfexamples.kopf.dev", name, { spec: { field: "b" } });
    } else sim.cluster.delete("kopfexamples.kopf.dev", name, { namespace: "default" });
  }
}

async function manySeeds(): Promise<BenchFigure[]> {
  const registry = new kopf.OperatorRegistry();
  kopf.on.create("kopfexamples", { registry, id: "created" }, () => ({ done: true }));
  kopf.on.update("kopfexamples", { registry, id: "updated" }, () => ({ done: true }));
  kopf.on.delete("kopfexamples", { registry, id: "deleted" }, () => {});
  const started = performance.now();
  const report = await simulate({
    operator: registry,
    resources: [CRD],
    seeds: 200,
    scenario: tenMinutes,
  });
  const seconds = (performance.now() - started) / 1000;
  return [{
    name: "200 seeds × 10 objects × 10 simulated minutes: wall time",
    value: `${seconds.toFixed(1)} s (${report.failures.length} failing seeds)`,
    target: "< 300 s",
    ok: seconds < 300 && report.failures.length === 0,
  }];
}

export const section: BenchSection = {
  title: "Simulation on virtual time",
  async run() {
    return [...await dayOfTimers(), ...await manySeeds()];
  },
};
