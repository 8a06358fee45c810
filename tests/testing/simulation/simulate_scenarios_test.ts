/**
 * The reactor's own scenarios (tests/simulation/scenarios/), each under its `ciSeeds`
 * with its faults: every invariant holds, the scenario's own and the built-in ones.
 */
import { assertEquals } from "../../assert.ts";
import { simulate } from "../../../src/testing/mod.ts";
import { failuresOf, optionsOf, type ScenarioModule } from "./scenario_modules.ts";

const SCENARIOS = new URL("../../simulation/scenarios/", import.meta.url);

const names = [...Deno.readDirSync(SCENARIOS)]
  .filter((entry) => entry.isFile && entry.name.endsWith(".ts"))
  .map((entry) => entry.name)
  .sort();

for (const name of names) {
  Deno.test(`scenario ${name}: every invariant holds under its CI seeds`, async () => {
    const module = await import(new URL(name, SCENARIOS).href) as ScenarioModule;
    const report = await simulate(optionsOf(module));
    assertEquals(failuresOf(report), []);
    assertEquals(report.runs, module.ciSeeds ?? 1);
  });
}

Deno.test("the scenarios are all there", () => {
  for (
    const name of ["creation", "deletion", "selection_leaving", "children", "daemons_timers"]
  ) {
    assertEquals(names.includes(`${name}.ts`), true, name);
  }
  assertEquals(names.includes("updates.ts"), true);
  assertEquals(names.includes("leadership.ts"), true);
});

Deno.test({
  name: "seed 25 of the creation scenario: a crash between the status and the object loses a label",
  // The known defect of tests/simulation/scenarios/creation.ts, not fixed yet.
  ignore: true,
  fn: async () => {
    const creation = await import(new URL("creation.ts", SCENARIOS).href) as ScenarioModule;
    assertEquals(failuresOf(await simulate(optionsOf(creation, { seed: 25 }))), []);
  },
});
