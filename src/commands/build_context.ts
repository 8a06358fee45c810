/**
 * The build context of the `kopf manifests --dockerfile` recipe: the directory it is
 * built from (`docker build .`), whose every file the recipe copies into the image and
 * nothing else. A Deno configuration that maps a module to a path outside it -- the
 * framework in a checkout beside the project, a workspace member one level up -- builds
 * and runs on the machine that has that path, and fails in the image; so the recipe is
 * refused with one line naming the setting, before anyone tries to build it.
 *
 * @module
 */
import { absolutePath } from "../platform/absolute_paths.ts";
import { readTextFileIfExists } from "../platform/files.ts";
import { fileUrlOf } from "../platform/modules.ts";
import { CommandLineError } from "./run_options.ts";

/** One setting that leads out of the build context: where it is and where it points. */
export interface ContextEscape {
  /** The setting, e.g. `imports["@kopf/kopf"]` or `workspace`. */
  readonly setting: string;
  /** Its value as written. */
  readonly value: string;
}

/** The parts of a Deno configuration that name modules or directories by path. */
interface DenoConfigPaths {
  imports?: unknown;
  scopes?: unknown;
  workspace?: unknown;
  importMap?: unknown;
  links?: unknown;
}

/** Whether a value names a local path (or a `file:` URL) rather than a package or URL. */
function isLocal(value: string): boolean {
  return value.startsWith("file:") || value.startsWith("./") || value.startsWith("../") ||
    value.startsWith("/");
}

/** The values of an import map's object (`imports`, or one scope of `scopes`). */
function mapEntries(map: unknown, prefix: string): [string, string][] {
  if (typeof map !== "object" || map === null) return [];
  return Object.entries(map as Record<string, unknown>)
    .filter((entry): entry is [string, string] => typeof entry[1] === "string")
    .map(([key, value]) => [`${prefix}[${JSON.stringify(key)}]`, value]);
}

/** The settings of a configuration that name paths, as `[setting, value]`. */
function pathSettings(config: DenoConfigPaths): [string, string][] {
  const settings: [string, string][] = mapEntries(config.imports, "imports");
  if (typeof config.scopes === "object" && config.scopes !== null) {
    for (const [scope, map] of Object.entries(config.scopes)) {
      settings.push(...mapEntries(map, `scopes[${JSON.stringify(scope)}]`));
    }
  }
  const members = Array.isArray(config.workspace)
    ? config.workspace
    : (config.workspace as { members?: unknown } | undefined)?.members;
  for (const member of Array.isArray(members) ? members : []) {
    if (typeof member === "string") settings.push(["workspace", member]);
  }
  for (const link of Array.isArray(config.links) ? config.links : []) {
    if (typeof link === "string") settings.push(["links", link]);
  }
  if (typeof config.importMap === "string") settings.push(["importMap", config.importMap]);
  return settings;
}

/**
 * The settings of a Deno configuration (its text, at `configUrl`) that lead out of the
 * build context (`contextUrl`, a directory's `file:` URL ending in `/`). Workspace
 * members, links and the import map's file count as local even when written bare.
 */
export function contextEscapes(
  configText: string,
  configUrl: string,
  contextUrl: string,
): ContextEscape[] {
  const config = JSON.parse(stripJsonComments(configText)) as DenoConfigPaths;
  const escapes: ContextEscape[] = [];
  for (const [setting, value] of pathSettings(config)) {
    const bare = setting === "workspace" || setting === "links" || setting === "importMap";
    if (!isLocal(value) && !bare) continue;
    const target = new URL(bare && !isLocal(value) ? `./${value}` : value, configUrl).href;
    if (!`${target}/`.startsWith(contextUrl)) escapes.push({ setting, value });
  }
  return escapes;
}

/**
 * JSONC to JSON: comments (`//...`, `/*...*\/`) and trailing commas removed, strings left as
 * they are. Enough for `deno.jsonc`, which is JSON with these two additions.
 */
export function stripJsonComments(text: string): string {
  return text.replace(
    /("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\/|,(\s*[}\]])/g,
    (_, string: string | undefined, closing: string | undefined) => string ?? closing ?? "",
  );
}

/**
 * Check that what the recipe builds stays inside the build context, the current
 * directory: the operator's files and the command-line module given by path, and the
 * paths in its `deno.json` (or `deno.jsonc`). Throws a {@link CommandLineError} naming
 * the first setting or file that leads out of it.
 */
export async function checkBuildContext(sources: readonly string[], cli: string): Promise<void> {
  const context = fileUrlOf(".").replace(/\/?$/, "/");
  for (const source of [...sources, cli]) {
    if (/^[a-z][a-z0-9+.-]+:/i.test(source) && !source.startsWith("file:")) continue;
    if (source === cli && !isLocal(cli)) continue; // a bare name: the import map's
    const url = source.startsWith("file:") ? source : fileUrlOf(source);
    if (!url.startsWith(context)) {
      throw new CommandLineError(
        `${source} is outside the build context (${absolutePath(".")}), which the Dockerfile ` +
          "copies alone; give paths inside the directory the image is built from.",
      );
    }
  }
  for (const name of ["deno.json", "deno.jsonc"]) {
    const text = await readTextFileIfExists(name);
    if (text === undefined) continue;
    let escapes: ContextEscape[];
    try {
      escapes = contextEscapes(text, fileUrlOf(name), context);
    } catch (error) {
      throw new CommandLineError(`${name} is not valid JSON (${(error as Error).message}).`);
    }
    if (escapes.length > 0) {
      const { setting, value } = escapes[0];
      throw new CommandLineError(
        `${name}: ${setting} is ${value}, outside the build context (${absolutePath(".")}): ` +
          "the image cannot be built from it. Copy that code into the project (`kopf init " +
          "--local` keeps the framework in vendor/kopf/) or take it from a registry (jsr:, npm:).",
      );
    }
    return;
  }
}
