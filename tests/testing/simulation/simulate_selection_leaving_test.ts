/**
 * The fidelity issue's selection leaving under simulation: ConfigMaps selected by a label
 * leave the selection (the watch tells `DELETED` with their previous content), are deleted,
 * or stay. No finalizer is left on an object that left, over 200 seeds; and the seed that
 * found a refused release waiting for an event that never comes replays fixed.
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

Deno.test("seed 21: a release refused because another writer came first is tried again", async () => {
  // The object left, was read, and its finalizer's guarded release met a write of another
  // client (422): the operator waited for the next event, which a selective watch never
  // brings, and the finalizer stayed for ever.
  const report = await simulate(optionsOf(leaving, { seed: 21 }));
  assertEquals(failuresOf(report), []);
});
