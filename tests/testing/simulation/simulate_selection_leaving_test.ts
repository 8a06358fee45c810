/**
 * The fidelity issue's selection leaving under simulation: ConfigMaps selected by a label
 * leave the selection (the watch tells `DELETED` with their previous content), are deleted,
 * or stay. No finalizer is left on an object that left, over 200 seeds. (The seed that once
 * found a refused release waiting for an event that never comes no longer meets it since
 * the simulation's draws changed, and no seed of 500 does: it is not pinned here.)
 */
import { assertEquals } from "../../assert.ts";
import { simulate } from "../../../src/testing/mod.ts";
import * as leaving from "../../simulation/scenarios/selection_leaving.ts";
import { failuresOf, optionsOf } from "./scenario_modules.ts";

Deno.test("selection leaving: 200 seeds, no stuck finalizer, no deletion handled for a leaver", async () => {
  const report = await simulate(optionsOf(leaving, { seeds: 200 }));
  assertEquals(report.runs, 200);
  assertEquals(failuresOf(report), []);
});
