/**
 * Locating operator modules given on the command line: paths relative to the current
 * directory become `file:` URLs that a dynamic `import()` accepts, on Deno and on Node.
 *
 * @module
 */
import { resolve } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";

/** The process's current working directory. */
export function currentDirectory(): string {
  return typeof Deno !== "undefined" ? Deno.cwd() : process.cwd();
}

/** The `file:` URL of a path, resolved against the current directory when relative. */
export function fileUrlOf(path: string): string {
  return pathToFileURL(resolve(currentDirectory(), path)).href;
}
