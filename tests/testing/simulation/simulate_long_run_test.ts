/**
 * A day of simulated time in one seed: 20 objects with a 60-second timer each, the
 * operator never crashing nor restarted (a restart rightly runs a timer again at start),
 * every other fault on. Each timer runs 1,440 times, give or take 2%. How long it takes
 * is a benchmark's figure (`deno task bench simulation`), not asserted here.
 */
import { assert, assertEquals } from "../../assert.ts";
import { simulate } from "../../../src/testing/mod.ts";
import { CRD, kopfExample } from "../../simulation/kopf_examples.ts";
import { countedTimers } from "../../simulation/operators/timers.ts";

Deno.test("20 timers every 60 s for 24 simulated hours: each runs 1,440 times ± 2%", async () => {
  const { registry, runs } = countedTimers();
  const names = Array.from({ length: 20 }, (_, i) => `timed-${i}`);
  const report = await simulate({
    operator: registry,
    resources: [CRD],
    seed: 1,
    faults: { crashes: false, restarts: false },
    settle: 0,
    scenario: async (sim) => {
      for (const name of names) sim.cluster.create(kopfExample(name));
      await sim.sleep(24 * 3600);
    },
  });
  assertEquals(report.failures.map((f) => `${f.invariant}: ${f.message}`), []);
  assertEquals([...runs.keys()].sort(), [...names].sort());
  for (const [name, count] of runs) {
    assert(Math.abs(count - 1440) <= 1440 * 0.02, `${name}'s timer ran ${count} times`);
  }
});
