/**
 * `kopf simulate [operator.ts] --scenario scenario.ts --seeds 200`: run the operator under
 * simulation (`simulate()` of the testing kit) for each seed, print the progress, then each
 * failing seed with its broken invariant, the end of its trace and the command that
 * replays it (`--seed N`); exit with 1 if any seed failed.
 *
 * It sits in the command line's layer, not among the commands: it runs the testing kit's
 * `simulate()`, which the commands' layer must not import (the kit runs `kopf run` from it).
 *
 * @module
 */
import { Command, InvalidArgumentError } from "@commander-js/extra-typings";
import { UsageError } from "../structs/errors.ts";
import { writeTextFile } from "../platform/files.ts";
import { standardOutputIsTerminal, writeStandardOutputSync } from "../platform/standard_streams.ts";
import { collect, CommandLineError, parseSeconds } from "../commands/run_options.ts";
import { EXIT_FAILURE, EXIT_USAGE, exitCodeFor, failureText } from "../commands/usage.ts";
import { simulate } from "../testing/simulation/simulate.ts";
import type { SimulationReport } from "../testing/simulation/simulation_types.ts";
import type { SimulationFaults } from "../testing/simulation/simulation_faults.ts";
import {
  faultNamesText,
  type FaultSwitches,
  parseFaultNames,
  parseFaultSwitches,
  switchedFaults,
} from "./fault_switches.ts";
import { loadScenarioModule } from "./scenario_modules.ts";
import {
  failuresText,
  shellCommand,
  SimulationProgress,
  summaryLine,
} from "./simulation_output.ts";

/** The seeds run when neither `--seeds` nor `--seed` is given. */
export const DEFAULT_SEEDS = 100;

/** The flags of `kopf simulate` as commander parses them. */
export interface SimulateFlags {
  /** `--scenario`: the scenario module. */
  readonly scenario: string;
  /** `--seed`: run this one seed (a replay). */
  readonly seed?: number;
  /** `--seeds`: run this many seeds. */
  readonly seeds?: number;
  /** `--first-seed`: the first of the seeds (1 by default). */
  readonly firstSeed?: number;
  /** `--settle`: simulated seconds after the scenario before the invariants. */
  readonly settle?: number;
  /** `--faults` (switches) or `--no-faults` (`false`). */
  readonly faults?: FaultSwitches | false;
  /** `-n/--namespace`: the namespaces served (repeatable). */
  readonly namespace?: readonly string[];
  /** `-A/--all-namespaces`: serve the whole cluster (the default). */
  readonly allNamespaces?: boolean;
  /** `-v/--verbose`: the operator's debug lines in the traces. */
  readonly verbose?: boolean;
  /** `--trace`: the file to write the first failure's whole trace to. */
  readonly trace?: string;
  /** `--stop-at-failure`: no more seeds after the first that fails. */
  readonly stopAtFailure?: boolean;
  /** `--replicas`: how many replicas of the operator run at once. */
  readonly replicas?: number;
  /** `--shrink`: look for the fewest kinds of faults each failure needs. */
  readonly shrink?: boolean;
  /** `--suppress`: kinds of faults drawn but without effect (a shrunk failure's replay). */
  readonly suppress?: readonly (keyof SimulationFaults)[];
}

/** Where {@link runSimulateCommand} prints (stdout by default), and whether it is a terminal. */
export interface SimulateOutput {
  readonly write?: (text: string) => void;
  readonly terminal?: boolean;
}

function parseSeed(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isSafeInteger(n) || n < 0) {
    throw new InvalidArgumentError(`a seed is a whole number of 0 or more, not ${value}.`);
  }
  return n;
}

function parseCount(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError(`it must be a whole number of 1 or more, not ${value}.`);
  }
  return n;
}

/**
 * The command line that replays one seed of this run, flag for flag; with `suppress`, with
 * those kinds of faults suppressed (a shrunk failure).
 */
export function replayCommand(
  operator: string | undefined,
  flags: SimulateFlags,
  seed: number,
  suppress: readonly string[] | undefined = flags.suppress,
): string {
  return shellCommand([
    "kopf",
    "simulate",
    ...(operator !== undefined ? [operator] : []),
    "--scenario",
    flags.scenario,
    "--seed",
    String(seed),
    ...(flags.settle !== undefined ? ["--settle", String(flags.settle)] : []),
    ...(flags.faults === false ? ["--no-faults"] : []),
    ...(flags.faults ? ["--faults", flags.faults.text] : []),
    ...(flags.replicas !== undefined ? ["--replicas", String(flags.replicas)] : []),
    ...(suppress?.length
      ? ["--suppress", faultNamesText(suppress as (keyof SimulationFaults)[])]
      : []),
    ...(flags.namespace ?? []).flatMap((pattern) => ["-n", pattern]),
    ...(flags.verbose ? ["--verbose"] : []),
  ]);
}

function checkFlags(flags: SimulateFlags): void {
  if (flags.seed !== undefined && (flags.seeds !== undefined || flags.firstSeed !== undefined)) {
    throw new CommandLineError("Use either --seed (one seed) or --seeds/--first-seed, not both.");
  }
  if (flags.allNamespaces && flags.namespace?.length) {
    throw new CommandLineError("Use either -n/--namespace or -A/--all-namespaces, not both.");
  }
  if (flags.namespace?.some((pattern) => pattern.trim() === "")) {
    throw new CommandLineError("-n/--namespace needs a non-empty pattern.");
  }
}

/**
 * Do what `kopf simulate` does: load the scenario, run the seeds with a progress line,
 * print the failures and the summary; the report. Bad usage throws a `UsageError`.
 */
export async function runSimulateCommand(
  operatorArg: string | undefined,
  flags: SimulateFlags,
  output: SimulateOutput = {},
): Promise<SimulationReport> {
  checkFlags(flags);
  const write = output.write ?? writeStandardOutputSync;
  const module = await loadScenarioModule(flags.scenario);
  const operator = operatorArg ?? module.operator;
  if (operator === undefined) {
    throw new CommandLineError(
      `kopf simulate needs the operator: give its file (kopf simulate operator.ts --scenario ${flags.scenario}), or export \`operator\` from the scenario.`,
    );
  }
  const { ciSeeds: _ciSeeds, operator: _operator, ...options } = module;
  const progress = new SimulationProgress(write, output.terminal ?? standardOutputIsTerminal());
  const started = performance.now();
  let report: SimulationReport;
  try {
    report = await simulate({
      ...options,
      operator,
      ...(flags.seed !== undefined
        ? { seed: flags.seed }
        : { seeds: flags.seeds ?? DEFAULT_SEEDS, firstSeed: flags.firstSeed }),
      ...(flags.settle !== undefined ? { settle: flags.settle } : {}),
      faults: switchedFaults(module.faults, flags.faults),
      ...(flags.namespace?.length ? { namespaces: flags.namespace } : {}),
      verbose: flags.verbose ?? false,
      stopAtFailure: flags.stopAtFailure ?? false,
      ...(flags.replicas !== undefined ? { replicas: flags.replicas } : {}),
      ...(flags.suppress?.length ? { suppress: flags.suppress } : {}),
      shrink: flags.shrink ?? false,
      onRun: (run) => progress.onRun(run),
    });
  } finally {
    progress.end();
  }
  const wall = (performance.now() - started) / 1000;
  const replay = (seed: number, suppress?: readonly string[]) =>
    replayCommand(operatorArg, flags, seed, suppress ?? flags.suppress);
  if (report.failures.length > 0) write(`\n${failuresText(report.failures, replay)}\n`);
  write(`${summaryLine({ ...report, wall, simulated: progress.simulated })}\n`);
  if (flags.trace !== undefined && report.failures.length > 0) {
    await writeTextFile(flags.trace, report.failures[0].trace);
    write(`The trace of seed ${report.failures[0].seed} is in ${flags.trace}.\n`);
  }
  return report;
}

/** The `kopf simulate` subcommand. */
export function simulateCommand(): Command {
  const command = new Command("simulate")
    .description(
      "Run an operator under simulation, a scenario for each seed (a fake cluster on " +
        "virtual time, faults and interleavings drawn from the seed); print the seeds that " +
        "break an invariant.",
    )
    .argument("[operator]", "the operator's file (or the scenario's `operator`)")
    .requiredOption(
      "--scenario <file>",
      "the scenario module: exports scenario, invariants, \u2026",
    )
    .option("--seeds <count>", `how many seeds to run (${DEFAULT_SEEDS} by default)`, parseCount)
    .option("--first-seed <seed>", "the first of the seeds (1 by default)", parseSeed)
    .option("--seed <seed>", "run this one seed: replay a failure", parseSeed)
    .option(
      "--settle <seconds>",
      "simulated seconds after the scenario before the invariants (600 by default)",
      parseSeconds,
    )
    .option(
      "--faults <switches>",
      "which faults happen, e.g. crashes=off,conflicts=2 or none,latency (all on by default)",
      parseFaultSwitches,
    )
    .option("--no-faults", "no faults at all: only the interleavings of the seed")
    .option(
      "--shrink",
      "for each failure, find the kinds of faults it needs (a run per kind of fault)",
    )
    .option(
      "--suppress <faults>",
      "kinds of faults drawn but without effect, e.g. crashes,watch-drops (a shrunk replay)",
      parseFaultNames,
    )
    .option("--replicas <count>", "how many replicas of the operator run at once", parseCount)
    .option(
      "-n, --namespace <pattern>",
      "serve namespaces matching a pattern (repeatable)",
      collect,
    )
    .option("-A, --all-namespaces", "serve the whole cluster (the default)")
    .option("-v, --verbose", "put the operator's debug lines in the traces")
    .option("--trace <file>", "write the whole trace of the first failure to this file")
    .option("--stop-at-failure", "run no more seeds after the first that fails")
    .action(async (operator, flags, self) => {
      let report: SimulationReport | undefined;
      try {
        report = await runSimulateCommand(operator, flags);
      } catch (error) {
        // simulate()'s own refusals (a scenario's bad faults...) are usage errors too.
        const code = error instanceof UsageError ? EXIT_USAGE : exitCodeFor(error);
        self.error(failureText("simulate", error), { exitCode: code });
      }
      if (report && report.failures.length > 0) {
        self.error(
          `kopf simulate: ${report.failures.length} of ${
            report.runs === 1 ? "1 seed" : `${report.runs} seeds`
          } broke an invariant; replay one with the command above it.`,
          { exitCode: EXIT_FAILURE },
        );
      }
    });
  return command as unknown as Command;
}
