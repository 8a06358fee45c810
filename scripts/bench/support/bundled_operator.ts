/**
 * The package as JSR serves it, for a benchmark's operator: `buildJsr()` (the bundled
 * runtime, `scripts/build_jsr.ts`) into `dist/bench/jsr` of the checkout, and a
 * configuration for the children under which the checkout's `mod.ts` is that bundle's entry
 * (the import map's address remapping). The operator's script stays as it is, TypeScript
 * importing the package, as an operator's own modules would; the benches start it so
 * beside the operator of the sources (`KOPF_BENCH_STARTUP_BUNDLED`, the `kopf-bundled`
 * controller of `bench compare`).
 *
 * The directory is the same for every run, so Deno's cached compiled code of the bundle is
 * found again while it is unchanged; every build replaces it.
 *
 * @module
 */
import { buildJsr } from "../../build_jsr.ts";
import { readDenoConfig } from "../../build_npm.ts";

/** Where the package and the configuration go, under the checkout (ignored by git). */
const BENCH_DIR = "dist/bench";

/**
 * Build the package of the checkout at `root` and write the children's configuration;
 * returns the configuration's path, for `--config`. Throws if the build fails.
 */
export async function bundledPackageConfig(root: URL): Promise<string> {
  const outDir = new URL(`${BENCH_DIR}/jsr/`, root);
  const built = await buildJsr(
    root.pathname.replace(/\/$/, ""),
    outDir.pathname.replace(/\/$/, ""),
  );
  const project = await readDenoConfig(new URL("deno.json", root).pathname);
  const entry = new URL(built.exports["."], outDir).href;
  const config = {
    imports: { ...project.imports, [new URL("mod.ts", root).href]: entry },
    compilerOptions: project.compilerOptions,
  };
  const path = new URL(`${BENCH_DIR}/deno.json`, root).pathname;
  await Deno.writeTextFile(path, JSON.stringify(config, null, 2) + "\n");
  // The project's lockfile beside it: without one, Deno resolves the npm packages of the
  // import map anew at every start (some 35 ms here), which the other children do not.
  await Deno.copyFile(new URL("deno.lock", root), new URL(`${BENCH_DIR}/deno.lock`, root));
  return path;
}
