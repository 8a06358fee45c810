/**
 * Scenario modules, as `kopf simulate --scenario` and `deno task simulate` take them: a
 * module that exports `scenario` and optionally `invariants`, `resources`, `settle`,
 * `faults` and the other options of `simulate()` but the seeds -- or a default export of
 * those options. It may name its `operator` too (a path, or a registry), and how many
 * seeds CI runs it under (`ciSeeds`).
 *
 * @module
 */
import type { RawBody } from "../structs/bodies.ts";
import { pathExists } from "../platform/files.ts";
import { fileUrlOf } from "../platform/modules.ts";
import { OperatorRegistry } from "../intents/registry.ts";
import { CommandLineError } from "../commands/run_options.ts";
import { describeLoadFailure } from "../commands/load_errors.ts";
import type { SimulationOptions } from "../testing/simulation/simulation_types.ts";

/** What a scenario module gives: `simulate()`'s options but the seeds and the reporting. */
export interface ScenarioModule extends
  Omit<
    SimulationOptions,
    | "operator"
    | "seed"
    | "seeds"
    | "firstSeed"
    | "onRun"
    | "stopAtFailure"
    | "verbose"
    | "suppress"
    | "shrink"
  > {
  /** The operator, if the module names it: a module path, a registry, or its maker. */
  readonly operator?: SimulationOptions["operator"];
  /** How many seeds CI runs the scenario under. */
  readonly ciSeeds?: number;
}

/** The exports a scenario module may have; others (its helpers) are left alone. */
const OPTIONS = [
  "operator",
  "scenario",
  "invariants",
  "resources",
  "settle",
  "faults",
  "settings",
  "replicas",
  "namespaces",
  "checkEveryStep",
  "builtinInvariants",
  "scenarioTimeLimit",
  "ciSeeds",
] as const;

/**
 * Import a scenario module (a path relative to the current directory) and check what it
 * exports; a missing file or a module without a scenario is a {@link CommandLineError}
 * naming it, a module that fails to load an `OperatorLoadError` saying where.
 */
export async function loadScenarioModule(path: string): Promise<ScenarioModule> {
  if (!(await pathExists(path))) {
    throw new CommandLineError(`Cannot load the scenario ${path}: no such file.`);
  }
  let exports: Record<string, unknown>;
  try {
    exports = await import(fileUrlOf(path));
  } catch (error) {
    throw await describeLoadFailure(path, error);
  }
  return scenarioModuleOf(path, exports);
}

/** The options of a module's exports (its default export's, its named ones over them), checked. */
export function scenarioModuleOf(path: string, exports: Record<string, unknown>): ScenarioModule {
  const given = exports.default;
  const defaults = typeof given === "object" && given !== null
    ? given as Record<string, unknown>
    : {};
  const options: Record<string, unknown> = {};
  for (const key of OPTIONS) {
    const value = key in exports ? exports[key] : defaults[key];
    if (value !== undefined) options[key] = value;
  }
  const wrong = (what: string) => new CommandLineError(`The scenario ${path}: ${what}`);
  if (typeof options.scenario !== "function") {
    throw wrong(
      "it exports no scenario; export `scenario`, an async function of the simulation " +
        "(or a default export of simulate()'s options with one).",
    );
  }
  const { invariants, resources, settle, ciSeeds, operator } = options;
  if (
    invariants !== undefined &&
    !(Array.isArray(invariants) && invariants.every((each) => typeof each === "function"))
  ) {
    throw wrong("its invariants must be an array of functions of the simulation.");
  }
  if (
    resources !== undefined &&
    !(Array.isArray(resources) && resources.every((each) => isObject(each)))
  ) {
    throw wrong("its resources must be an array of objects (e.g. CustomResourceDefinitions).");
  }
  if (settle !== undefined && !(typeof settle === "number" && settle >= 0 && isFinite(settle))) {
    throw wrong(`its settle must be simulated seconds (0 or more), not ${JSON.stringify(settle)}.`);
  }
  if (ciSeeds !== undefined && !(Number.isSafeInteger(ciSeeds) && (ciSeeds as number) >= 1)) {
    throw wrong(`its ciSeeds must be a whole number of 1 or more, not ${JSON.stringify(ciSeeds)}.`);
  }
  if (
    operator !== undefined && typeof operator !== "string" && typeof operator !== "function" &&
    !(operator instanceof OperatorRegistry)
  ) {
    throw wrong(
      "its operator must be a module path, an OperatorRegistry, or a function that makes one.",
    );
  }
  return options as unknown as ScenarioModule;
}

function isObject(value: unknown): value is RawBody {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
