/**
 * Locating operator modules given on the command line: paths relative to the current
 * directory become `file:` URLs that a dynamic `import()` accepts, on Deno and on Node.
 *
 * @module
 */
import { isAbsolute, relative, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The process's current working directory. */
export function currentDirectory(): string {
  return typeof Deno !== "undefined" ? Deno.cwd() : process.cwd();
}

/** The `file:` URL of a path, resolved against the current directory when relative. */
export function fileUrlOf(path: string): string {
  return pathToFileURL(resolve(currentDirectory(), path)).href;
}

/** The path of a `file:` URL (its query and fragment left out); `undefined` for others. */
export function filePathOf(url: string): string | undefined {
  if (!url.startsWith("file:")) return undefined;
  try {
    return fileURLToPath(url.replace(/[?#].*$/, ""));
  } catch {
    return undefined;
  }
}

/**
 * A module's URL as a person reads it: a `file:` URL as its path, relative to the current
 * directory when it is inside it; any other URL as it is.
 */
export function modulePath(url: string): string {
  const path = filePathOf(url);
  if (path === undefined) return url;
  const inside = relative(currentDirectory(), path);
  return inside !== "" && !inside.startsWith("..") && !isAbsolute(inside) ? inside : path;
}

/**
 * Whether an error of `import()` says that the package is not installed (rather than that
 * it is there and failed to load): Node's `ERR_MODULE_NOT_FOUND`, or Deno's words for a
 * package it cannot find or resolve.
 */
export function isModuleNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") return true;
  const message = error instanceof Error ? error.message : String(error);
  return /(cannot|could not) (find|resolve)|not a dependency|package .* (was )?not found/i
    .test(message);
}

/**
 * The one line to say when an optional npm package that a feature needs cannot be loaded:
 * which feature needs which package, and how to install it on this runtime -- or, when it
 * is installed but fails, why. `alternative` names what works without it, if anything.
 */
export function optionalPackageMessage(
  feature: string,
  packageName: string,
  error: unknown,
  alternative?: string,
): string {
  const install = typeof Deno !== "undefined"
    ? `deno add npm:${packageName}`
    : `npm install ${packageName}`;
  const instead = alternative ? `, or use ${alternative} instead` : "";
  if (isModuleNotFound(error)) {
    return `${feature} needs the optional package ${packageName}, which is not installed: ` +
      `install it with \`${install}\`${instead}.`;
  }
  const why = error instanceof Error ? error.message.split("\n")[0] : String(error);
  return `${feature} needs the optional package ${packageName}, which fails to load ` +
    `(${why}); reinstall it with \`${install}\`${instead}.`;
}
