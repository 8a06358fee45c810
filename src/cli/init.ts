/**
 * `kopf init [dir]`: the command line of {@link initProject} -- a new operator project,
 * taking the framework from JSR at this package's version, or copying it from a local
 * checkout.
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import denoConfig from "../../deno.json" with { type: "json" };
import { writeStandardOutput } from "../platform/standard_streams.ts";
import { exitCodeFor, failureText } from "../commands/usage.ts";
import { INIT_DEFAULTS, type InitIo, initProject } from "../commands/new_project.ts";
import { denoCommand } from "../commands/project_context.ts";
import { v8FlagsArgument } from "./runtime_flags.ts";
import { VERSION } from "./version.ts";

/** A path as the shell reads it: as it is when it needs no quotes, else in single quotes. */
function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", `'"'"'`)}'`;
}

/** The `kopf init` subcommand. */
export function initCommand(io: InitIo = {}): Command {
  const command = new Command("init")
    .summary("Write a new operator project: handlers, CRD, types, a test and tasks.")
    .description(
      "Write a new operator project into DIR (new or empty; the current directory by " +
        "default): operator.ts with a create/update handler and a timer for a custom " +
        "resource, its CRD (crd.yaml) and TypeScript types (types.ts), a test on a fake " +
        "cluster (operator_test.ts), deno.json with the tasks run, test, fake-cluster, " +
        "permissions, manifests and types, and a README. The framework comes from JSR " +
        "unless --local names a checkout, which is then copied into vendor/kopf (JSR is " +
        "where it will be published).",
    )
    .argument("[dir]", "the project's directory", ".")
    .option("--group <group>", "the custom resource's API group", INIT_DEFAULTS.group)
    .option("--kind <kind>", "the custom resource's kind", INIT_DEFAULTS.kind)
    .option("--plural <plural>", "the custom resource's plural (default: from the kind)")
    .option(
      "--local <checkout>",
      "copy @kopf/kopf from this checkout (or its JSR build, dist/jsr) into vendor/kopf " +
        "instead of taking it from JSR",
    )
    .action(async (dir, flags, self) => {
      try {
        // The commands printed run in the user's shell: with its `deno`, else through npx.
        const deno = await denoCommand();
        await initProject(dir, {
          group: flags.group,
          kind: flags.kind,
          plural: flags.plural,
          local: flags.local,
          kopfVersion: VERSION,
          yamlSpecifier: denoConfig.imports.yaml,
          v8Flags: v8FlagsArgument(),
          deno,
        }, io);
        const where = dir === "." ? "" : `cd ${shellWord(dir)} && `;
        await writeStandardOutput(
          `Wrote a new operator project into ${dir}. Next: ${where}` +
            `${deno} task test; then ${deno} task fake-cluster ` +
            "serves a fake cluster to run it against (see its README.md).\n",
        );
      } catch (error) {
        self.error(failureText("init", error), { exitCode: exitCodeFor(error) });
      }
    });
  return command as unknown as Command;
}
