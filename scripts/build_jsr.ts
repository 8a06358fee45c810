/**
 * The JSR build: `deno task build:jsr [--outdir DIR]` writes the package as it is published
 * to JSR (by default into `dist/jsr`), and `deno publish` runs there.
 *
 * - The runtime is JavaScript: `deno bundle` of the entry points, code-split (the entry
 *   points share one copy of each module and its state, and what only some operators use
 *   stays in chunks of its own, loaded where it is used), npm packages left as bare imports
 *   (the arguments of the Node build, `bundleArgs()`), under `bundle/`, with source maps
 *   to the published sources (without their text: the sources are there), so that a stack
 *   trace names the framework's TypeScript modules and lines. Deno loads a few
 *   dozen chunks at an operator's start instead of some 180 TypeScript modules: the start
 *   takes a fifth to three tenths less time, a quarter to a third less CPU, and the process
 *   some 5 MB less memory (docs/performance.md, "Then: the package bundled").
 * - The types are the TypeScript sources themselves, published beside the bundle: each
 *   bundled entry starts with `// @ts-self-types` naming its source entry, so `deno check`
 *   and the documentation read the sources (doc comments, examples, explicit types), while
 *   `deno run` never loads them.
 * - `deno.json`: the name, version, license, import map and compiler options of the
 *   project's, with `exports` mapping each entry point to its bundle, and `publish.include`
 *   listing the bundle and the sources (what `kopf init --local` copies of it too); README,
 *   LICENSE and the docs beside.
 *
 * The repository itself keeps running the sources (tests, examples, benches import
 * `mod.ts`); only what JSR serves is built.
 *
 * @module
 */
import {
  bundleArgs,
  type DenoConfig,
  emptyDir,
  jsPathOf,
  listFiles,
  readDenoConfig,
  runBundler,
} from "./build_npm.ts";

/** Where the bundled runtime goes, within the package. */
export const BUNDLE_DIR = "bundle";

/** What the package holds beside the bundle: the sources (its types) and its pages. */
export const PUBLISHED_SOURCES: readonly string[] = [
  "mod.ts",
  "src",
  "docs",
  "README.md",
  "LICENSE",
];

/** What a build made. */
export interface JsrBuildReport {
  outDir: string;
  /** The package's `exports`: entry point → bundled file. */
  exports: Record<string, string>;
  /** Every file of the bundle, relative to the package, with its size in bytes. */
  bundle: Map<string, number>;
}

/** The bundled file of a source entry point, e.g. `./bundle/src/testing/mod.js`. */
export function bundlePathOf(source: string): string {
  return `./${BUNDLE_DIR}/${jsPathOf(source).slice(2)}`;
}

/**
 * The line that gives a bundled entry the types of its source entry, by a path relative to
 * the bundled file: `// @ts-self-types="../../../src/testing/mod.ts"`.
 */
export function selfTypesLine(source: string): string {
  const bundled = bundlePathOf(source).slice(2);
  const depth = bundled.split("/").length - 1;
  const target = source.replace(/^\.\//, "");
  return `// @ts-self-types="${"../".repeat(depth)}${target}"`;
}

/** The package's `deno.json`: the project's, its entry points mapped to their bundles. */
export function packageConfigFor(config: DenoConfig): Record<string, unknown> {
  return {
    name: config.name,
    version: config.version,
    ...(config.license === undefined ? {} : { license: config.license }),
    exports: Object.fromEntries(
      Object.entries(config.exports).map(([name, source]) => [name, bundlePathOf(source)]),
    ),
    ...(config.imports === undefined ? {} : { imports: config.imports }),
    ...(config.compilerOptions === undefined ? {} : { compilerOptions: config.compilerOptions }),
    publish: { include: [BUNDLE_DIR, ...PUBLISHED_SOURCES] },
  };
}

/** Build the package of the checkout at `root` into `outDir` (replacing what is there). */
export async function buildJsr(root: string, outDir: string): Promise<JsrBuildReport> {
  const config = await readDenoConfig(`${root}/deno.json`);
  await emptyDir(outDir);

  // The copies are bundled, under the package's deno.json (the CLI imports it for the
  // version), so that the source maps name the package's own sources.
  for (const source of PUBLISHED_SOURCES) {
    await copyTree(`${root}/${source}`, `${outDir}/${source}`);
  }
  const packageConfig = packageConfigFor(config);
  await Deno.writeTextFile(`${outDir}/deno.json`, JSON.stringify(packageConfig, null, 2) + "\n");
  const bundleDir = `${outDir}/${BUNDLE_DIR}`;
  const [command, ...options] = bundleArgs(config, bundleDir);
  const extra = [`--config=${outDir}/deno.json`, "--no-lock", "--sourcemap=linked"];
  await runBundler([command, ...extra, ...options], outDir);
  for (const source of Object.values(config.exports)) {
    const path = `${outDir}/${bundlePathOf(source).slice(2)}`;
    const js = await Deno.readTextFile(path).catch(() => {
      throw new Error(`The bundle lacks ${bundlePathOf(source)} for the entry point ${source}.`);
    });
    await Deno.writeTextFile(path, `${selfTypesLine(source)}\n${js}`);
  }
  const bundle = new Map<string, number>();
  for (const file of await listFiles(bundleDir)) {
    if (file.endsWith(".map")) await withoutSourceTexts(`${bundleDir}/${file}`);
    bundle.set(`${BUNDLE_DIR}/${file}`, (await Deno.stat(`${bundleDir}/${file}`)).size);
  }
  return { outDir, exports: packageConfig.exports as Record<string, string>, bundle };
}

/**
 * A source map without the sources' text, which the package holds beside it: a third of
 * the size, and Deno reads some of the maps at every start.
 */
async function withoutSourceTexts(path: string): Promise<void> {
  const map = JSON.parse(await Deno.readTextFile(path)) as Record<string, unknown>;
  delete map.sourcesContent;
  await Deno.writeTextFile(path, JSON.stringify(map));
}

/** Copy a file or a directory's tree; a missing one is skipped (LICENSE may be absent). */
async function copyTree(from: string, to: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(from);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  if (!info.isDirectory) {
    await Deno.copyFile(from, to);
    return;
  }
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    await copyTree(`${from}/${entry.name}`, `${to}/${entry.name}`);
  }
}

/** The build's command line: `[--outdir DIR]`. */
export function parseJsrBuildArgs(args: readonly string[]): { outDir: string } {
  let outDir = "dist/jsr";
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--outdir" && args[i + 1]) outDir = args[++i];
    else if (arg.startsWith("--outdir=")) outDir = arg.slice("--outdir=".length);
    else throw new Error(`Unknown argument ${JSON.stringify(arg)}; the option is --outdir DIR.`);
  }
  return { outDir };
}

if (import.meta.main) {
  try {
    const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
    const { outDir } = parseJsrBuildArgs(Deno.args);
    const absolute = outDir.startsWith("/") ? outDir : `${Deno.cwd()}/${outDir}`;
    const report = await buildJsr(root, absolute);
    const chunks = [...report.bundle].filter(([file]) => file.endsWith(".js"));
    const total = chunks.reduce((sum, [, size]) => sum + size, 0);
    console.log(
      `Built the JSR package into ${outDir}: ${chunks.length} bundled modules, ` +
        `${(total / 1024).toFixed(0)} KiB, with their source maps, beside the sources; ` +
        `publish it from there with: cd ${outDir} && deno publish`,
    );
  } catch (error) {
    console.error(`build:jsr: ${error instanceof Error ? error.message : error}`);
    Deno.exit(1);
  }
}
