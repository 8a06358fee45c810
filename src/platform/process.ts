/**
 * The running process: arguments, environment and exit, on Deno and on Node.
 *
 * @module
 */
import process from "node:process";

/** The command-line arguments after the script name. */
export function commandLineArgs(): string[] {
  return typeof Deno !== "undefined" ? [...Deno.args] : process.argv.slice(2);
}

/** An environment variable, or `undefined` when unset. */
export function getEnv(name: string): string | undefined {
  return typeof Deno !== "undefined" ? Deno.env.get(name) : process.env[name];
}

/** End the process with the given exit code. */
export function exitProcess(code: number): never {
  if (typeof Deno !== "undefined") Deno.exit(code);
  process.exit(code);
}

/** The URL of the program's main module (the script run), if the runtime says it. */
export function mainModule(): string | undefined {
  if (typeof Deno !== "undefined") return Deno.mainModule;
  return process.argv[1];
}

/** The version of Deno running this process; `undefined` on Node. */
export function denoVersion(): string | undefined {
  return typeof Deno !== "undefined" ? Deno.version.deno : undefined;
}
