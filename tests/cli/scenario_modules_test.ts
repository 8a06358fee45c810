/**
 * Scenario modules: named exports or a default export of simulate()'s options (named ones
 * win), helpers left alone, and one line naming the module and what to fix otherwise.
 */
import { assertEquals, assertRejects, assertThrows } from "../assert.ts";
import { loadScenarioModule, scenarioModuleOf } from "../../src/cli/scenario_modules.ts";
import { OperatorRegistry } from "../../src/intents/registry.ts";

const scenario = () => {};

Deno.test("named exports and a default export of options; named ones win", () => {
  const invariants = [() => undefined];
  const registry = new OperatorRegistry();
  assertEquals(
    scenarioModuleOf("s.ts", {
      scenario,
      settle: 30,
      helper: 1,
      default: { settle: 60, invariants, operator: registry, ciSeeds: 5 },
    }),
    { operator: registry, scenario, invariants, settle: 30, ciSeeds: 5 },
  );
  assertEquals(scenarioModuleOf("s.ts", { default: { scenario, faults: false } }), {
    scenario,
    faults: false,
  });
});

Deno.test("a module without a scenario or with wrong exports is refused naming it", () => {
  const cases: [Record<string, unknown>, string][] = [
    [{}, "The scenario s.ts: it exports no scenario; export `scenario`"],
    [{ scenario: "x" }, "it exports no scenario"],
    [{ scenario, invariants: [1] }, "its invariants must be an array of functions"],
    [{ scenario, invariants: () => {} }, "its invariants must be an array of functions"],
    [{ scenario, resources: ["x"] }, "its resources must be an array of objects"],
    [{ scenario, settle: -1 }, "its settle must be simulated seconds (0 or more), not -1."],
    [{ scenario, ciSeeds: 0.5 }, "its ciSeeds must be a whole number of 1 or more, not 0.5."],
    [
      { scenario, operator: 3 },
      "its operator must be a module path, an OperatorRegistry, or a function",
    ],
  ];
  for (const [exports, says] of cases) {
    assertThrows(() => scenarioModuleOf("s.ts", exports), Error, says);
  }
});

Deno.test("a scenario file that is not there, or does not load", async () => {
  await assertRejects(
    () => loadScenarioModule("absent.ts"),
    Error,
    "Cannot load the scenario absent.ts: no such file.",
  );
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/broken.ts`, 'throw new Error("no scenario today");\n');
    await assertRejects(() => loadScenarioModule(`${dir}/broken.ts`), Error, "no scenario today");
    await Deno.writeTextFile(`${dir}/good.ts`, "export const scenario = () => {};\n");
    assertEquals(Object.keys(await loadScenarioModule(`${dir}/good.ts`)), ["scenario"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
