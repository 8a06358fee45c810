/**
 * The running process: arguments, environment and exit, on Deno and on Node.
 *
 * @module
 */
type NodeProcess = typeof import("node:process");

/**
 * Node's `process`, for the Node side of the functions here and in other platform modules:
 * Node's global, where `import "node:process"` would cost every start-up on Deno tens of
 * milliseconds of its Node compatibility layer, for nothing.
 */
export function nodeProcess(): NodeProcess {
  return (globalThis as unknown as { process: NodeProcess }).process;
}

/** The command-line arguments after the script name. */
export function commandLineArgs(): string[] {
  return typeof Deno !== "undefined" ? [...Deno.args] : nodeProcess().argv.slice(2);
}

/** An environment variable, or `undefined` when unset. */
export function getEnv(name: string): string | undefined {
  return typeof Deno !== "undefined" ? Deno.env.get(name) : nodeProcess().env[name];
}

/** End the process with the given exit code. */
export function exitProcess(code: number): never {
  if (typeof Deno !== "undefined") Deno.exit(code);
  return nodeProcess().exit(code);
}

/** The URL of the program's main module (the script run), if the runtime says it. */
export function mainModule(): string | undefined {
  if (typeof Deno !== "undefined") return Deno.mainModule;
  return nodeProcess().argv[1];
}

/** The version of Deno running this process; `undefined` on Node. */
export function denoVersion(): string | undefined {
  return typeof Deno !== "undefined" ? Deno.version.deno : undefined;
}
