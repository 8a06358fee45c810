/**
 * The scenario modules of tests/simulation/scenarios/ as `simulate()` options: each exports
 * `operator` (a path from the repository's root, or a registry), `scenario`, and maybe
 * `invariants`, `resources`, `settle`, `faults` and `ciSeeds` (how many seeds CI runs).
 */
import type { OperatorRegistry } from "../../../src/intents/registry.ts";
import type {
  Invariant,
  Scenario,
  SimulationFaults,
  SimulationOptions,
} from "../../../src/testing/mod.ts";
import type { RawBody } from "../../../src/structs/bodies.ts";

/** What a scenario module exports. */
export interface ScenarioModule {
  readonly operator: string | OperatorRegistry;
  readonly scenario: Scenario;
  readonly invariants?: readonly Invariant[];
  readonly resources?: readonly RawBody[];
  readonly settle?: number;
  readonly faults?: SimulationFaults | false;
  readonly ciSeeds?: number;
}

const ROOT = new URL("../../../", import.meta.url);

/** The options of `simulate()` for a scenario module, with the test's own on top. */
export function optionsOf(
  module: ScenarioModule,
  overrides: Partial<SimulationOptions> = {},
): SimulationOptions {
  const { operator, scenario, invariants, resources, settle, faults } = module;
  return {
    operator: typeof operator === "string" ? new URL(operator, ROOT).href : operator,
    scenario,
    ...(invariants !== undefined ? { invariants } : {}),
    ...(resources !== undefined ? { resources } : {}),
    ...(settle !== undefined ? { settle } : {}),
    ...(faults !== undefined ? { faults } : {}),
    ...(overrides.seed === undefined ? { seeds: module.ciSeeds ?? 1 } : {}),
    ...overrides,
  };
}

/** The failures of a report as one line each, for an assertion's message. */
export function failuresOf(
  report: { failures: readonly { seed: number; invariant: string; message: string }[] },
): string[] {
  return report.failures.map((f) => `seed ${f.seed}: ${f.invariant}: ${f.message}`);
}
