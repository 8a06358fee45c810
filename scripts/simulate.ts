/**
 * The reactor's own scenarios (`tests/simulation/scenarios/*.ts`) under many seeds: for
 * each, the seeds run, the failures, the wall time and the simulated time, and the command
 * that replays each failure. Exit code 1 when any seed failed, 2 on a wrong command line.
 *
 *     deno task simulate                          # every scenario, 1,000 seeds each
 *     deno task simulate --seeds 200 --scenario children
 *     deno task simulate --ci                     # each scenario's own ciSeeds (as CI runs them)
 *     deno task simulate --scenario children --seed 37   # replay one failure
 *
 * Each scenario module exports `operator` (a path relative to the repository root, an
 * `OperatorRegistry`, or a function that makes one), `scenario`, and optionally
 * `invariants`, `resources`, `settle`, `faults` and `ciSeeds`.
 *
 * @module
 */
import { Command, InvalidArgumentError } from "@commander-js/extra-typings";
import { simulate, type SimulationFaults } from "../src/testing/mod.ts";
import { faultNamesText, parseFaultNames } from "../src/cli/fault_switches.ts";
import { loadScenarioModule, type ScenarioModule } from "../src/cli/scenario_modules.ts";
import {
  duration,
  failuresText,
  shellCommand,
  SimulationProgress,
  summaryLine,
} from "../src/cli/simulation_output.ts";

const ROOT = new URL("../", import.meta.url);
const SCENARIOS = new URL("tests/simulation/scenarios/", ROOT);

/** Seeds per scenario when neither `--seeds`, `--seed` nor `--ci` is given. */
const DEFAULT_SEEDS = 1000;
/** Seeds per scenario with `--ci` when the scenario names no `ciSeeds`. */
const CI_SEEDS = 10;

interface Options {
  readonly seeds?: number;
  readonly firstSeed?: number;
  readonly seed?: number;
  readonly ci?: boolean;
  readonly scenario?: string[];
  readonly shrink?: boolean;
  readonly suppress?: (keyof SimulationFaults)[];
}

/** What one scenario's run came to, for the table at the end. */
interface Outcome {
  readonly name: string;
  readonly runs: number;
  readonly failures: number;
  readonly wall: number;
  readonly simulated: number;
}

function whole(least: number) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === "" || !Number.isSafeInteger(n) || n < least) {
      throw new InvalidArgumentError(`it must be a whole number of ${least} or more.`);
    }
    return n;
  };
}

/** The scenarios' names (their files without `.ts`), sorted. */
async function scenarioNames(): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(SCENARIOS)) {
    if (entry.isFile && entry.name.endsWith(".ts")) names.push(entry.name.slice(0, -3));
  }
  return names.sort();
}

/** The replay command of a seed of a scenario, with some kinds of faults suppressed. */
function replayOf(name: string, seed: number, suppress: readonly string[] = []): string {
  return shellCommand([
    ...["deno", "task", "simulate", "--scenario", name, "--seed", String(seed)],
    ...(suppress.length
      ? ["--suppress", faultNamesText(suppress as (keyof SimulationFaults)[])]
      : []),
  ]);
}

/** Run one scenario's seeds with a progress line; print its failures and summary. */
async function runScenario(name: string, options: Options): Promise<Outcome> {
  const module: ScenarioModule = await loadScenarioModule(
    new URL(`${name}.ts`, SCENARIOS).pathname,
  );
  if (module.operator === undefined) {
    throw new Error(`The scenario ${name} exports no operator: export \`operator\`.`);
  }
  const { ciSeeds, operator, ...rest } = module;
  const write = (text: string) => Deno.stdout.writeSync(new TextEncoder().encode(text));
  const progress = new SimulationProgress(write, Deno.stdout.isTerminal(), `${name}: `);
  const seeds = options.seed !== undefined
    ? { seed: options.seed }
    : { seeds: options.ci ? ciSeeds ?? CI_SEEDS : options.seeds ?? DEFAULT_SEEDS };
  const started = performance.now();
  const report = await simulate({
    ...rest,
    operator: typeof operator === "string" ? new URL(operator, ROOT).href : operator,
    ...seeds,
    ...(options.firstSeed !== undefined ? { firstSeed: options.firstSeed } : {}),
    ...(options.suppress?.length ? { suppress: options.suppress } : {}),
    shrink: options.shrink ?? false,
    onRun: (run) => progress.onRun(run),
  });
  progress.end();
  const wall = (performance.now() - started) / 1000;
  if (report.failures.length > 0) {
    write(
      `\n${
        failuresText(
          report.failures,
          (seed, suppress) => replayOf(name, seed, suppress ?? options.suppress),
        )
      }\n`,
    );
  }
  write(`${name}: ${summaryLine({ ...report, wall, simulated: progress.simulated })}\n`);
  return {
    name,
    runs: report.runs,
    failures: report.failures.length,
    wall,
    simulated: progress.simulated,
  };
}

function table(outcomes: readonly Outcome[]): string {
  const rows = [
    ["scenario", "seeds", "failures", "wall time", "simulated"],
    ...outcomes.map((o) => [
      o.name,
      String(o.runs),
      String(o.failures),
      duration(o.wall),
      duration(o.simulated),
    ]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  return rows.map((row) => row.map((cell, i) => cell.padEnd(widths[i])).join("  ").trimEnd())
    .join("\n");
}

/** Run the scenarios as the command line says; the exit code. */
export async function main(args: readonly string[]): Promise<number> {
  let options: Options = {};
  const command = new Command("deno task simulate")
    .description("Run the reactor's own scenarios under many seeds.")
    .option("--seeds <count>", `seeds per scenario (${DEFAULT_SEEDS} by default)`, whole(1))
    .option("--first-seed <seed>", "the first seed (1 by default)", whole(0))
    .option("--seed <seed>", "run this one seed (a replay)", whole(0))
    .option("--ci", "run each scenario under its own ciSeeds, as CI does")
    .option("--shrink", "for each failure, find the kinds of faults it needs")
    .option(
      "--suppress <faults>",
      "kinds of faults without effect (a shrunk replay)",
      parseFaultNames,
    )
    .option(
      "--scenario <name>",
      "run only this scenario (repeatable)",
      (value: string, previous: string[] | undefined) => [
        ...(previous ?? []),
        value,
      ],
    )
    .exitOverride()
    .action((flags) => {
      options = flags as Options;
    });
  try {
    command.parse([...args], { from: "user" });
  } catch (error) {
    return (error as { exitCode?: number }).exitCode === 0 ? 0 : 2;
  }
  const known = await scenarioNames();
  const chosen = options.scenario ?? known;
  const unknown = chosen.filter((name) => !known.includes(name));
  const clash = options.seed !== undefined &&
    (options.seeds !== undefined || options.firstSeed !== undefined || options.ci);
  if (unknown.length > 0 || clash) {
    console.error(
      clash
        ? "Use either --seed (one seed) or --seeds/--first-seed/--ci, not both."
        : `No scenario ${unknown.join(", ")} in tests/simulation/scenarios/: use ${
          known.join(", ")
        }.`,
    );
    return 2;
  }
  const outcomes: Outcome[] = [];
  for (const name of chosen) {
    try {
      outcomes.push(await runScenario(name, options));
    } catch (error) {
      // A scenario that does not load, or that simulate() refuses: said in one line.
      console.error(`${name}: ${error instanceof Error ? error.message : String(error)}`);
      return 1;
    }
  }
  console.log(`\n${table(outcomes)}`);
  return outcomes.some((o) => o.failures > 0) ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
