/**
 * The exit codes and messages that every `kopf` subcommand shares (docs/configuration.md
 * has the table):
 *
 * | code | when                                                                            |
 * | ---- | ------------------------------------------------------------------------------- |
 * | 0    | done; an operator stopped by SIGINT/SIGTERM; `--help`, `--version`              |
 * | 1    | a failure of the work: of the operator (its files' load errors included), of    |
 * |      | the cluster, of the file system; a second signal during an operator's stop      |
 * | 2    | a usage error: a wrong command line (an unknown flag, a missing argument, a bad |
 * |      | value, flags that exclude each other), a file or module that is not there,      |
 * |      | nothing to run, no credentials anywhere                                         |
 *
 * A usage error prints its message and a hint at the help; a failure prints its message
 * (one line, then the place in the operator's code for a load error).
 *
 * @module
 */
import { type Command, CommanderError } from "@commander-js/extra-typings";
import { oneLine } from "../reactor/running.ts";
import { CommandLineError } from "./run_options.ts";
import { OperatorLoadError } from "./load_errors.ts";

/** The exit code of a command's work that has succeeded. */
export const EXIT_OK = 0;
/** The exit code of a failure of the work: the operator's, the cluster's, the system's. */
export const EXIT_FAILURE = 1;
/** The exit code of a usage error: a wrong command line, something given that is not there. */
export const EXIT_USAGE = 2;

/** The exit code for an error of a command's work: 2 for usage errors, else 1. */
export function exitCodeFor(error: unknown): number {
  return error instanceof CommandLineError ? EXIT_USAGE : EXIT_FAILURE;
}

/**
 * What a command prints for an error of its work: `kopf <command>: <one line>`, and for a
 * load error of the operator's code the code frame and the user's stack frames after it.
 */
export function failureText(command: string, error: unknown): string {
  const line = `kopf ${command}: ${oneLine(error)}`;
  return error instanceof OperatorLoadError && error.details.length > 0
    ? [line, ...error.details].join("\n")
    : line;
}

/**
 * The codes of commander's errors that are failures rather than usage errors: what the
 * commands report with `command.error(message, { exitCode })`, whose code decides.
 */
const FAILURES: ReadonlySet<string> = new Set([
  "commander.error",
  "commander.executeSubCommandAsync",
]);

/**
 * The exit code of a commander error: 0 for the help and the version, 2 for commander's
 * own errors about the command line (unknown options, missing or invalid arguments, ...),
 * and the code a command gave for its own errors (2 for usage errors, 1 for failures).
 */
export function exitCodeOf(error: CommanderError): number {
  if (error.exitCode === EXIT_OK) return EXIT_OK;
  return FAILURES.has(error.code) ? error.exitCode : EXIT_USAGE;
}

/** The line after a usage error, e.g. `See 'kopf run --help'.` */
export function usageHint(command: UsageCommand): string {
  const names: string[] = [];
  for (let c: UsageCommand | null = command; c; c = c.parent) names.unshift(c.name());
  return `See '${names.join(" ")} --help'.`;
}

/** What {@link followUsageConventions} needs of a command (commander's `Command`). */
export interface UsageCommand {
  /** The command's name. */
  name(): string;
  /** The command above it, if any. */
  readonly parent: UsageCommand | null;
  /** The subcommands. */
  readonly commands: readonly UsageCommand[];
}

/**
 * Make a command and its subcommands follow the conventions: instead of exiting, each
 * throws a `CommanderError` with the exit code of {@link exitCodeOf} -- after the hint at
 * the help for a usage error -- and the caller ends the process with that code.
 */
export function followUsageConventions(command: Command): void {
  command.exitOverride((error) => {
    const code = exitCodeOf(error);
    // After a wrong command line without a subcommand, the help itself was just printed.
    if (code === 2 && error.code !== "commander.help") {
      command.configureOutput().writeErr?.(`${usageHint(command)}\n`);
    }
    throw new CommanderError(code, error.code, error.message);
  });
  for (const subcommand of command.commands) {
    followUsageConventions(subcommand as unknown as Command);
  }
}
