/**
 * The `kopf` command line. Each subcommand lives in a module of its own and is added
 * here, where they all get the same conventions: usage errors exit with code 2 after a
 * hint at the help, other failures with code 1 after one line.
 *
 * @module
 */
import { Command, CommanderError } from "@commander-js/extra-typings";
import { commandLineArgs, exitProcess } from "../platform/process.ts";
import { writeStderrLine } from "../platform/stderr.ts";
import { oneLine } from "../reactor/running.ts";
import { runCommand } from "../commands/run.ts";
import { typesCommand } from "../commands/types.ts";
import { freezeCommand, resumeCommand } from "../commands/freeze.ts";
import { followUsageConventions } from "../commands/usage.ts";
import { permissionsCommand } from "./permissions.ts";
import { fakeClusterCommand } from "./fake_cluster.ts";
import { manifestsCommand } from "./manifests.ts";
import { initCommand } from "./init.ts";
import { simulateCommand } from "./simulate_command.ts";
import { VERSION } from "./version.ts";

/** The `kopf` command line as {@link buildCli} returns it: enough to run it or print its help. */
export interface KopfCommandLine {
  /** The command's name, `kopf`. */
  name(): string;
  /** Parse the arguments (`from: "user"`: without the runtime and script) and run the command. */
  parseAsync(args: readonly string[], options?: { from: "user" | "node" }): Promise<unknown>;
  /** The help text. */
  helpInformation(): string;
}

export { VERSION };

/**
 * Build the `kopf` command with all its subcommands. Instead of exiting, it throws a
 * `CommanderError` whose `exitCode` is the one to exit with (see {@link main}).
 */
export function buildCli(): KopfCommandLine {
  const program = new Command("kopf")
    .description("A Kubernetes operator framework for TypeScript.")
    .version(VERSION);
  program.addCommand(runCommand());
  program.addCommand(freezeCommand());
  program.addCommand(resumeCommand());
  program.addCommand(permissionsCommand());
  program.addCommand(fakeClusterCommand());
  program.addCommand(typesCommand());
  program.addCommand(manifestsCommand());
  program.addCommand(initCommand());
  program.addCommand(simulateCommand());
  followUsageConventions(program as unknown as Command);
  return program;
}

/** Run the command line with the given arguments (the process's own by default). */
export async function main(args: string[] = commandLineArgs()): Promise<void> {
  try {
    await buildCli().parseAsync(args, { from: "user" });
  } catch (error) {
    // The commands have printed their messages already; only the exit code is left.
    if (error instanceof CommanderError) exitProcess(error.exitCode);
    writeStderrLine(`kopf: ${oneLine(error)}`);
    exitProcess(1);
  }
}

if (import.meta.main) {
  await main();
}
