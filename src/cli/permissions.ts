/**
 * `kopf permissions`: the exact minimal Deno permission flags for the current
 * configuration — the API server and listeners to reach (`--allow-net`), the
 * kubeconfig, certificate, key and token files (`--allow-read`), the environment
 * variables read (`--allow-env`), the hostname (`--allow-sys`) and the exec credential
 * plugins (`--allow-run`).
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { parse as parseYaml } from "yaml";
import {
  directoryOf,
  readTextFileIfExists,
  resolvePath as resolveRawPath,
} from "../platform/files.ts";
import { localModuleGraph, PermissionSet } from "../platform/permissions.ts";
import { getEnv } from "../platform/process.ts";

/** Where the service account's token, CA and namespace are mounted in a pod. */
export const SERVICE_ACCOUNT_DIRECTORY = "/var/run/secrets/kubernetes.io/serviceaccount";

/** An environment variable the framework reads, and when it reads it. */
export interface EnvironmentRead {
  /** The variable's name. */
  readonly name: string;
  /** Why it is read. */
  readonly reason: string;
  /** Whether it is read in this environment; always when omitted. */
  readonly when?: (env: (name: string) => string | undefined) => boolean;
}

/**
 * Every environment variable the framework itself reads. A test keeps this list in
 * step with the sources: every variable read anywhere in src/ must be listed here.
 */
export const FRAMEWORK_ENVIRONMENT: readonly EnvironmentRead[] = [
  { name: "KUBECONFIG", reason: "kubeconfig login: the kubeconfig files to merge" },
  {
    name: "HOME",
    reason: "kubeconfig login: ~/.kube/config when KUBECONFIG is unset",
    when: (env) => !env("KUBECONFIG"),
  },
  {
    name: "USERPROFILE",
    reason: "kubeconfig login: the home directory on Windows, where HOME is unset",
    when: (env) => !env("KUBECONFIG") && !env("HOME"),
  },
  { name: "KUBERNETES_SERVICE_HOST", reason: "service-account login: detecting the cluster" },
  { name: "KUBERNETES_SERVICE_PORT", reason: "service-account login: the API server's port" },
];

/** Options of {@link planPermissions}, mirroring `kopf permissions`'s flags. */
export interface PermissionPlanOptions {
  /** A kubeconfig file to use instead of `KUBECONFIG` or `~/.kube/config`. */
  readonly kubeconfig?: string;
  /** The kubeconfig context; the current context when omitted. */
  readonly context?: string;
  /** Plan for the in-cluster service account even when not in a cluster now. */
  readonly inCluster?: boolean;
  /** Listeners the operator opens, as `host:port` (webhook servers). */
  readonly listen?: readonly string[];
  /** The liveness endpoint URL, e.g. `http://0.0.0.0:8080/healthz`. */
  readonly liveness?: string;
  /** Operator modules that `kopf run` loads. */
  readonly operatorFiles?: readonly string[];
  /** The environment; the process's own when omitted. */
  readonly env?: (name: string) => string | undefined;
}

type Yaml = Record<string, unknown>;

/** The minimal permissions for the configuration, each with the reason it is needed. */
export async function planPermissions(options: PermissionPlanOptions = {}): Promise<PermissionSet> {
  const env = options.env ?? getEnv;
  const set = new PermissionSet();
  for (const read of FRAMEWORK_ENVIRONMENT) {
    if (!read.when || read.when(env)) set.add("env", read.name, read.reason);
  }
  set.add("sys", "hostname", "the operator's identity for peering and event reporting");

  const inCluster = options.inCluster || Boolean(env("KUBERNETES_SERVICE_HOST"));
  if (inCluster) addServiceAccount(set, env);
  const kubeconfigFound = await addKubeconfig(set, options, env);
  if (!inCluster && !kubeconfigFound) {
    throw new Error(
      "No Kubernetes configuration found: set KUBECONFIG, create ~/.kube/config, pass --kubeconfig PATH, or use --in-cluster.",
    );
  }

  for (const listener of options.listen ?? []) {
    set.add("net", parseListener(listener), "a webhook server listening there");
  }
  if (options.liveness) {
    set.add("net", hostPortOf(options.liveness, "--liveness"), "the liveness endpoint");
  }
  await addOperatorModules(set, options.operatorFiles ?? []);
  return set;
}

/**
 * Operator modules are imported dynamically, so every local file of their import graph
 * needs read access — except those the CLI itself loaded statically already.
 */
async function addOperatorModules(set: PermissionSet, files: readonly string[]): Promise<void> {
  if (files.length === 0) return;
  let loaded: Set<string>;
  try {
    loaded = new Set(await localModuleGraph(new URL("./main.ts", import.meta.url).href));
  } catch {
    // No module graph here (Node, a compiled binary): grant the modules' directories.
    for (const file of files) {
      set.add("read", directoryOf(file), `loading the operator ${file} and its local imports`);
    }
    return;
  }
  for (const file of files) {
    let graph: string[];
    try {
      graph = await localModuleGraph(file);
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      throw new Error(`Cannot read the operator module ${file}: ${reason}`);
    }
    for (const path of graph) {
      if (!loaded.has(path)) set.add("read", path, `loading the operator ${file}`);
    }
  }
}

function addServiceAccount(set: PermissionSet, env: (name: string) => string | undefined): void {
  set.add("read", SERVICE_ACCOUNT_DIRECTORY, "service-account login: token, CA and namespace");
  const host = env("KUBERNETES_SERVICE_HOST");
  const port = env("KUBERNETES_SERVICE_PORT") || "443";
  if (host) {
    const bracketed = host.includes(":") ? `[${host}]` : host;
    set.add("net", `${bracketed}:${port}`, "the API server (in-cluster)");
  } else {
    // Outside the pod, the API server's address (from the pod's environment) is unknown.
    set.add("net", undefined, "the API server, whose address is only known inside the pod");
  }
}

/** Add the kubeconfig's needs; `false` when there is no kubeconfig at all. */
async function addKubeconfig(
  set: PermissionSet,
  options: PermissionPlanOptions,
  env: (name: string) => string | undefined,
): Promise<boolean> {
  const paths = kubeconfigPaths(options, env);
  const files: { path: string; doc: Yaml }[] = [];
  for (const path of paths) {
    const text = await readTextFileIfExists(path);
    if (text === undefined) {
      if (options.kubeconfig) throw new Error(`The kubeconfig ${path} does not exist.`);
      // Like kubectl, the login skips missing files, but it must be allowed to look.
      set.add("read", path, "a kubeconfig candidate (absent now)");
      continue;
    }
    let doc: unknown;
    try {
      doc = parseYaml(text);
    } catch (e) {
      const reason = (e instanceof Error ? e.message : String(e)).split("\n")[0];
      throw new Error(`The kubeconfig ${path} is not valid YAML: ${reason}`);
    }
    if (doc !== null && doc !== undefined && (typeof doc !== "object" || Array.isArray(doc))) {
      throw new Error(`The kubeconfig ${path} is not a YAML mapping; fix or remove it.`);
    }
    set.add("read", path, "the kubeconfig");
    files.push({ path, doc: (doc ?? {}) as Yaml });
  }
  if (files.length === 0) return false;

  const contextName = options.context ?? firstString(files.map((f) => f.doc["current-context"]));
  if (!contextName) {
    throw new Error(
      `No current context in ${
        paths.join(", ")
      }; pass --context NAME or run kubectl config use-context.`,
    );
  }
  const context = findNamed(files, "contexts", "context", contextName);
  if (!context) {
    throw new Error(`The context ${JSON.stringify(contextName)} is not in ${paths.join(", ")}.`);
  }
  const clusterName = stringField(context.value, "cluster");
  const cluster = clusterName ? findNamed(files, "clusters", "cluster", clusterName) : undefined;
  if (!cluster) {
    throw new Error(
      `The context ${JSON.stringify(contextName)} names the cluster ${
        JSON.stringify(clusterName ?? "")
      }, which is not in ${paths.join(", ")}.`,
    );
  }
  const server = stringField(cluster.value, "server");
  if (!server) {
    throw new Error(`The cluster ${JSON.stringify(clusterName)} in ${cluster.path} has no server.`);
  }
  set.add("net", hostPortOf(server, `the server of ${clusterName}`), `the API server (${server})`);
  const proxy = stringField(cluster.value, "proxy-url");
  if (proxy) set.add("net", hostPortOf(proxy, "proxy-url"), "the proxy to the API server");
  const ca = stringField(cluster.value, "certificate-authority");
  if (ca) set.add("read", resolvePath(directoryOf(cluster.path), ca), "the cluster's CA");

  const userName = stringField(context.value, "user");
  const user = userName ? findNamed(files, "users", "user", userName) : undefined;
  if (userName && !user) {
    throw new Error(
      `The context ${JSON.stringify(contextName)} names the user ${
        JSON.stringify(userName)
      }, which is not in ${paths.join(", ")}.`,
    );
  }
  if (user) addUser(set, user.value, directoryOf(user.path));
  return true;
}

function addUser(set: PermissionSet, user: Yaml, base: string): void {
  const files: [string, string][] = [
    ["client-certificate", "the client certificate"],
    ["client-key", "the client key"],
    ["tokenFile", "the token file"],
  ];
  for (const [field, reason] of files) {
    const path = stringField(user, field);
    if (path) set.add("read", resolvePath(base, path), reason);
  }
  const exec = user["exec"];
  if (exec && typeof exec === "object" && !Array.isArray(exec)) {
    const command = stringField(exec as Yaml, "command");
    if (command) {
      // Like client-go: a command with a path separator is relative to the kubeconfig.
      const program = /[\\/]/.test(command) ? resolvePath(base, command) : command;
      set.add("run", program, "the exec credential plugin");
    }
  }
}

function kubeconfigPaths(
  options: PermissionPlanOptions,
  env: (name: string) => string | undefined,
): string[] {
  if (options.kubeconfig) return [options.kubeconfig];
  const list = env("KUBECONFIG");
  if (list) return [...new Set(list.split(/[:;]/).filter((p) => p !== ""))];
  const home = env("HOME") || env("USERPROFILE");
  return home ? [`${home.replace(/[\\/]+$/, "")}/.kube/config`] : [];
}

function findNamed(
  files: readonly { path: string; doc: Yaml }[],
  section: string,
  field: string,
  name: string,
): { path: string; value: Yaml } | undefined {
  // As kubectl merges: the first file that defines a name wins.
  for (const { path, doc } of files) {
    const entries = doc[section];
    if (!Array.isArray(entries)) continue;
    for (const entry of entries) {
      if (entry && typeof entry === "object" && (entry as Yaml)["name"] === name) {
        const value = (entry as Yaml)[field];
        return { path, value: value && typeof value === "object" ? value as Yaml : {} };
      }
    }
  }
  return undefined;
}

function firstString(values: unknown[]): string | undefined {
  return values.find((v): v is string => typeof v === "string" && v !== "");
}

function stringField(object: Yaml, field: string): string | undefined {
  const value = object[field];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** `host:port` of a URL, with the scheme's default port, as `--allow-net` wants it. */
function hostPortOf(url: string, what: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`${what} is not a URL: ${JSON.stringify(url)}; use e.g. https://host:6443.`);
  }
  const port = parsed.port || (parsed.protocol === "http:" ? "80" : "443");
  return `${parsed.hostname}:${port}`;
}

function parseListener(listener: string): string {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(listener);
  if (!m || Number(m[2]) > 65535) {
    throw new Error(
      `--listen ${JSON.stringify(listener)} is not host:port; use e.g. 0.0.0.0:9443 or [::]:9443.`,
    );
  }
  return m[2] === "0" ? m[1] : listener;
}

/** A path resolved against a base directory, with `.` and `..` segments collapsed. */
function resolvePath(base: string, path: string): string {
  const raw = resolveRawPath(base, path);
  const sep = raw.includes("\\") && !raw.includes("/") ? "\\" : "/";
  const parts: string[] = [];
  for (const part of raw.split(sep)) {
    if (part === "." || (part === "" && parts.length > 0)) continue;
    if (part === ".." && parts.length > 0 && parts[parts.length - 1] !== "..") {
      if (parts.length > 1 || parts[0] !== "") parts.pop();
      continue;
    }
    parts.push(part);
  }
  return parts.join(sep) || sep;
}

/** Quote a flag for a POSIX shell when it contains anything beyond safe characters. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./\-[\]]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The text `kopf permissions` prints: the flags on one line, or explained one per line. */
export function formatPermissions(set: PermissionSet, explain: boolean): string {
  if (!explain) return set.flags().map(shellQuote).join(" ");
  const lines = set.grants().map((g) => {
    const flag = g.target === undefined ? `--allow-${g.kind}` : `--allow-${g.kind}=${g.target}`;
    return `${shellQuote(flag).padEnd(48)} # ${g.reason}`;
  });
  return lines.join("\n");
}

/** The `kopf permissions` subcommand. */
export function permissionsCommand(): Command {
  const command = new Command("permissions")
    .description(
      "Print the minimal Deno permission flags for the current configuration " +
        "(kubeconfig or in-cluster service account).",
    )
    .argument("[files...]", "operator modules that `kopf run` would load")
    .option("--kubeconfig <path>", "the kubeconfig file (default: KUBECONFIG or ~/.kube/config)")
    .option("--context <name>", "the kubeconfig context (default: the current one)")
    .option("--in-cluster", "plan for the in-cluster service account")
    .option(
      "--listen <host:port>",
      "a listener the operator opens, e.g. a webhook server (repeatable)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option("--liveness <url>", "the liveness endpoint, e.g. http://0.0.0.0:8080/healthz")
    .option("--explain", "one flag per line, with the reason for each")
    .action(async (files, opts, self) => {
      try {
        const set = await planPermissions({
          kubeconfig: opts.kubeconfig,
          context: opts.context,
          inCluster: opts.inCluster,
          listen: opts.listen,
          liveness: opts.liveness,
          operatorFiles: files,
        });
        console.log(formatPermissions(set, Boolean(opts.explain)));
      } catch (e) {
        self.error(`kopf permissions: ${e instanceof Error ? e.message : String(e)}`);
      }
    });
  return command as unknown as Command;
}
