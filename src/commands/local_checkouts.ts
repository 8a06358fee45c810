/**
 * A local checkout of the framework, for `kopf init --local`: reading it (its `deno.json`
 * must be `@kopf/kopf`'s), what of it a project vendors into `vendor/kopf/`, and the check
 * that the project is not inside what it copies. The package as `deno task build:jsr` builds
 * it (`dist/jsr`: the runtime bundled, the sources for its types) is read the same way; its
 * `deno.json` lists what it publishes, and that is what a project vendors.
 *
 * @module
 */
import { absolutePath } from "../platform/absolute_paths.ts";
import { FileNotFoundError, pathExists, readTextFile } from "../platform/files.ts";
import { CommandLineError } from "./run_options.ts";

/** A local checkout of the framework, and what of it a project vendors. */
export interface LocalCheckout {
  /** The checkout's directory, absolute, without a trailing separator. */
  readonly path: string;
  /** The checkout's `deno.json` `exports`: entry point (`.`, `./testing`, ...) -> path. */
  readonly exports: Readonly<Record<string, string>>;
  /**
   * What the project copies into `vendor/kopf/`, relative to the checkout: `deno.json`,
   * and what its `publish.include` names if it names anything (a built package), else the
   * license and the top-level files and directories that the entry points are in.
   */
  readonly vendored: readonly string[];
}

/** Where a project of a local checkout keeps its copy of the framework. */
export const VENDOR_DIR = "vendor/kopf";

/** Read a checkout of the framework: its `deno.json` must be `@kopf/kopf`'s. */
export async function readLocalCheckout(path: string): Promise<LocalCheckout> {
  const absolute = absolutePath(path);
  let config: { name?: unknown; exports?: unknown; publish?: { include?: unknown } };
  try {
    config = JSON.parse(await readTextFile(`${absolute}/deno.json`));
  } catch (error) {
    const why = error instanceof FileNotFoundError ? "has no deno.json" : "has a broken deno.json";
    throw new CommandLineError(
      `--local ${path} ${why}; give the directory of a checkout of @kopf/kopf.`,
    );
  }
  // `"exports": "./mod.ts"` is the short form of `{ ".": "./mod.ts" }`.
  const exports = typeof config.exports === "string" ? { ".": config.exports } : config.exports;
  if (config.name !== "@kopf/kopf" || typeof exports !== "object" || exports === null) {
    throw new CommandLineError(
      `--local ${path} is not a checkout of @kopf/kopf (its deno.json names another ` +
        `package or exports nothing); give the directory of one.`,
    );
  }
  const include = config.publish?.include;
  const listed = Array.isArray(include) && include.length > 0;
  const files = listed
    ? include.map((entry) => String(entry).replace(/^\.\//, "").replace(/\/+$/, ""))
    : await exportedFiles(absolute, exports as Record<string, string>);
  const vendored = [...new Set(["deno.json", ...files])];
  for (const entry of vendored) {
    const outside = entry.startsWith("/") || entry.split("/").some((p) => p === "..");
    if (entry === "" || outside || !(await pathExists(`${absolute}/${entry}`))) {
      throw new CommandLineError(
        `--local ${path}: its deno.json ${listed ? "publishes" : "exports"} ${entry || "."}, ` +
          `which is not in the checkout; give the directory of a complete checkout of @kopf/kopf.`,
      );
    }
  }
  return { path: absolute, exports: exports as Record<string, string>, vendored };
}

/** A checkout's package without a list: its license and where its entry points are. */
async function exportedFiles(path: string, exports: Record<string, string>): Promise<string[]> {
  const entries = Object.values(exports).map((file) => file.replace(/^\.\//, "").split("/")[0]);
  const license = (await pathExists(`${path}/LICENSE`)) ? ["LICENSE"] : [];
  return [...license, ...entries];
}

/** A project inside what it copies of the checkout would copy itself, endlessly. */
export function checkOutsideVendored(dir: string, local: LocalCheckout): void {
  const project = `${absolutePath(dir)}/`;
  for (const entry of local.vendored) {
    if (project.startsWith(`${local.path}/${entry}/`)) {
      throw new CommandLineError(
        `${dir} is inside ${entry}/ of the checkout, which the project copies; give a ` +
          `directory outside it.`,
      );
    }
  }
}
