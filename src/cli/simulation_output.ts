/**
 * What `kopf simulate` and `deno task simulate` print: a progress line while the seeds run
 * (rewritten in place on a terminal, a line now and then otherwise), a summary, and each
 * failure with the end of its trace and the command that replays it.
 *
 * @module
 */
import type { SimulationFailure, SimulationRun } from "../testing/simulation/simulation_types.ts";

/** How many lines of a failure's trace are printed (the trace file has all of them). */
export const TRACE_TAIL = 40;

/**
 * The periodic bookmarks delivered on a quiet watch: left out of the printed end of a
 * trace, where they would crowd out what happened (the faults about them stay).
 */
const QUIET_BOOKMARK = /^ *[\d.]+ watch +\S+ \S+ BOOKMARK rv=\d+$/;

/** How many failures are printed with their trace; those after, with one line each. */
export const TRACED_FAILURES = 3;

/** `1 failure`, `2 failures`. */
export function counted(count: number, noun: string): string {
  return `${count.toLocaleString("en-US")} ${noun}${count === 1 ? "" : "s"}`;
}

/** Seconds as a person reads them: `850 ms`, `14.2 s`, `3 min 20 s`, `33 h 20 min`. */
export function duration(seconds: number): string {
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const whole = Math.round(seconds);
  if (whole < 3600) return `${Math.floor(whole / 60)} min ${whole % 60} s`;
  const minutes = Math.round(whole / 60);
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/**
 * The progress of a run of seeds, told each seed's end (`simulate()`'s `onRun`): on a
 * terminal one line rewritten in place; otherwise a line at the first failure and each tenth.
 */
export class SimulationProgress {
  #failures = 0;
  #simulated = 0;
  #open = false;

  constructor(
    readonly write: (text: string) => void,
    readonly terminal: boolean,
    readonly label: string = "",
  ) {}

  /** Failures so far. */
  get failures(): number {
    return this.#failures;
  }

  /** Simulated seconds of all the runs so far. */
  get simulated(): number {
    return this.#simulated;
  }

  /** One seed has run. */
  onRun(run: SimulationRun): void {
    if (run.failure) this.#failures++;
    this.#simulated += run.simulated;
    const line = `${this.label}${run.done}/${run.total} seeds \u00b7 ${
      counted(this.#failures, "failure")
    }`;
    if (this.terminal) {
      this.write(`\r\x1b[K${line}`);
      this.#open = true;
      return;
    }
    const tenth = Math.max(1, Math.ceil(run.total / 10));
    const first = run.failure !== undefined && this.#failures === 1;
    if (first || run.done % tenth === 0 || run.done === run.total) this.write(`${line}\n`);
  }

  /** End the line rewritten in place, if any. */
  end(): void {
    if (this.#open) this.write("\n");
    this.#open = false;
  }
}

/** What the summary of a run of seeds says. */
export interface SimulationSummary {
  readonly runs: number;
  readonly failures: readonly SimulationFailure[];
  /** Wall-clock seconds. */
  readonly wall: number;
  /** Simulated seconds, all seeds together. */
  readonly simulated: number;
}

/** `200 seeds, 1 failure (seed 37); 14.2 s of wall time (71 ms a seed), 33 h 20 min simulated.` */
export function summaryLine(summary: SimulationSummary): string {
  const { runs, failures, wall, simulated } = summary;
  const seeds = failures.length === 0
    ? ""
    : ` (${
      failures.length <= 10
        ? `seed${failures.length === 1 ? "" : "s"} ${failures.map((f) => f.seed).join(", ")}`
        : `seeds ${failures.slice(0, 10).map((f) => f.seed).join(", ")}, \u2026`
    })`;
  const each = runs > 0 ? ` (${duration(wall / runs)} a seed)` : "";
  return `${counted(runs, "seed")}, ${counted(failures.length, "failure")}${seeds}; ` +
    `${duration(wall)} of wall time${each}, ${duration(simulated)} simulated.`;
}

/** The command that replays a seed; with `suppress`, with those kinds of faults suppressed. */
export type ReplayCommand = (seed: number, suppress?: readonly string[]) => string;

/**
 * A failure as printed: its seed, invariant and message; with `traced`, the last
 * {@link TRACE_TAIL} lines of its trace; then the command that replays it; and if it was
 * shrunk, the kinds of faults it needs and the command that replays it without the others.
 */
export function failureLines(
  failure: SimulationFailure,
  replay: ReplayCommand,
  traced: boolean,
): string[] {
  const lines = [`seed ${failure.seed} broke ${failure.invariant}: ${failure.message}`];
  if (traced) {
    const trace = failure.trace.replace(/\n$/, "").split("\n");
    const telling = trace.filter((line) => !QUIET_BOOKMARK.test(line));
    const tail = telling.slice(-TRACE_TAIL);
    const quiet = telling.length < trace.length ? ", bookmarks left out" : "";
    lines.push(
      tail.length < trace.length
        ? `  the last ${tail.length} of its ${counted(trace.length, "trace line")}${quiet}:`
        : "  its trace:",
      ...tail.map((line) => `  | ${line}`),
    );
  }
  lines.push(`  replay: ${replay(failure.seed)}`);
  const shrunk = failure.shrunk;
  if (shrunk !== undefined) {
    const needs = shrunk.needed.length > 0
      ? `${shrunk.needed.join(", ")}: with the other faults suppressed`
      : "no fault, only the seed's interleaving: with the faults suppressed";
    lines.push(
      `  it needs ${needs}, it still breaks ${failure.invariant}: ${shrunk.message}`,
      `  replay that: ${replay(failure.seed, shrunk.suppress)}`,
    );
  }
  return lines;
}

/** The failures as printed, the first few with their traces. */
export function failuresText(
  failures: readonly SimulationFailure[],
  replay: ReplayCommand,
): string {
  return failures.map((failure, i) =>
    failureLines(failure, replay, i < TRACED_FAILURES).join("\n") + "\n"
  ).join("\n");
}

/** A command line as a POSIX shell reads it: words with special characters quoted. */
export function shellCommand(words: readonly string[]): string {
  return words.map((word) =>
    /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`
  ).join(" ");
}
