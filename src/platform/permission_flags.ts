/**
 * Runtime permissions: Deno's permission flags (`--allow-net`, `--allow-read`, ...) as a
 * set that can be built up and printed, and the translation of a permission failure
 * into one line that names the exact flag to add.
 *
 * Deno 2 reports a missing permission as `Deno.errors.NotCapable` (or a `TypeError` when
 * a module cannot be loaded) with the message `Requires <kind> access to "<what>", run
 * again with the --allow-<kind> flag`. Node's permission model (`--permission`) reports
 * `ERR_ACCESS_DENIED` with the permission and the resource.
 *
 * @module
 */
import { ConfigurationError } from "../structs/errors.ts";

/** The kinds of Deno permissions, in the order flags are printed. */
export const PERMISSION_KINDS = [
  "net",
  "read",
  "write",
  "env",
  "sys",
  "run",
  "ffi",
  "import",
] as const;

/** One kind of Deno permission: `net` stands for `--allow-net`, and so on. */
export type PermissionKind = typeof PERMISSION_KINDS[number];

/** A missing permission, as found in an error. */
export interface MissingPermission {
  /** The kind of permission, e.g. `read`. */
  readonly kind: PermissionKind;
  /** What was accessed (a path, `host:port`, a variable, a program), when known. */
  readonly target?: string;
  /** The flag that grants it, e.g. `--allow-read=/home/me/.kube/config`. */
  readonly flag: string;
  /** Whether the flag is for Node's permission model rather than Deno's. */
  readonly node?: boolean;
}

const DENO_PATTERN =
  /Requires (\w+) access(?: to "((?:[^"\\]|\\.)*)")?, run again with the --allow-(\w+) flag/;

const NODE_FLAGS: Record<string, string> = {
  FileSystemRead: "--allow-fs-read",
  FileSystemWrite: "--allow-fs-write",
  ChildProcess: "--allow-child-process",
  WorkerThreads: "--allow-worker",
};

const NODE_KINDS: Record<string, PermissionKind> = {
  FileSystemRead: "read",
  FileSystemWrite: "write",
  ChildProcess: "run",
  WorkerThreads: "run",
};

/**
 * The missing permission behind an error (looking through `cause` chains and
 * `AggregateError`s), or `undefined` when the error is not about permissions.
 */
export function findMissingPermission(error: unknown): MissingPermission | undefined {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0) {
    const current = queue.shift();
    if (current === null || current === undefined || seen.has(current)) continue;
    seen.add(current);
    const found = fromDenoMessage(current) ?? fromNodeError(current);
    if (found) return found;
    if (typeof current === "object") {
      const { cause, errors } = current as { cause?: unknown; errors?: unknown };
      queue.push(cause);
      if (Array.isArray(errors)) queue.push(...errors);
    }
  }
  return undefined;
}

function fromDenoMessage(error: unknown): MissingPermission | undefined {
  const message = error instanceof Error ? error.message : typeof error === "string" ? error : "";
  const m = DENO_PATTERN.exec(message);
  if (!m) return undefined;
  const kind = (PERMISSION_KINDS as readonly string[]).includes(m[3])
    ? m[3] as PermissionKind
    : undefined;
  if (!kind) return undefined;
  const target = m[2] === undefined ? undefined : m[2].replace(/\\(.)/g, "$1");
  return { kind, target, flag: flagFor(kind, target) };
}

function fromNodeError(error: unknown): MissingPermission | undefined {
  const e = error as { code?: unknown; permission?: unknown; resource?: unknown } | null;
  if (typeof e !== "object" || e?.code !== "ERR_ACCESS_DENIED") return undefined;
  const permission = typeof e.permission === "string" ? e.permission : "";
  const resource = typeof e.resource === "string" && e.resource ? e.resource : undefined;
  const base = NODE_FLAGS[permission];
  if (!base) return undefined;
  const kind = NODE_KINDS[permission];
  const scoped = resource && (kind === "read" || kind === "write");
  return {
    kind,
    target: resource,
    flag: scoped ? `${base}=${resource}` : base,
    node: true,
  };
}

/**
 * The flag granting one permission for one target. A listener on port 0 (any free
 * port) is granted by host, since the port is not known in advance.
 */
export function flagFor(kind: PermissionKind, target?: string): string {
  if (target === undefined || target === "") return `--allow-${kind}`;
  const value = kind === "net" ? target.replace(/:0$/, "") : target;
  return `--allow-${kind}=${value}`;
}

/**
 * One line explaining a permission failure and the flag to add, or `undefined` when
 * the error is not about permissions. Meant for the top-level runner: print it instead
 * of a stack trace, then exit non-zero.
 */
export function describePermissionError(error: unknown): string | undefined {
  const missing = findMissingPermission(error);
  if (!missing) return undefined;
  const what = missing.target === undefined
    ? `${missing.kind} access`
    : `${missing.kind} access to ${JSON.stringify(missing.target)}`;
  const base = missing.flag.split("=")[0];
  // Deno takes one comma-separated list per flag; Node takes the flag once per path.
  const merge = !missing.flag.includes("=")
    ? ""
    : missing.node
    ? ` (besides any other ${base} flags)`
    : ` (or add it to an existing ${base}=\u2026 list)`;
  const more = missing.node ? "" : "; `kopf permissions` prints the whole minimal set";
  return `Missing permission: ${what}. Run again with ${missing.flag}${merge}${more}.`;
}

/** Why a permission is needed, for `kopf permissions --explain`. */
export interface PermissionGrant {
  /** The kind of permission. */
  readonly kind: PermissionKind;
  /** The target, or `undefined` for the whole kind (e.g. every variable). */
  readonly target?: string;
  /** Why the operator needs it. */
  readonly reason: string;
}

/**
 * A set of permissions with the reasons they are needed; printed as the minimal Deno
 * flags. A grant of a whole kind (no target) makes that kind's targets redundant.
 */
export class PermissionSet {
  readonly #grants: PermissionGrant[] = [];

  /** Grant `kind` for `target` (or the whole kind when `target` is omitted). */
  add(kind: PermissionKind, target: string | undefined, reason: string): this {
    if (target !== undefined && target.includes(",")) {
      throw new ConfigurationError(
        `Cannot grant ${kind} access to ${
          JSON.stringify(target)
        }: Deno's flags separate entries with commas, so a target cannot contain one; ` +
          "rename or move it.",
      );
    }
    const same = this.#grants.find((g) => g.kind === kind && g.target === target);
    if (!same) this.#grants.push({ kind, target, reason });
    return this;
  }

  /** Add every grant of another set. */
  merge(other: PermissionSet): this {
    for (const grant of other.grants()) this.add(grant.kind, grant.target, grant.reason);
    return this;
  }

  /** The grants, in the order of {@link PERMISSION_KINDS}, then as added. */
  grants(): PermissionGrant[] {
    const order = (g: PermissionGrant) => PERMISSION_KINDS.indexOf(g.kind);
    return [...this.#grants].sort((a, b) => order(a) - order(b));
  }

  /** The targets of one kind, `true` for the whole kind, or `undefined` when not granted. */
  targets(kind: PermissionKind): string[] | true | undefined {
    const grants = this.#grants.filter((g) => g.kind === kind);
    if (grants.length === 0) return undefined;
    if (grants.some((g) => g.target === undefined)) return true;
    return [...new Set(grants.map((g) => g.target!))];
  }

  /** The Deno flags, one per kind, e.g. `["--allow-net=127.0.0.1:6443", "--allow-sys=hostname"]`. */
  flags(): string[] {
    const flags: string[] = [];
    for (const kind of PERMISSION_KINDS) {
      const targets = this.targets(kind);
      if (targets === undefined) continue;
      flags.push(targets === true ? `--allow-${kind}` : `--allow-${kind}=${targets.join(",")}`);
    }
    return flags;
  }
}

/** Options of {@link localModuleGraph}. */
export interface ModuleGraphOptions {
  /** Follow dynamic imports too (modules that may be loaded later); static ones only when false. */
  readonly dynamic: boolean;
}

interface ModuleInfo {
  specifier: string;
  local?: string;
  error?: string;
  dependencies?: {
    code?: { specifier?: string };
    isDynamic?: boolean;
  }[];
}

/**
 * The local files a module loads at run time (the module included), from `deno info`:
 * imports of code, not type-only ones, which never load. A module loaded with a dynamic
 * `import()` -- an operator that `kopf run` loads -- needs read access to each of them.
 * Fails under Node and in compiled binaries, which have no `deno info`.
 */
export async function localModuleGraph(
  entry: string,
  options: ModuleGraphOptions,
): Promise<string[]> {
  if (typeof Deno === "undefined") {
    throw new Error("module graphs are only known under Deno");
  }
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  if (!output.success) {
    const stderr = new TextDecoder().decode(output.stderr).trim().split("\n")[0];
    throw new Error(`deno info ${entry} failed: ${stderr}`);
  }
  const info = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    roots?: string[];
    modules?: ModuleInfo[];
    redirects?: Record<string, string>;
  };
  const redirects = info.redirects ?? {};
  const resolve = (specifier: string) => redirects[specifier] ?? specifier;
  const modules = new Map((info.modules ?? []).map((m) => [m.specifier, m]));
  const files: string[] = [];
  const seen = new Set<string>();
  const queue = (info.roots ?? []).map(resolve);
  while (queue.length > 0) {
    const specifier = queue.shift()!;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    const module = modules.get(specifier);
    if (!module || !specifier.startsWith("file:")) continue;
    if (module.error) throw new Error(`${specifier}: ${module.error}`);
    if (module.local) files.push(module.local);
    for (const dependency of module.dependencies ?? []) {
      const target = dependency.code?.specifier;
      if (target && (options.dynamic || !dependency.isDynamic)) queue.push(resolve(target));
    }
  }
  return files;
}
