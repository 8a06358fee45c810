/**
 * A single binary: `deno task compile [options] [-- baked-in args]` runs `deno compile`
 * on the CLI (or an operator module of your own) with the minimal permission flags baked
 * in — never `--allow-all`.
 *
 * The permissions default to the in-cluster profile of `kopf permissions` (a binary is
 * usually shipped in a container): the service account's files, the variables the
 * framework reads, the hostname, and the network (the API server's address is only
 * known inside the pod). `--kubeconfig` plans for the current kubeconfig instead; any
 * `--allow-*` or `--deny-*` flag given replaces the planned flag of that kind.
 *
 * Options: `--entry FILE` (default `src/cli/main.ts`), `--output PATH` (default
 * `dist/kopf`), `--target TRIPLE`, `--include PATH` (repeatable: files embedded in the
 * binary), `--kubeconfig`, `--allow-…=…`, `--deny-…=…`; arguments after `--` are baked
 * in as the binary's own arguments.
 *
 * `deno compile` downloads `denort` (the runtime it embeds) for the target, unless
 * `DENORT_BIN` points to one. Where that download is impossible, the task fails with one
 * line saying so.
 *
 * @module
 */
import { planPermissions } from "../src/cli/permissions.ts";

/** What to compile and how. */
export interface CompileOptions {
  /** The entry module, relative to the project root. */
  entry: string;
  /** The binary to write. */
  output: string;
  /** The target triple, e.g. `x86_64-unknown-linux-gnu`; the current platform when omitted. */
  target?: string;
  /** Files or directories to embed. */
  includes: string[];
  /** The permission flags to bake in. */
  permissions: string[];
  /** Arguments baked in after the entry point. */
  args: string[];
}

/** The defaults: the `kopf` CLI into `dist/kopf`. */
export const DEFAULT_ENTRY = "src/cli/main.ts";
/** Where the binary goes by default. */
export const DEFAULT_OUTPUT = "dist/kopf";

/** The `deno compile` arguments for the options. */
export function compileArgs(options: CompileOptions): string[] {
  const unscoped = options.permissions.filter((f) => f === "--allow-all" || f === "-A");
  if (unscoped.length > 0) {
    throw new Error("Refusing to bake --allow-all into a binary; pass the minimal flags instead.");
  }
  return [
    "compile",
    "--no-prompt",
    // Only the npm packages the code imports, not build tools from the import map.
    "--exclude-unused-npm",
    `--output=${options.output}`,
    ...(options.target ? [`--target=${options.target}`] : []),
    ...options.includes.map((path) => `--include=${path}`),
    ...options.permissions,
    options.entry,
    ...options.args,
  ];
}

/**
 * Put user-given permission flags over the planned ones: a user's `--allow-net=…`
 * replaces the planned `--allow-net…`; `--deny-*` flags are added.
 */
export function mergePermissionFlags(planned: string[], given: string[]): string[] {
  const kindOf = (flag: string) => flag.replace(/^--/, "").split("=")[0];
  const givenKinds = new Set(given.map(kindOf));
  return [...planned.filter((flag) => !givenKinds.has(kindOf(flag))), ...given];
}

/** The parsed command line of the compile task. */
export interface CompileCommandLine {
  /** The options except permissions, which are planned afterwards. */
  options: Omit<CompileOptions, "permissions">;
  /** `--allow-*` and `--deny-*` flags given. */
  permissionFlags: string[];
  /** Whether to plan for the current kubeconfig rather than in-cluster. */
  kubeconfig: boolean;
}

/** Parse the compile task's arguments; unknown options fail with one line. */
export function parseCompileArgs(argv: string[]): CompileCommandLine {
  const options: Omit<CompileOptions, "permissions"> = {
    entry: DEFAULT_ENTRY,
    output: DEFAULT_OUTPUT,
    includes: [],
    args: [],
  };
  const permissionFlags: string[] = [];
  let kubeconfig = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      options.args = argv.slice(i + 1);
      break;
    }
    const [name, inline] = arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg] : [arg, ""];
    const value = (): string => {
      if (inline) return inline.slice(name.length + 1);
      const next = argv[++i];
      if (next === undefined) throw new Error(`${name} needs a value, e.g. ${name} VALUE.`);
      return next;
    };
    if (name === "--entry") options.entry = value();
    else if (name === "--output" || name === "-o") options.output = value();
    else if (name === "--target") options.target = value();
    else if (name === "--include") options.includes.push(value());
    else if (name === "--kubeconfig") kubeconfig = true;
    else if (/^--(allow|deny)-[a-z]+$/.test(name)) permissionFlags.push(arg);
    else {
      throw new Error(
        `Unknown option ${JSON.stringify(arg)}; use --entry, --output, --target, --include, ` +
          "--kubeconfig, --allow-*/--deny-* flags, and -- before baked-in arguments.",
      );
    }
  }
  return { options, permissionFlags, kubeconfig };
}

/** One line explaining why `deno compile` failed, from its error output. */
export function explainCompileFailure(stderr: string, denoVersion: string): string {
  const report = stderr.split(/^Stack backtrace:/m)[0];
  const lines = report.split("\n").map((l) => l.trim()).filter((l) => l !== "");
  const causes = lines.filter((l) => /^\d+: /.test(l)).map((l) => l.replace(/^\d+: /, ""));
  const denortMissing = /Could not find denort at '([^']*)'/.exec(report);
  if (denortMissing) {
    return `DENORT_BIN points to ${denortMissing[1]}, which does not exist; set it to the ` +
      `denort binary of Deno ${denoVersion} for the target.`;
  }
  if (/Setting up base binary|denort/i.test(report)) {
    const url = /https?:\/\/\S+?denort[^\s)]*/.exec(report)?.[0];
    const reason = causes[causes.length - 1] ?? "unknown error";
    return `deno compile could not fetch the Deno runtime it embeds (denort ${denoVersion}` +
      `${url ? ` from ${url}` : ""}): ${reason}. Allow that download, or set DENORT_BIN to ` +
      "a local denort binary of the same version.";
  }
  const error = lines.find((l) => l.startsWith("error:")) ?? lines[lines.length - 1] ?? "";
  return `deno compile failed: ${[error, ...causes].join(": ").replace(/^error: /, "")}`;
}

async function plannedPermissions(kubeconfig: boolean): Promise<string[]> {
  const set = kubeconfig
    ? await planPermissions()
    : await planPermissions({ inCluster: true, env: () => undefined });
  return set.flags();
}

if (import.meta.main) {
  try {
    const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
    const { options, permissionFlags, kubeconfig } = parseCompileArgs(Deno.args);
    const permissions = mergePermissionFlags(
      await plannedPermissions(kubeconfig),
      permissionFlags,
    );
    const args = compileArgs({ ...options, permissions });
    console.log(`deno ${args.join(" ")}`);
    const output = await new Deno.Command(Deno.execPath(), {
      args,
      cwd: root,
      stdout: "inherit",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    if (!output.success) {
      const stderr = new TextDecoder().decode(output.stderr);
      throw new Error(explainCompileFailure(stderr, Deno.version.deno));
    }
    console.log(`Compiled ${options.entry} into ${options.output} with ${permissions.join(" ")}`);
  } catch (error) {
    console.error(`compile: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exit(1);
  }
}
