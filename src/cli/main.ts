/**
 * The `kopf` command line. Each subcommand lives in a module of its own and is added
 * here.
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { commandLineArgs } from "../platform/process.ts";
import { permissionsCommand } from "./permissions.ts";
import { runCommand } from "./run.ts";
import { fakeClusterCommand } from "./fake_cluster.ts";

/** The version reported by `kopf --version`. */
export const VERSION = "0.1.0";

/** Build the `kopf` command with all its subcommands. */
export function buildCli(): Command {
  const program = new Command("kopf")
    .description("A Kubernetes operator framework for TypeScript.")
    .version(VERSION);
  program.addCommand(runCommand());
  program.addCommand(permissionsCommand());
  program.addCommand(fakeClusterCommand());
  return program as unknown as Command;
}

/** Run the command line with the given arguments (the process's own by default). */
export async function main(args: string[] = commandLineArgs()): Promise<void> {
  await buildCli().parseAsync(args, { from: "user" });
}

if (import.meta.main) {
  await main();
}
