/**
 * The `kopf` command line. Each subcommand lives in a module of its own and is added
 * here.
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { commandLineArgs } from "../platform/process.ts";
import { permissionsCommand } from "./permissions.ts";
import { runCommand } from "../commands/run.ts";
import { typesCommand } from "../commands/types.ts";
import { fakeClusterCommand } from "./fake_cluster.ts";

/** The `kopf` command line as {@link buildCli} returns it: enough to run it or print its help. */
export interface KopfCommandLine {
  /** The command's name, `kopf`. */
  name(): string;
  /** Parse the arguments (`from: "user"`: without the runtime and script) and run the command. */
  parseAsync(args: readonly string[], options?: { from: "user" | "node" }): Promise<unknown>;
  /** The help text. */
  helpInformation(): string;
}

/** The version reported by `kopf --version`. */
export const VERSION = "0.1.0";

/** Build the `kopf` command with all its subcommands. */
export function buildCli(): KopfCommandLine {
  const program = new Command("kopf")
    .description("A Kubernetes operator framework for TypeScript.")
    .version(VERSION);
  program.addCommand(runCommand());
  program.addCommand(permissionsCommand());
  program.addCommand(fakeClusterCommand());
  program.addCommand(typesCommand());
  return program;
}

/** Run the command line with the given arguments (the process's own by default). */
export async function main(args: string[] = commandLineArgs()): Promise<void> {
  await buildCli().parseAsync(args, { from: "user" });
}

if (import.meta.main) {
  await main();
}
