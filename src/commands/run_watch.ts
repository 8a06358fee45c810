/**
 * `kopf run --watch`: the development loop. The operator runs as `kopf run` in a child
 * process (this program again, without `--watch`), and is restarted whenever a module
 * in the directories of its files changes: stopped as a SIGTERM stops it (the running
 * handlers finish and their outcomes are stored), then started afresh, importing the
 * changed modules. The cluster is untouched: a `kopf fake-cluster` or a real one keeps
 * its objects, and the restarted operator finds them as it left them.
 *
 * A burst of changes (an editor's save, a checkout) is one restart: the restart waits
 * for a short quiet period, and no longer than a second after the first change. An
 * operator that exits by itself -- a syntax error, an import that fails, a crash -- has
 * said why; the loop then waits for the next change instead of exiting. SIGINT and
 * SIGTERM stop the operator (a second one cuts its stop short, as with `kopf run`) and
 * the loop, with the operator's exit code.
 *
 * What is watched: the directory of each operator file (and of each `-m ./module`),
 * recursively, but for hidden directories and `node_modules`; of their files, modules and
 * JSON ones (`.ts`, `.js`, `.mts`, ..., `.json`) but hidden and backup ones. Directories made
 * meanwhile are watched from the next start on.
 *
 * @module
 */
import { getLogger } from "../platform/log_routing.ts";
import { absolutePath } from "../platform/absolute_paths.ts";
import { currentDirectory, directoryOf, pathExists, subdirectoryNames } from "../platform/files.ts";
import { watchDirectories } from "../platform/file_watching.ts";
import { configure } from "../platform/logging.ts";
import { commandLineArgs, exitProcess } from "../platform/process.ts";
import { respawn, respawnCommand, type Respawned } from "../platform/respawn.ts";
import { onTerminationSignals, type TerminationSignal } from "../platform/termination_signals.ts";
import { CommandLineError, type OperatorSource, type RunPlan } from "./run_options.ts";

/** The file extensions whose changes restart the operator. */
export const WATCHED_EXTENSIONS: readonly string[] = [
  ".ts",
  ".tsx",
  ".mts",
  ".cts",
  ".js",
  ".jsx",
  ".mjs",
  ".cjs",
  ".json",
  ".jsonc",
];

/** At most this many directories are watched (a project's tree, not a home directory's). */
export const MAX_WATCHED_DIRECTORIES = 1000;

/** How long a burst of changes may last: seconds of quiet that end it, and at most. */
export interface BurstTiming {
  /** The quiet after the last change that ends a burst. */
  readonly quiet: number;
  /** The longest a burst may go on before the restart. */
  readonly longest: number;
}

/** The timing of bursts: a save is a few events within milliseconds. */
export const BURST_TIMING: BurstTiming = { quiet: 0.2, longest: 1 };

/** What the loop does to the world; the platform's by default (tests replace parts). */
export interface WatchIo {
  /** Start the operator: this program with these arguments. */
  readonly spawn: (args: readonly string[]) => Respawned;
  /** Watch these directories (each by itself) until the returned function is called. */
  readonly watch: (
    directories: readonly string[],
    onChange: (paths: string[]) => void,
  ) => () => void;
  /** The names of a directory's subdirectories. */
  readonly subdirectories: (directory: string) => Promise<string[]>;
  /** Call the handler on SIGINT and SIGTERM until the returned function is called. */
  readonly onSignals: (handler: (signal: TerminationSignal) => void) => () => void;
}

/** Options of {@link superviseOperator}. */
export interface WatchOptions {
  /** The directories to watch, recursively, absolute. */
  readonly roots: readonly string[];
  /** The arguments of the operator's process: `kopf run` without `--watch`. */
  readonly args: readonly string[];
  /** How bursts of changes are told apart. */
  readonly timing?: BurstTiming;
  /** The platform's functions by default. */
  readonly io?: Partial<WatchIo>;
}

const PLATFORM_IO: WatchIo = {
  spawn: respawn,
  watch: watchDirectories,
  subdirectories: subdirectoryNames,
  onSignals: onTerminationSignals,
};

const logger = getLogger(["kopf", "cli"]);

/** Whether a changed path is one that restarts the operator. */
export function isWatchedFile(path: string): boolean {
  const name = path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1);
  if (name.startsWith(".") || name.endsWith("~")) return false;
  return WATCHED_EXTENSIONS.some((extension) => name.endsWith(extension));
}

/** The directories to watch of the operator's sources: those of its files. */
export function watchRoots(sources: readonly OperatorSource[]): string[] {
  const files = sources.filter((source) => source.file || source.specifier.startsWith("file:"));
  return [...new Set(files.map((source) => absolutePath(directoryOf(source.name))))];
}

/**
 * The arguments of the operator's process: the command line's own without `--watch`.
 * A command line without it (the flag came from elsewhere) cannot be repeated.
 */
export function childArguments(processArgs: readonly string[]): string[] {
  if (!processArgs.includes("--watch")) {
    throw new CommandLineError(
      "--watch restarts the operator with this process's own command line, which has no " +
        "--watch: give it on the command line of `kopf run`.",
    );
  }
  return processArgs.filter((arg) => arg !== "--watch");
}

/**
 * The directories under the roots, the roots included, but for hidden ones and
 * `node_modules`: at most {@link MAX_WATCHED_DIRECTORIES}, then `truncated`.
 */
export async function watchedDirectories(
  roots: readonly string[],
  subdirectories: (directory: string) => Promise<string[]> = subdirectoryNames,
): Promise<{ directories: string[]; truncated: boolean }> {
  const found = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const directory = queue.shift()!;
    if (found.has(directory)) continue;
    if (found.size >= MAX_WATCHED_DIRECTORIES) return { directories: [...found], truncated: true };
    found.add(directory);
    const names = await subdirectories(directory).catch(() => []);
    for (const name of names.sort()) {
      if (!name.startsWith(".") && name !== "node_modules") queue.push(`${directory}/${name}`);
    }
  }
  return { directories: [...found], truncated: false };
}

/** Changes gathered into bursts: {@link next} resolves with the paths of the next one. */
class ChangeBursts {
  readonly #timing: BurstTiming;
  #paths = new Set<string>();
  #quiet: ReturnType<typeof setTimeout> | undefined;
  #longest: ReturnType<typeof setTimeout> | undefined;
  #ready: string[] | undefined;
  #pending: Promise<string[]> | undefined;
  #resolve: ((paths: string[]) => void) | undefined;

  constructor(timing: BurstTiming) {
    this.#timing = timing;
  }

  /** Note changed paths; those that do not restart the operator are left out. */
  add(paths: readonly string[]): void {
    const watched = paths.filter(isWatchedFile);
    if (watched.length === 0) return;
    for (const path of watched) this.#paths.add(path);
    clearTimeout(this.#quiet);
    this.#quiet = setTimeout(() => this.#end(), this.#timing.quiet * 1000);
    this.#longest ??= setTimeout(() => this.#end(), this.#timing.longest * 1000);
  }

  /** The next burst's paths (one promise for all who wait, so none is lost). */
  next(): Promise<string[]> {
    const ready = this.#ready;
    this.#ready = undefined;
    if (ready !== undefined) return Promise.resolve(ready);
    this.#pending ??= new Promise((resolve) => this.#resolve = resolve);
    return this.#pending;
  }

  /** Forget what was gathered: the operator about to start sees those changes already. */
  discard(): void {
    this.#ready = undefined;
  }

  /** Stop the timers. */
  close(): void {
    clearTimeout(this.#quiet);
    clearTimeout(this.#longest);
  }

  #end(): void {
    this.close();
    this.#quiet = this.#longest = undefined;
    const paths = [...this.#paths];
    this.#paths.clear();
    const resolve = this.#resolve;
    this.#pending = this.#resolve = undefined;
    if (resolve) resolve(paths);
    else this.#ready = [...new Set([...(this.#ready ?? []), ...paths])];
  }
}

/** The changed paths as a short phrase, relative to the current directory. */
function describe(paths: readonly string[]): string {
  const here = `${currentDirectory()}/`;
  const names = paths.map((path) => path.startsWith(here) ? path.slice(here.length) : path);
  const shown = names.slice(0, 3).join(", ");
  return names.length > 3 ? `${shown} and ${names.length - 3} more` : shown;
}

/**
 * Run the operator and restart it on changes until SIGINT or SIGTERM (see the module's
 * notes). Resolves with the exit code to end with: the operator's at the stop, or 0 when
 * it was not running then.
 */
export async function superviseOperator(options: WatchOptions): Promise<number> {
  const io: WatchIo = { ...PLATFORM_IO, ...options.io };
  const bursts = new ChangeBursts(options.timing ?? BURST_TIMING);
  let child: Respawned | undefined;
  let sent = 0; // signals sent to the running operator
  let received = 0; // signals received
  let stop!: () => void;
  const stopped = new Promise<"stop">((resolve) => stop = () => resolve("stop"));
  const removeListeners = io.onSignals((signal) => {
    received++;
    if (received === 1) {
      logger.info(`Signal ${signal} received: stopping the operator and the watch.`);
    }
    stop();
    // The operator stopping for a restart has had one signal already: the first one here
    // would cut its stop short, so it goes only with the second.
    if (child !== undefined && sent < received) {
      sent++;
      child.signal(signal);
    }
  });
  let unwatch = () => {};
  try {
    while (received === 0) {
      const { directories, truncated } = await watchedDirectories(options.roots, io.subdirectories);
      if (truncated) {
        logger.warn(
          `Watching only the first ${MAX_WATCHED_DIRECTORIES} directories under ` +
            `${options.roots.join(", ")}: keep the operator's files in a directory of their own.`,
        );
      }
      unwatch();
      unwatch = io.watch(directories, (paths) => bursts.add(paths));
      if (received > 0) break;
      bursts.discard();
      child = io.spawn(options.args);
      sent = 0;
      logger.debug(`The operator has started: process ${child.pid}.`);
      const running = child;
      const outcome = await Promise.race([bursts.next(), running.exited, stopped]);
      if (outcome === "stop") {
        const code = await running.exited; // the signal has been passed on
        child = undefined;
        return code;
      }
      if (Array.isArray(outcome)) {
        logger.info(`${describe(outcome)} changed: restarting the operator.`);
        sent++;
        running.signal("SIGTERM");
        const code = await running.exited;
        child = undefined;
        if (received > 0) return code;
        continue;
      }
      child = undefined;
      logger.warn(
        `The operator exited with code ${outcome}; it starts again when its files change ` +
          "(Ctrl-C stops the watch).",
      );
      const next = await Promise.race([bursts.next(), stopped]);
      if (next === "stop") return 0;
      logger.info(`${describe(next)} changed: starting the operator.`);
    }
    return 0;
  } finally {
    unwatch();
    bursts.close();
    removeListeners();
    if (child !== undefined) {
      child.signal("SIGTERM");
      await child.exited;
    }
  }
}

/**
 * `kopf run --watch` from the command line: check the plan's files, then run and restart
 * the operator until a signal (see {@link superviseOperator}), and exit with its code.
 * `embedded` (a run with an abort signal, e.g. in `KopfRunner`) is refused: the loop
 * restarts a process's command line, which an embedded run does not have.
 */
export async function runWatching(plan: RunPlan, embedded: boolean): Promise<void> {
  if (embedded) {
    throw new CommandLineError(
      "--watch restarts `kopf run` as a process of its own; an embedded run (KopfRunner) " +
        "cannot use it: run the changed files in a new runner instead.",
    );
  }
  for (const source of plan.sources) {
    if (source.file && !(await pathExists(source.name))) {
      throw new CommandLineError(`Cannot load ${source.name}: no such file.`);
    }
  }
  const roots = watchRoots(plan.sources);
  if (roots.length === 0) {
    throw new CommandLineError(
      "--watch needs the operator's files (or -m ./module paths) to watch; -m packages alone " +
        "do not change.",
    );
  }
  const args = childArguments(commandLineArgs());
  configure(plan.logging);
  logger.info(`Watching ${roots.join(", ")}: the operator restarts when a module there changes.`);
  const { command, args: full } = respawnCommand(args);
  logger.debug(`The operator runs as: ${[command, ...full].join(" ")}`);
  const code = await superviseOperator({ roots, args });
  if (code !== 0) exitProcess(code);
}
