/**
 * The scenario modules of tests/simulation/scenarios/ as `simulate()` options: the contract
 * is `kopf simulate`'s (src/cli/scenario_modules.ts), with `operator` a path from the
 * repository's root (or a registry, or its maker) and `ciSeeds` how many seeds CI runs.
 */
import type { ScenarioModule } from "../../../src/cli/scenario_modules.ts";
import type { SimulationOptions } from "../../../src/testing/mod.ts";

export type { ScenarioModule };

const ROOT = new URL("../../../", import.meta.url);

/** The options of `simulate()` for a scenario module, with the test's own on top. */
export function optionsOf(
  module: ScenarioModule,
  overrides: Partial<SimulationOptions> = {},
): SimulationOptions {
  const { operator, ciSeeds, ...options } = module;
  if (operator === undefined) throw new Error("the scenario module names no operator");
  return {
    ...options,
    operator: typeof operator === "string" ? new URL(operator, ROOT).href : operator,
    ...(overrides.seed === undefined ? { seeds: ciSeeds ?? 1 } : {}),
    ...overrides,
  };
}

/** The failures of a report as one line each, for an assertion's message. */
export function failuresOf(
  report: { failures: readonly { seed: number; invariant: string; message: string }[] },
): string[] {
  return report.failures.map((f) => `seed ${f.seed}: ${f.invariant}: ${f.message}`);
}
