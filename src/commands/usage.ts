/**
 * The exit codes and messages that every `kopf` subcommand shares: a usage error (a wrong
 * command line: an unknown flag, a missing argument, a bad value, flags that exclude each
 * other, a file that is not there) prints its message and a hint at the help, and exits
 * with code 2; any other failure prints one line and exits with code 1; the help and the
 * version exit with code 0.
 *
 * @module
 */
import { type Command, CommanderError } from "@commander-js/extra-typings";

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
 * own errors about the command line (unknown options, missing or invalid arguments, …),
 * and the code a command gave for its own errors (2 for usage errors, 1 for failures).
 */
export function exitCodeOf(error: CommanderError): number {
  if (error.exitCode === 0) return 0;
  return FAILURES.has(error.code) ? error.exitCode : 2;
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
 * throws a `CommanderError` with the exit code of {@link exitCodeOf} — after the hint at
 * the help for a usage error — and the caller ends the process with that code.
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
