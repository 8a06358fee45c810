/**
 * `kopf permissions`: the exact minimal Deno permission flags for the current
 * configuration -- the API server and listeners to reach (`--allow-net`), the
 * kubeconfig, certificate, key and token files (`--allow-read`), the environment
 * variables read (`--allow-env`), the hostname (`--allow-sys`) and the exec credential
 * plugins (`--allow-run`).
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { exitCodeFor, failureText } from "../commands/usage.ts";
import { ConfigurationError, LoginError } from "../structs/errors.ts";
import { CommandLineError } from "../commands/run_options.ts";
import {
  directoryOf,
  pathExists,
  pathListSeparator,
  resolvePath as resolveRawPath,
} from "../platform/files.ts";
import { localModuleGraph, PermissionSet } from "../platform/permission_flags.ts";
import { getEnv } from "../platform/process.ts";
import { PROXY_ENV_VARIABLES } from "../platform/proxy_environment.ts";
import { UNDICI_ENV_VARIABLES } from "../platform/undici_environment.ts";
import { loadKubeconfig, type MergedKubeconfig } from "../client/kubeconfig.ts";
import { SERVICE_ACCOUNT_DIRECTORY } from "../client/service_account.ts";

export { SERVICE_ACCOUNT_DIRECTORY };

/** An environment variable the framework reads, and when it reads it. */
export interface EnvironmentRead {
  /** The variable's name. */
  readonly name: string;
  /** Why it is read. */
  readonly reason: string;
  /** Whether it is read in this situation; always when omitted. */
  readonly when?: (situation: EnvironmentSituation) => boolean;
  /**
   * Read only if already granted (never prompting), with a stand-in otherwise: left out
   * of the minimal flags.
   */
  readonly optional?: boolean;
  /** Granted in a pod even if optional: the generated Deployment sets it there. */
  readonly inPods?: boolean;
}

/** What decides whether a variable is read. */
export interface EnvironmentSituation {
  /** The environment. */
  readonly env: (name: string) => string | undefined;
  /** Whether the operator logs in with a pod's service account. */
  readonly inCluster: boolean;
  /** Whether a kubeconfig is read (its YAML parsed). */
  readonly kubeconfig: boolean;
  /** Whether TLS verification is off (then the transport runs on undici, also on Deno). */
  readonly insecure: boolean;
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
    when: ({ env }) => !env("KUBECONFIG"),
  },
  {
    name: "USERPROFILE",
    reason: "kubeconfig login: the home directory on Windows, where HOME is unset",
    when: ({ env }) => !env("KUBECONFIG") && !env("HOME"),
  },
  { name: "KUBERNETES_SERVICE_HOST", reason: "service-account login: detecting the cluster" },
  {
    name: "KUBERNETES_SERVICE_PORT",
    reason: "service-account login: the API server's port",
    when: ({ inCluster }) => inCluster,
  },
  {
    name: "POD_ID",
    reason: "peering, leader election: the pod's name as the operator's identity, if set",
    optional: true,
    inPods: true,
  },
  {
    name: "USER",
    reason: "peering: the user name in the operator's identity, if granted",
    optional: true,
  },
  {
    name: "PATH",
    reason: "messages that suggest commands: whether a deno is on PATH (else npx), if granted",
    optional: true,
  },
  {
    name: "DENO_TLS_CA_STORE",
    reason: "CA pinning on Deno: whether the root store is emptied (no caveat then), if granted",
    optional: true,
  },
  {
    name: "DENO_CERT",
    reason: "CA pinning on Deno: whether a root is added to an emptied store, if granted",
    optional: true,
  },
  // Deno's fetch reads these itself, without a permission; the framework reads them to
  // know whether its own (faster) transport of writes would bypass a proxy. Not granted,
  // writes go through fetch: slower, but they work.
  ...PROXY_ENV_VARIABLES.map((name): EnvironmentRead => ({
    name,
    reason: "the API client: a proxy, if set, keeps writes on fetch, which uses it",
  })),
];

/**
 * Environment variables that the npm packages the framework uses read on its behalf
 * (on Deno, through the Node compatibility layer, each read needs the permission).
 */
export const LIBRARY_ENVIRONMENT: readonly EnvironmentRead[] = [
  {
    name: "LOG_TOKENS",
    reason: "the yaml package's debug switch, checked while a kubeconfig is parsed",
    when: ({ kubeconfig }) => kubeconfig,
  },
  {
    name: "LOG_STREAM",
    reason: "the yaml package's debug switch, checked while a kubeconfig is parsed",
    when: ({ kubeconfig }) => kubeconfig,
  },
  ...UNDICI_ENV_VARIABLES.map((name): EnvironmentRead => ({
    name,
    reason: "undici (insecure-skip-tls-verify over HTTPS), read when it loads",
    when: ({ insecure }) => insecure,
  })),
];

/** A system-information API the framework calls (`--allow-sys=<name>`), and why. */
export interface SystemInfoUse {
  /** Deno's name of the API, e.g. `hostname`. */
  readonly name: string;
  /** Why it is called. */
  readonly reason: string;
  /**
   * Called only if already granted (never prompting), with a stand-in otherwise: left out
   * of the minimal flags.
   */
  readonly optional?: boolean;
}

/**
 * The system-information APIs the framework calls. A test keeps this list in step with
 * the sources: every such call in src/ (Deno's or `node:os`'s hostname, release, network
 * interfaces and the like) must be listed here.
 */
export const FRAMEWORK_SYSTEM_INFO: readonly SystemInfoUse[] = [
  {
    name: "hostname",
    reason: "peering: the host name in the operator's identity, if granted",
    optional: true,
  },
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
  /** The metrics endpoint, `host:port` or a URL, e.g. `0.0.0.0:9090`. */
  readonly metrics?: string;
  /** Operator modules that `kopf run` loads. */
  readonly operatorFiles?: readonly string[];
  /** The environment; the process's own when omitted. */
  readonly env?: (name: string) => string | undefined;
}

/** The minimal permissions for the configuration, each with the reason it is needed. */
export async function planPermissions(options: PermissionPlanOptions = {}): Promise<PermissionSet> {
  const own = options.env ?? getEnv;
  // Planned for a pod from elsewhere, the pod's environment counts, which is unknown here.
  const env = options.inCluster && !own("KUBERNETES_SERVICE_HOST") ? () => undefined : own;
  const set = new PermissionSet();
  const inCluster = options.inCluster || Boolean(env("KUBERNETES_SERVICE_HOST"));
  for (const use of FRAMEWORK_SYSTEM_INFO) {
    if (!use.optional) set.add("sys", use.name, use.reason);
  }

  if (inCluster) {
    addServiceAccount(set, env);
  } else {
    // The default login looks for a pod's token first, wherever it runs.
    const token = `${SERVICE_ACCOUNT_DIRECTORY}/token`;
    set.add("read", token, "service-account login: looking for a pod's token (absent here)");
  }
  const kubeconfig = await addKubeconfig(set, options, env);
  const situation = { env, inCluster, kubeconfig: kubeconfig.found, insecure: kubeconfig.insecure };
  for (const read of [...FRAMEWORK_ENVIRONMENT, ...LIBRARY_ENVIRONMENT]) {
    if (read.optional && !(read.inPods && inCluster)) continue;
    if (!read.when || read.when(situation)) set.add("env", read.name, read.reason);
  }
  if (!inCluster && !kubeconfig.found) {
    throw new ConfigurationError(
      "No Kubernetes configuration found: set KUBECONFIG, create ~/.kube/config, pass --kubeconfig PATH, or use --in-cluster.",
    );
  }

  for (const listener of options.listen ?? []) {
    set.add("net", parseListener(listener), "a webhook server listening there");
  }
  if (options.liveness) {
    const endpoint = hostPortOf(options.liveness);
    if (endpoint === undefined) {
      throw new CommandLineError(
        `--liveness is not a URL: ${
          JSON.stringify(options.liveness)
        }; use e.g. http://0.0.0.0:8080/healthz.`,
      );
    }
    set.add("net", endpoint, "the liveness endpoint");
  }
  if (options.metrics) {
    const url = /^[a-z]+:\/\//i.test(options.metrics)
      ? options.metrics
      : `http://${options.metrics}/metrics`;
    const endpoint = hostPortOf(url);
    if (endpoint === undefined) {
      throw new CommandLineError(
        `--metrics is not host:port: ${JSON.stringify(options.metrics)}; use e.g. 0.0.0.0:9090.`,
      );
    }
    set.add("net", endpoint, "the metrics endpoint");
  }
  await addOperatorModules(set, options.operatorFiles ?? []);
  return set;
}

/**
 * Operator modules are imported dynamically, so every local file of their import graph
 * needs read access -- except those the CLI itself loaded statically already.
 */
async function addOperatorModules(set: PermissionSet, files: readonly string[]): Promise<void> {
  if (files.length === 0) return;
  let loaded: Set<string>;
  try {
    // Only what the CLI loads statically is surely loaded before the operator.
    const cli = new URL("./main.ts", import.meta.url).href;
    loaded = new Set(await localModuleGraph(cli, { dynamic: false }));
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
      graph = await localModuleGraph(file, { dynamic: true });
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      throw new ConfigurationError(`Cannot read the operator module ${file}: ${reason}`, {
        cause: e,
      });
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

/** Add the kubeconfig's needs; `found: false` when there is no kubeconfig at all. */
async function addKubeconfig(
  set: PermissionSet,
  options: PermissionPlanOptions,
  env: (name: string) => string | undefined,
): Promise<{ found: boolean; insecure: boolean }> {
  const existing: string[] = [];
  for (const path of kubeconfigPaths(options, env)) {
    if (await pathExists(path)) {
      set.add("read", path, "the kubeconfig");
      existing.push(path);
    } else if (options.kubeconfig) {
      throw new ConfigurationError(
        `The kubeconfig ${path} does not exist; give an existing file.`,
      );
    } else {
      // Like kubectl, the login skips missing files, but it must be allowed to look.
      set.add("read", path, "a kubeconfig candidate (absent now)");
    }
  }
  if (existing.length === 0) return { found: false, insecure: false };

  // The client's own reading and merging, so that the plan sees what the login sees.
  let config: MergedKubeconfig;
  try {
    config = await loadKubeconfig(existing);
  } catch (error) {
    // The login's words for a broken file; here it is the configuration being planned for.
    if (error instanceof LoginError) throw new ConfigurationError(error.message, { cause: error });
    throw error;
  }
  const files = existing.join(", ");
  const contextName = options.context ?? config.currentContext;
  if (!contextName) {
    throw new ConfigurationError(
      `No current context in ${files}; pass --context NAME or run kubectl config use-context.`,
    );
  }
  const context = config.contexts.get(contextName);
  if (!context) {
    throw new ConfigurationError(`The context "${contextName}" is not defined in ${files}.`);
  }
  const clusterName = context.value.cluster ?? "";
  const cluster = config.clusters.get(clusterName);
  if (!cluster) {
    throw new ConfigurationError(
      `The context "${contextName}" refers to the cluster "${clusterName}", which is not defined in ${files}.`,
    );
  }
  const server = cluster.value.server;
  if (!server) {
    throw new ConfigurationError(`The cluster "${clusterName}" in ${cluster.file} has no server.`);
  }
  const serverHost = hostPortOf(server);
  if (serverHost === undefined) {
    throw new ConfigurationError(
      `The server of ${clusterName} is not a URL: ${
        JSON.stringify(server)
      }; use e.g. https://host:6443.`,
    );
  }
  set.add("net", serverHost, `the API server (${server})`);
  const ca = cluster.value["certificate-authority"];
  if (ca) set.add("read", resolvePath(directoryOf(cluster.file), ca), "the cluster's CA");
  // Skipping verification matters for HTTPS only: plain HTTP never loads undici.
  const result = {
    found: true,
    insecure: Boolean(cluster.value["insecure-skip-tls-verify"]) && server.startsWith("https:"),
  };

  const userName = context.value.user;
  if (!userName) return result;
  const user = config.users.get(userName);
  if (!user) {
    throw new ConfigurationError(
      `The context "${contextName}" refers to the user "${userName}", which is not defined in ${files}.`,
    );
  }
  const base = directoryOf(user.file);
  const paths: [string | undefined, string][] = [
    [user.value["client-certificate"], "the client certificate"],
    [user.value["client-key"], "the client key"],
    [user.value.tokenFile, "the token file"],
  ];
  for (const [path, reason] of paths) {
    if (path) set.add("read", resolvePath(base, path), reason);
  }
  const command = user.value.exec?.command;
  if (command) {
    // Like client-go: a command with a path separator is relative to the kubeconfig.
    const program = /[\\/]/.test(command) ? resolvePath(base, command) : command;
    set.add("run", program, "the exec credential plugin");
  }
  return result;
}

function kubeconfigPaths(
  options: PermissionPlanOptions,
  env: (name: string) => string | undefined,
): string[] {
  if (options.kubeconfig) return [options.kubeconfig];
  const list = env("KUBECONFIG");
  if (list) return [...new Set(list.split(pathListSeparator()).filter((p) => p !== ""))];
  const home = env("HOME") || env("USERPROFILE");
  return home ? [`${home.replace(/[\\/]+$/, "")}/.kube/config`] : [];
}

/**
 * `host:port` of a URL, with the scheme's default port, as `--allow-net` wants it;
 * `undefined` when it is not a URL (the callers say which value is wrong, and how).
 */
function hostPortOf(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const port = parsed.port || (parsed.protocol === "http:" ? "80" : "443");
  return `${parsed.hostname}:${port}`;
}

function parseListener(listener: string): string {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(listener);
  if (!m || Number(m[2]) > 65535) {
    throw new CommandLineError(
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
    .option("--metrics <host:port>", "the metrics endpoint, e.g. 0.0.0.0:9090")
    .option("--explain", "one flag per line, with the reason for each")
    .action(async (files, opts, self) => {
      try {
        const set = await planPermissions({
          kubeconfig: opts.kubeconfig,
          context: opts.context,
          inCluster: opts.inCluster,
          listen: opts.listen,
          liveness: opts.liveness,
          metrics: opts.metrics,
          operatorFiles: files,
        });
        console.log(formatPermissions(set, Boolean(opts.explain)));
      } catch (e) {
        self.error(failureText("permissions", e), { exitCode: exitCodeFor(e) });
      }
    });
  return command as unknown as Command;
}
