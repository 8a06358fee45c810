/**
 * The examples under simulation (see tests/simulation/example_scenarios.ts): each passes
 * its scenario under the default faults with no false alarm, what lasts in the cluster
 * checked; and without crashes, what its handlers' Events tell as well.
 */
import { assertEquals } from "../../assert.ts";
import { simulate } from "../../../src/testing/mod.ts";
import { EXAMPLE_SCENARIOS } from "../../simulation/example_scenarios.ts";
import { failuresOf, optionsOf } from "./scenario_modules.ts";

/** Seeds per example and run: the examples are many, and each seed meets every fault. */
const SEEDS = 4;

for (const [folder, example] of Object.entries(EXAMPLE_SCENARIOS)) {
  Deno.test(`examples/${folder} passes its scenario under the default faults`, async () => {
    const report = await simulate(optionsOf(example, { seeds: SEEDS }));
    assertEquals(failuresOf(report), []);
  });
  if (example.eventInvariants === undefined) continue;
  Deno.test(`examples/${folder} without crashes: its Events tell what it did`, async () => {
    const invariants = [...(example.invariants ?? []), ...example.eventInvariants!];
    const report = await simulate(
      optionsOf(example, { seeds: SEEDS, firstSeed: 101, invariants, faults: { crashes: false } }),
    );
    assertEquals(failuresOf(report), []);
  });
}

Deno.test("seed 1 of examples/15-timers: an idle wait rounded to 0 s no longer spins", async () => {
  // The timer's quiet period was computed twice; rounding left it running yet 0 s long,
  // and the timer slept 0 s again and again: the simulation stopped with a stall.
  const example = EXAMPLE_SCENARIOS["15-timers"];
  const report = await simulate(optionsOf(example, { seed: 1 }));
  assertEquals(failuresOf(report), []);
});
