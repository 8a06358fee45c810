/**
 * The Node build: `deno task build:npm [--outdir DIR]` writes an npm package (by default
 * into `dist/npm`) with the same entry points as `deno.json` `exports`.
 *
 * - JavaScript: `deno bundle` of the entry points (code-split, so the entry points share
 *   one copy of each module and its state), npm packages left as bare imports; then
 *   lowered by TypeScript to ES2022 so that Node 20 runs it (`using` declarations).
 * - Types: `.d.ts` files emitted by the TypeScript compiler from the sources (which have
 *   explicit types everywhere, so no type-checking is needed for this), under `types/`.
 *   `deno bundle --declaration` is not used: it emits only the entry files and flattens
 *   same-named ones (`mod.ts` and `testing/mod.ts`) onto each other.
 * - `package.json`: name, version and license from `deno.json`, a description, keywords
 *   and the repository (`KOPF_NPM_REPOSITORY`, else the git remote `origin`, else none:
 *   no address is made up), an `exports` map that mirrors it, the npm packages the bundle
 *   imports as `dependencies` with the ranges of the `deno.json` import map — except the
 *   optional ones, which become optional `peerDependencies` — a `kopf` binary, and the
 *   minimal Node version.
 * - `README.md`: the npm package's own (`npm/README.md`: installing under Node, ESM
 *   examples that Node 20 parses), not the repository's Deno-first one.
 * - With `--pack`: `npm pack` of the result into the output directory's parent, e.g.
 *   `dist/kopf-kopf-0.1.0.tgz`. A Node project installs that tarball, not the folder:
 *   npm installs a folder as a symlink to it, and the package's imports are then looked
 *   up from the folder's real path, where neither its dependencies nor the project's
 *   optional peers are installed. The tarball installs as a registry package does.
 *
 * @module
 */
import ts from "typescript";

/** The oldest Node that runs the build: undici 7 needs 20.18.1. */
export const NODE_ENGINES = ">=20.18.1";

/** What npm shows about the package (deno.json has no place for it). */
export const NPM_METADATA: Pick<PackageJson, "description" | "keywords"> = {
  description: "A Kubernetes operator framework for TypeScript, modelled on Kopf: " +
    "register handlers, and the framework watches, retries and keeps their progress.",
  keywords: ["kubernetes", "k8s", "operator", "kopf", "controller", "crd", "typescript", "deno"],
};

/**
 * The `repository` of `package.json` for a git remote's address, as npm writes it
 * (`git+https://host/owner/name.git`): from `https://…`, `ssh://git@host/…` or scp-like
 * `git@host:owner/name` addresses; `undefined` for anything else (a local path, none).
 */
export function repositoryOf(remote: string | undefined): PackageJson["repository"] {
  const address = remote?.trim() ?? "";
  const scpLike = /^[\w.-]+@([\w.-]+):(?!\/)(.+)$/.exec(address);
  const url = /^(?:git\+)?(?:https?|ssh|git):\/\/(?:[^@/]+@)?([^/:]+)(?::\d+)?\/(.+)$/.exec(
    address,
  );
  const match = scpLike ?? url;
  if (match === null) return undefined;
  const path = match[2].replace(/\/+$/, "").replace(/\.git$/, "");
  if (!/^[\w.-]+(\/[\w.-]+)+$/.test(path)) return undefined;
  return { type: "git", url: `git+https://${match[1]}/${path}.git` };
}

/**
 * Packages that only some features need, imported dynamically where those features run:
 * optional peer dependencies rather than dependencies, so that installing the framework
 * does not pull them in. The feature that needs each says how to install it when it is
 * missing.
 */
export const OPTIONAL_PEERS: Readonly<Record<string, string>> = {
  "@kubernetes/client-node": "loginViaClient (the login of @kubernetes/client-node)",
};

/** The parts of `deno.json` the build reads. */
export interface DenoConfig {
  /** The package name, e.g. `@kopf/kopf`. */
  name: string;
  /** The package version. */
  version: string;
  /** The license identifier. */
  license?: string;
  /** Entry points: `"."`, `"./testing"`, … → source files. */
  exports: Record<string, string>;
  /** The import map: bare names → `npm:` specifiers. */
  imports?: Record<string, string>;
  /** The compiler options, which the JSR build's package keeps. */
  compilerOptions?: Record<string, unknown>;
}

/** One npm dependency from the import map. */
export interface NpmDependency {
  /** The bare name the code imports, e.g. `yaml`. */
  importName: string;
  /** The npm package name, e.g. `yaml`. */
  packageName: string;
  /** The version range, e.g. `^2.8.1`. */
  range: string;
}

/** The generated `package.json`. */
export interface PackageJson {
  /** The package name. */
  name: string;
  /** The package version. */
  version: string;
  /** What the package is. */
  description: string;
  /** Words to find it by. */
  keywords: string[];
  /** Where its sources are, when known. */
  repository?: { type: "git"; url: string };
  /** The license identifier. */
  license?: string;
  /** Always `module`: the build is ESM. */
  type: "module";
  /** The main entry point, for tools that ignore `exports`. */
  main: string;
  /** The main entry point's types, for tools that ignore `exports`. */
  types: string;
  /** Entry points → their types and JavaScript. */
  exports: Record<string, { types: string; default: string }>;
  /** Command-line programs. */
  bin: Record<string, string>;
  /** The Node versions supported. */
  engines: { node: string };
  /** Runtime dependencies with their version ranges. */
  dependencies: Record<string, string>;
  /** Packages that the user installs when using a feature that needs them. */
  peerDependencies?: Record<string, string>;
  /** Which peer dependencies are optional: all of them. */
  peerDependenciesMeta?: Record<string, { optional: true }>;
}

/** The npm packages in an import map (bare name → `npm:name@range[/path]`). */
export function npmDependencies(imports: Record<string, string> = {}): NpmDependency[] {
  const found: NpmDependency[] = [];
  for (const [key, target] of Object.entries(imports)) {
    const m = /^npm:\/?((?:@[^/@]+\/)?[^/@]+)(?:@([^/]+))?(\/.*)?$/.exec(target);
    if (!m) continue;
    found.push({
      importName: key.replace(/\/$/, ""),
      packageName: m[1],
      range: m[2] ?? "*",
    });
  }
  return found;
}

/** The JavaScript path (in the package) for a source entry point, e.g. `./mod.js`. */
export function jsPathOf(source: string): string {
  return "./" + source.replace(/^\.\//, "").replace(/\.(m?ts|tsx)$/, ".js");
}

/** The declaration path (in the package) for a source entry point, e.g. `./types/mod.d.ts`. */
export function typesPathOf(source: string): string {
  return "./types/" + source.replace(/^\.\//, "").replace(/\.(m?ts|tsx)$/, ".d.ts");
}

/**
 * The `package.json` for the build: `usedImports` are the bare names the bundle imports
 * (only those become dependencies, so build-only tools stay out).
 */
export function packageJsonFor(
  config: DenoConfig,
  usedImports: ReadonlySet<string>,
  repository?: PackageJson["repository"],
): PackageJson {
  const exports: PackageJson["exports"] = {};
  for (const [entry, source] of Object.entries(config.exports)) {
    exports[entry] = { types: typesPathOf(source), default: jsPathOf(source) };
  }
  const dependencies: Record<string, string> = {};
  const peers: Record<string, string> = {};
  for (const dep of npmDependencies(config.imports)) {
    if (!usedImports.has(dep.importName)) continue;
    // An import name that differs from the package name becomes an npm alias.
    const range = dep.importName === dep.packageName
      ? dep.range
      : `npm:${dep.packageName}@${dep.range}`;
    if (dep.importName in OPTIONAL_PEERS) peers[dep.importName] = range;
    else dependencies[dep.importName] = range;
  }
  const main = exports["."];
  if (!main) throw new Error('deno.json "exports" has no "." entry; add one pointing at mod.ts.');
  const pkg: PackageJson = {
    name: config.name,
    version: config.version,
    ...NPM_METADATA,
    ...(repository ? { repository } : {}),
    ...(config.license ? { license: config.license } : {}),
    type: "module",
    main: main.default,
    types: main.types,
    exports,
    bin: { kopf: "./bin/kopf.js" },
    engines: { node: NODE_ENGINES },
    dependencies: Object.fromEntries(Object.entries(dependencies).sort()),
  };
  const peerNames = Object.keys(peers).sort();
  if (peerNames.length > 0) {
    pkg.peerDependencies = Object.fromEntries(peerNames.map((name) => [name, peers[name]]));
    pkg.peerDependenciesMeta = Object.fromEntries(
      peerNames.map((name) => [name, { optional: true as const }]),
    );
  }
  return pkg;
}

/**
 * The `deno bundle` arguments for the entry points (by default those of `exports`), with
 * every npm package external.
 */
export function bundleArgs(
  config: Pick<DenoConfig, "imports" | "exports">,
  outDir: string,
  entries: readonly string[] = Object.values(config.exports),
): string[] {
  const externals = npmDependencies(config.imports).map((d) => `--external=${d.importName}`);
  return [
    "bundle",
    "--quiet",
    "--platform=deno",
    "--format=esm",
    "--code-splitting",
    `--outdir=${outDir}`,
    ...externals,
    ...entries.map((s) => s.replace(/^\.\//, "")),
  ];
}

/** The bare package imports in bundled JavaScript (not relative, not `node:`). */
export function bareImportsOf(js: string): Set<string> {
  const found = new Set<string>();
  const re =
    /(?:^|[\s;}])(?:import|export)\s*(?:[^"'`;]*?\sfrom\s*)?["']([^"'.][^"']*)["']|\bimport\s*\(\s*["']([^"'.][^"']*)["']\s*\)/gm;
  for (const m of js.matchAll(re)) {
    const spec = m[1] ?? m[2];
    if (spec.startsWith("node:")) continue;
    const parts = spec.split("/");
    found.add(spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]);
  }
  return found;
}

/**
 * The bare packages that bundled JavaScript imports statically (`import … from`, bare
 * `import "…"`, `export … from`), which must be installed for the module to load at all.
 */
export function staticImportsOf(js: string): Set<string> {
  const withoutDynamic = js.replace(/\bimport\s*\(\s*["'][^"']*["']\s*\)/g, "");
  return bareImportsOf(withoutDynamic);
}

/**
 * Problems with optional peer dependencies in bundled JavaScript: a static import of one
 * would fail for every user without it, so they may only be imported dynamically.
 */
export function optionalPeerProblems(js: string, fileName: string): string[] {
  return [...staticImportsOf(js)].filter((name) => name in OPTIONAL_PEERS).map((name) =>
    `${fileName} imports the optional package ${name} statically; import it dynamically ` +
    `where ${OPTIONAL_PEERS[name].split(" (")[0]} needs it.`
  );
}

/** Rewrite relative `.ts` module specifiers to `.js` (for emitted declarations). */
export function rewriteTsSpecifiers(code: string): string {
  return code.replace(
    /((?:from|import)\s*\(?\s*["'])(\.{1,2}\/[^"']*?)\.ts(["'])/g,
    "$1$2.js$3",
  );
}

/** The launcher of the `kopf` binary: Node has no `import.meta.main` to start the CLI. */
export function binScript(cliJsPath: string): string {
  return `#!/usr/bin/env node\nimport { main } from "${
    cliJsPath.replace(/^\.\//, "../")
  }";\nawait main();\n`;
}

/** The npm package's README, in the repository (the root README is about Deno). */
export const NPM_README = "npm/README.md";

/** The name of the tarball `npm pack` makes of a package, e.g. `kopf-kopf-0.1.0.tgz`. */
export function tarballNameOf(pkg: Pick<PackageJson, "name" | "version">): string {
  return `${pkg.name.replace(/^@/, "").replace("/", "-")}-${pkg.version}.tgz`;
}

/** What a build produced. */
export interface BuildReport {
  /** The output directory. */
  outDir: string;
  /** The generated `package.json`. */
  packageJson: PackageJson;
  /** Files written, relative to the output directory, with their sizes in bytes. */
  files: Map<string, number>;
  /** Problems that do not stop the build but would bite Node users. */
  warnings: string[];
}

/**
 * Build the npm package of the project at `root` into `outDir` (replacing it); its
 * `repository` is `repository` when given (see {@link repositoryOf}).
 */
export async function buildNpm(
  root: string,
  outDir: string,
  repository?: PackageJson["repository"],
): Promise<BuildReport> {
  const config = await readDenoConfig(`${root}/deno.json`);
  await emptyDir(outDir);
  await runBundler(bundleArgs(config, outDir), root);

  const used = new Set<string>();
  const warnings: string[] = [];
  for (const file of await listFiles(outDir)) {
    if (!file.endsWith(".js")) continue;
    const path = `${outDir}/${file}`;
    const js = lowerForNode(await Deno.readTextFile(path), file);
    const remote = /(?:\bfrom\s*|\bimport\s*\(\s*)["']((?:npm|jsr|https?):[^"']+)["']/.exec(js);
    if (remote) {
      throw new Error(
        `${file} imports "${
          remote[1]
        }"; map it to a bare name in deno.json "imports" and import that.`,
      );
    }
    for (const name of bareImportsOf(js)) used.add(name);
    const problems = optionalPeerProblems(js, file);
    if (problems.length > 0) throw new Error(problems[0]);
    warnings.push(...nodeCompatibilityWarnings(js, file));
    await Deno.writeTextFile(path, js);
  }
  const known = new Set(npmDependencies(config.imports).map((d) => d.importName));
  const unknown = [...used].filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new Error(
      `The bundle imports ${
        unknown.join(", ")
      }, which deno.json "imports" does not map; add them there.`,
    );
  }

  warnings.push(...emitDeclarations(root, Object.values(config.exports), `${outDir}/types`));

  const packageJson = packageJsonFor(config, used, repository);
  const cli = config.exports["./cli"];
  if (cli) {
    await Deno.mkdir(`${outDir}/bin`, { recursive: true });
    await Deno.writeTextFile(`${outDir}/bin/kopf.js`, binScript(jsPathOf(cli)), { mode: 0o755 });
  } else {
    delete (packageJson as Partial<PackageJson>).bin;
  }
  await Deno.writeTextFile(`${outDir}/package.json`, JSON.stringify(packageJson, null, 2) + "\n");
  await Deno.copyFile(`${root}/${NPM_README}`, `${outDir}/README.md`);
  await Deno.copyFile(`${root}/LICENSE`, `${outDir}/LICENSE`).catch((e) => {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  });

  const files = new Map<string, number>();
  for (const file of await listFiles(outDir)) {
    files.set(file, (await Deno.stat(`${outDir}/${file}`)).size);
  }
  for (const [entry, paths] of Object.entries(packageJson.exports)) {
    for (const path of [paths.default, paths.types]) {
      if (!files.has(path.slice(2))) {
        throw new Error(`The build lacks ${path} for the entry point "${entry}".`);
      }
    }
  }
  return { outDir, packageJson, files, warnings };
}

/** `deno.json` as the builds read it: what they need of it must be there. */
export async function readDenoConfig(path: string): Promise<DenoConfig> {
  const config = JSON.parse(await Deno.readTextFile(path)) as Partial<DenoConfig>;
  for (const key of ["name", "version", "exports"] as const) {
    if (!config[key]) throw new Error(`${path} lacks "${key}", which the npm package needs.`);
  }
  const exports = typeof config.exports === "string" ? { ".": config.exports } : config.exports;
  return { ...config, exports } as DenoConfig;
}

/**
 * APIs that Node 20.18 lacks (newer than its V8), by the pattern that finds their use.
 * The build warns about them: use an older API or a fallback instead.
 */
const NEWER_THAN_NODE_20: readonly [RegExp, string][] = [
  [/\bPromise\.withResolvers\b/, "Promise.withResolvers (Node 22)"],
  [/\bPromise\.try\b/, "Promise.try (Node 23)"],
  [/\b(?:Object|Map)\.groupBy\b/, "Object.groupBy / Map.groupBy (Node 21)"],
  [/\bArray\.fromAsync\b/, "Array.fromAsync (Node 22)"],
  [/\bIterator\.from\b/, "Iterator helpers (Node 22)"],
  [/\.(?:symmetricDifference|isSubsetOf|isSupersetOf|isDisjointFrom)\(/, "Set methods (Node 22)"],
  [/\bRegExp\.escape\b/, "RegExp.escape (Node 24)"],
  [/\bError\.isError\b/, "Error.isError (Node 24)"],
  [/\bUint8Array\.fromBase64\b|\.toBase64\(/, "Uint8Array base64 methods (Node 25)"],
];

/** Warnings for uses of APIs that Node 20 lacks in bundled code (comments ignored). */
export function nodeCompatibilityWarnings(js: string, fileName: string): string[] {
  const code = stripComments(js);
  return NEWER_THAN_NODE_20.filter(([pattern]) => pattern.test(code))
    .map(([, name]) => `${fileName} uses ${name}, which Node 20.18 lacks.`);
}

/** Code without block and line comments (string contents are left alone). */
function stripComments(code: string): string {
  return code.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/** Lower modern syntax (e.g. `using`) to what Node 20 runs; modules stay ESM. */
export function lowerForNode(js: string, fileName: string): string {
  const out = ts.transpileModule(js, {
    fileName,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      allowJs: true,
      removeComments: false,
    },
    reportDiagnostics: true,
  });
  const errors = (out.diagnostics ?? []).filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (errors.length > 0) {
    const text = ts.flattenDiagnosticMessageText(errors[0].messageText, " ");
    throw new Error(`Lowering ${fileName} for Node failed: ${text}`);
  }
  return out.outputText;
}

/** Emit `.d.ts` for the entry points and everything they import, under `typesDir`. */
function emitDeclarations(root: string, entries: string[], typesDir: string): string[] {
  const warnings: string[] = [];
  const options: ts.CompilerOptions = {
    declaration: true,
    emitDeclarationOnly: true,
    noCheck: true,
    allowImportingTsExtensions: true,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.esnext.d.ts", "lib.dom.d.ts"],
    strict: true,
    skipLibCheck: true,
    // JSON modules (deno.json, for the version) have no declarations to emit, and would
    // skip the whole emit; what the code takes from them is typed explicitly.
    resolveJsonModule: false,
    rootDir: root,
    outDir: typesDir,
  };
  const host = ts.createCompilerHost(options);
  const program = ts.createProgram(
    entries.map((e) => `${root}/${e.replace(/^\.\//, "")}`),
    options,
    host,
  );
  const result = program.emit(undefined, (fileName, text) => {
    ts.sys.writeFile(fileName, rewriteTsSpecifiers(text));
    // Node users without skipLibCheck cannot resolve Deno's namespace.
    if (/\bDeno\.[A-Za-z]/.test(stripComments(text))) {
      warnings.push(`${fileName.slice(typesDir.length + 1)} mentions the Deno namespace in types.`);
    }
  });
  const errors = result.diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (result.emitSkipped || errors.length > 0) {
    const first = errors[0];
    const where = first?.file ? `${first.file.fileName}: ` : "";
    const text = first ? ts.flattenDiagnosticMessageText(first.messageText, " ") : "emit skipped";
    throw new Error(`Declaration emit failed: ${where}${text}`);
  }
  return warnings;
}

/** Run `deno bundle` with these arguments in `cwd`; throws with its last lines if it fails. */
export async function runBundler(args: readonly string[], cwd: string): Promise<void> {
  const bundled = await new Deno.Command(Deno.execPath(), {
    args: [...args],
    cwd,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  if (!bundled.success) {
    const stderr = new TextDecoder().decode(bundled.stderr).trim();
    throw new Error(`deno bundle failed: ${stderr.split("\n").slice(-5).join(" | ")}`);
  }
}

/** Remove a build's directory with what it holds, if it is there, and make it anew. */
export async function emptyDir(dir: string): Promise<void> {
  await Deno.remove(dir, { recursive: true }).catch((e) => {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  });
  await Deno.mkdir(dir, { recursive: true });
}

/** The files under `dir`, relative to it, sorted. */
export async function listFiles(dir: string, prefix = ""): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(`${dir}/${prefix}`)) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory) files.push(...await listFiles(dir, rel));
    else files.push(rel);
  }
  return files.sort();
}

/**
 * `npm pack` the built package in `outDir` into its parent directory; the tarball's
 * path. Fails with npm's last lines when npm is missing or refuses.
 */
export async function packTarball(outDir: string): Promise<string> {
  const destination = parentOf(outDir);
  let packed: Deno.CommandOutput;
  try {
    packed = await new Deno.Command("npm", {
      args: ["pack", "--json", "--pack-destination", destination],
      cwd: outDir,
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    throw new Error("--pack needs npm, which is not installed; install Node.js with npm.");
  }
  const stderr = new TextDecoder().decode(packed.stderr).trim();
  if (!packed.success) {
    throw new Error(`npm pack failed: ${stderr.split("\n").slice(-5).join(" | ")}`);
  }
  const [summary] = JSON.parse(new TextDecoder().decode(packed.stdout)) as { filename: string }[];
  return `${destination.replace(/\/$/, "")}/${summary.filename}`;
}

/** The directory that holds a path: `dist` for `dist/npm/`, `/` for `/npm`, `.` for `npm`. */
export function parentOf(path: string): string {
  const trimmed = path.replace(/(.)\/+$/, "$1");
  const slash = trimmed.lastIndexOf("/");
  return slash < 0 ? "." : slash === 0 ? "/" : trimmed.slice(0, slash);
}

/** The options of the build's command line. */
export interface BuildArgs {
  /** Where the package goes (`--outdir`, `dist/npm` by default). */
  outDir: string;
  /** Whether to `npm pack` it too (`--pack`). */
  pack: boolean;
}

/** The build's command line: `[--outdir DIR] [--pack]`. */
export function parseBuildArgs(args: readonly string[]): BuildArgs {
  let outDir = "dist/npm";
  let pack = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--outdir" && args[i + 1]) outDir = args[++i];
    else if (arg.startsWith("--outdir=")) outDir = arg.slice("--outdir=".length);
    else if (arg === "--pack") pack = true;
    else {
      throw new Error(
        `Unknown argument ${JSON.stringify(arg)}; the options are --outdir DIR and --pack.`,
      );
    }
  }
  return { outDir, pack };
}

/**
 * What the build says about installing the result into a Node project: the tarball, once
 * packed, else how to pack it (`outDir` as given on the command line).
 */
export function installAdvice(
  outDir: string,
  pkg: Pick<PackageJson, "name" | "version">,
  tarball?: string,
): string {
  if (tarball !== undefined) {
    return `Packed ${tarball}; install it into a Node project with: npm install ${tarball}`;
  }
  const path = `${parentOf(outDir).replace(/\/$/, "")}/${tarballNameOf(pkg)}`;
  return `To install it into a Node project, pack it (build again with --pack) and install ` +
    `the tarball: npm install ${path}. Not the folder: npm would only link it, and the ` +
    `package's dependencies would not be found.`;
}

/** The address of the git remote of the checkout at `root`; `undefined` without one. */
async function gitRemote(root: string, name: string): Promise<string | undefined> {
  try {
    const out = await new Deno.Command("git", {
      args: ["remote", "get-url", name],
      cwd: root,
      stdout: "piped",
      stderr: "null",
    }).output();
    return out.success ? new TextDecoder().decode(out.stdout).trim() : undefined;
  } catch {
    return undefined; // no git
  }
}

if (import.meta.main) {
  try {
    const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
    const { outDir, pack } = parseBuildArgs(Deno.args);
    const absolute = outDir.startsWith("/") ? outDir : `${Deno.cwd()}/${outDir}`;
    const repository = repositoryOf(
      Deno.env.get("KOPF_NPM_REPOSITORY") ?? await gitRemote(root, "origin"),
    );
    const report = await buildNpm(root, absolute, repository);
    const total = [...report.files.values()].reduce((a, b) => a + b, 0);
    for (const warning of report.warnings) console.log(`warning: ${warning}`);
    console.log(
      `Built ${report.packageJson.name}@${report.packageJson.version} for Node ${NODE_ENGINES} ` +
        `into ${outDir}: ${report.files.size} files, ${(total / 1024).toFixed(0)} KiB; ` +
        `dependencies: ${Object.keys(report.packageJson.dependencies).join(", ") || "none"}; ` +
        `optional: ${Object.keys(report.packageJson.peerDependencies ?? {}).join(", ") || "none"}.`,
    );
    const tarball = pack ? await packTarball(absolute) : undefined;
    console.log(installAdvice(outDir, report.packageJson, tarball));
    if (repository === undefined) {
      console.log(
        "note: package.json names no repository: set KOPF_NPM_REPOSITORY to its address, or " +
          "add a git remote named origin, before publishing.",
      );
    }
  } catch (error) {
    console.error(`build:npm: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exit(1);
  }
}
