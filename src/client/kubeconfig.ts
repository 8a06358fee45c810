/**
 * Login with kubeconfig files, the way kubectl reads them.
 *
 * - The files: the `kubeconfig` option, else `KUBECONFIG` (a path list, merged), else
 *   `~/.kube/config`. In a merge, the first file to define a cluster, user or context
 *   name wins, and the current context comes from the first file that sets one.
 * - The context: the `context` option, else the current context; its namespace becomes
 *   the default namespace.
 * - Clusters: server, CA as a path or data, `insecure-skip-tls-verify`.
 * - Users: client certificate and key as paths or data, token, `tokenFile` (re-read when
 *   it changes), username/password, exec credential plugins (with expiry), and the
 *   tokens that legacy `auth-provider` entries keep in the file.
 * - Relative paths are relative to the file that defines the entry.
 *
 * Every problem is one {@link LoginError} line that names the file and what to fix.
 *
 * @module
 */
import type { LoginFunctionOptions } from "../structs/credentials.ts";
import { getLogger } from "@logtape/logtape";
import type { ConnectionInfo } from "../structs/credentials.ts";
import { isMapping } from "../structs/dicts.ts";
import { LoginError } from "../structs/errors.ts";
import {
  directoryOf,
  homeDirectory,
  pathExists,
  pathListSeparator,
  readTextFile,
  readTextFileIfExists,
  resolvePath,
} from "../platform/files.ts";
import { findMissingPermission } from "../platform/permission_flags.ts";
import { getEnv } from "../platform/process.ts";
import { type ExecConfig, runExecPlugin } from "./exec_credentials.ts";

/** Options of {@link loginWithKubeconfig}; handler arguments are accepted and ignored. */
export interface KubeconfigLoginOptions extends LoginFunctionOptions {
  /** The kubeconfig file(s), instead of `KUBECONFIG` or `~/.kube/config`. */
  kubeconfig?: string | readonly string[];
  /** The context to use instead of the current one. */
  context?: string;
}

/** A named entry and the file that defined it. */
interface Sourced<T> {
  value: T;
  file: string;
}

/** Several kubeconfig files merged as kubectl merges them. */
export interface MergedKubeconfig {
  /** The files, in order. */
  files: string[];
  /** The current context (from the first file that sets one). */
  currentContext?: string;
  /** Clusters by name. */
  clusters: Map<string, Sourced<ClusterEntry>>;
  /** Users by name. */
  users: Map<string, Sourced<UserEntry>>;
  /** Contexts by name. */
  contexts: Map<string, Sourced<ContextEntry>>;
}

interface ClusterEntry {
  server?: string;
  "certificate-authority"?: string;
  "certificate-authority-data"?: string;
  "insecure-skip-tls-verify"?: boolean;
  "tls-server-name"?: string;
  "proxy-url"?: string;
  extensions?: { name?: string; extension?: unknown }[];
}

interface UserEntry {
  "client-certificate"?: string;
  "client-certificate-data"?: string;
  "client-key"?: string;
  "client-key-data"?: string;
  token?: string;
  tokenFile?: string;
  username?: string;
  password?: string;
  exec?: ExecConfig;
  "auth-provider"?: { name?: string; config?: Record<string, string> };
}

interface ContextEntry {
  cluster?: string;
  user?: string;
  namespace?: string;
}

const logger = getLogger(["kopf", "client", "kubeconfig"]);

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function firstLine(text: string): string {
  return text.split("\n").map((l) => l.trim()).find((l) => l) ?? text;
}

/** The kubeconfig files to read: explicit, from `KUBECONFIG`, or the default one. */
async function kubeconfigFiles(
  explicit: string | readonly string[] | undefined,
): Promise<string[] | undefined> {
  if (explicit !== undefined) {
    const files = (typeof explicit === "string" ? [explicit] : [...explicit]).filter((f) => f);
    for (const file of files) {
      if (!(await pathExists(file))) {
        throw new LoginError(`The kubeconfig ${file} does not exist; give an existing file.`);
      }
    }
    return files;
  }
  const env = getEnv("KUBECONFIG");
  if (env) {
    const listed = env.split(pathListSeparator()).filter((f) => f);
    const existing: string[] = [];
    for (const file of listed) if (await pathExists(file)) existing.push(file);
    if (existing.length === 0) {
      throw new LoginError(
        `The kubeconfig ${listed.join(", ")} (from KUBECONFIG) does not exist; ` +
          `fix KUBECONFIG or unset it to use ~/.kube/config.`,
      );
    }
    return existing; // kubectl skips missing files in the list, too
  }
  const home = homeDirectory();
  if (!home) return undefined;
  const file = resolvePath(home, ".kube/config");
  return (await pathExists(file)) ? [file] : undefined;
}

function namedEntries(
  doc: Record<string, unknown>,
  section: string,
  inner: string,
  file: string,
): [string, Record<string, unknown>][] {
  const list = doc[section];
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) {
    throw new LoginError(`The kubeconfig ${file} is invalid: "${section}" must be a list.`);
  }
  return list.map((item, i) => {
    if (!isMapping(item) || typeof item.name !== "string" || !item.name) {
      throw new LoginError(`The kubeconfig ${file} is invalid: ${section}[${i}] has no name.`);
    }
    const value = item[inner] ?? {};
    if (!isMapping(value)) {
      throw new LoginError(
        `The kubeconfig ${file} is invalid: "${inner}" of ${section} "${item.name}" must be a mapping.`,
      );
    }
    return [item.name, value];
  });
}

/** Read and merge kubeconfig files (first definition of a name wins). */
export async function loadKubeconfig(files: readonly string[]): Promise<MergedKubeconfig> {
  const merged: MergedKubeconfig = {
    files: [...files],
    clusters: new Map(),
    users: new Map(),
    contexts: new Map(),
  };
  for (const file of files) {
    let text: string;
    try {
      text = await readTextFile(file);
    } catch (e) {
      if (findMissingPermission(e)) throw e;
      throw new LoginError(`Cannot read the kubeconfig ${file}: ${(e as Error).message}`);
    }
    let doc: unknown;
    try {
      // Loaded on first use: ~9 MB of memory that operators without a kubeconfig (in a
      // pod, or with a login handler of their own) never need.
      const { parse: parseYaml } = await import("yaml");
      doc = parseYaml(text);
    } catch (e) {
      // The YAML library reads its debug variables: a missing --allow-env is no YAML error.
      if (findMissingPermission(e)) throw e;
      throw new LoginError(
        `The kubeconfig ${file} is not valid YAML: ${firstLine((e as Error).message)}`,
      );
    }
    if (doc === null || doc === undefined) continue; // an empty file adds nothing
    if (!isMapping(doc)) {
      throw new LoginError(`The kubeconfig ${file} is invalid: its top level must be a mapping.`);
    }
    const sections = [
      ["clusters", "cluster", merged.clusters],
      ["users", "user", merged.users],
      ["contexts", "context", merged.contexts],
    ] as const;
    for (const [section, inner, target] of sections) {
      for (const [name, value] of namedEntries(doc, section, inner, file)) {
        if (!target.has(name)) target.set(name, { value, file } as never);
      }
    }
    const current = doc["current-context"];
    if (merged.currentContext === undefined && typeof current === "string" && current) {
      merged.currentContext = current;
    }
  }
  return merged;
}

function decodeBase64(data: string, what: string, file: string): string {
  try {
    const binary = atob(data.replace(/\s+/g, ""));
    return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    throw new LoginError(`The ${what} in ${file} is not valid base64.`);
  }
}

function oneOf(
  entry: Record<string, unknown>,
  pathKey: string,
  dataKey: string,
  where: string,
): void {
  if (entry[pathKey] && entry[dataKey]) {
    throw new LoginError(`${where} has both ${pathKey} and ${dataKey}; keep only one.`);
  }
}

/**
 * Build credentials from merged kubeconfigs for a context (the current one by default).
 * Runs the exec plugin if the user has one.
 */
export async function connectionFromKubeconfig(
  config: MergedKubeconfig,
  contextName?: string,
): Promise<ConnectionInfo> {
  const files = config.files.join(", ");
  const name = contextName ?? config.currentContext;
  if (!name) {
    throw new LoginError(
      `No current-context is set in the kubeconfig ${files}; ` +
        `run "kubectl config use-context NAME" or pass a context.`,
    );
  }
  const context = config.contexts.get(name);
  if (!context) {
    throw new LoginError(`The context "${name}" is not defined in the kubeconfig ${files}.`);
  }
  const clusterName = context.value.cluster;
  if (!clusterName) {
    throw new LoginError(`The context "${name}" in ${context.file} names no cluster.`);
  }
  const cluster = config.clusters.get(clusterName);
  if (!cluster) {
    throw new LoginError(
      `The context "${name}" in ${context.file} refers to the cluster "${clusterName}", ` +
        `which is not defined in the kubeconfig ${files}.`,
    );
  }
  const userName = context.value.user;
  const user = userName ? config.users.get(userName) : undefined;
  if (userName && !user) {
    throw new LoginError(
      `The context "${name}" in ${context.file} refers to the user "${userName}", ` +
        `which is not defined in the kubeconfig ${files}.`,
    );
  }

  const c = cluster.value;
  const clusterWhere = `The cluster "${clusterName}" in ${cluster.file}`;
  if (typeof c.server !== "string" || !c.server) {
    throw new LoginError(`${clusterWhere} has no server.`);
  }
  oneOf(
    c as Record<string, unknown>,
    "certificate-authority",
    "certificate-authority-data",
    clusterWhere,
  );
  const clusterDir = directoryOf(cluster.file);
  const info: Mutable<ConnectionInfo> = {
    server: c.server,
    source: `the context "${name}"${userName ? ` (user "${userName}")` : ""} of ${context.file}`,
  };
  if (c["certificate-authority"]) {
    info.caPath = resolvePath(clusterDir, c["certificate-authority"]);
  }
  if (c["certificate-authority-data"]) {
    info.caData = decodeBase64(
      c["certificate-authority-data"],
      `certificate-authority-data of cluster "${clusterName}"`,
      cluster.file,
    );
  }
  if (c["insecure-skip-tls-verify"]) info.insecure = true;
  for (const key of ["proxy-url", "tls-server-name"] as const) {
    if (c[key]) {
      logger.warn("{where} sets {key}, which is not supported: connecting to {server} directly.", {
        where: clusterWhere,
        key,
        server: c.server,
      });
    }
  }
  if (context.value.namespace) info.defaultNamespace = context.value.namespace;

  if (user && userName) {
    const u = user.value;
    const userWhere = `The user "${userName}" in ${user.file}`;
    const userDir = directoryOf(user.file);
    oneOf(u as Record<string, unknown>, "client-certificate", "client-certificate-data", userWhere);
    oneOf(u as Record<string, unknown>, "client-key", "client-key-data", userWhere);
    if (u["client-certificate"]) {
      info.certificatePath = resolvePath(userDir, u["client-certificate"]);
    }
    if (u["client-key"]) info.privateKeyPath = resolvePath(userDir, u["client-key"]);
    if (u["client-certificate-data"]) {
      info.certificateData = decodeBase64(
        u["client-certificate-data"],
        `client-certificate-data of user "${userName}"`,
        user.file,
      );
    }
    if (u["client-key-data"]) {
      info.privateKeyData = decodeBase64(
        u["client-key-data"],
        `client-key-data of user "${userName}"`,
        user.file,
      );
    }
    if (u.token) info.token = u.token;
    if (u.tokenFile) {
      const path = resolvePath(userDir, u.tokenFile);
      const token = await readTextFileIfExists(path);
      if (token === undefined) {
        throw new LoginError(`${userWhere} has the tokenFile ${path}, which does not exist.`);
      }
      info.tokenPath = path;
      info.token = token.trim();
    }
    if (u.username !== undefined || u.password !== undefined) {
      info.username = String(u.username ?? "");
      info.password = String(u.password ?? "");
    }
    if (u["auth-provider"]) {
      const provider = u["auth-provider"];
      const token = provider.config?.["id-token"] ?? provider.config?.["access-token"];
      if (!token) {
        throw new LoginError(
          `${userWhere} uses the auth-provider "${provider.name ?? "?"}" with no stored token; ` +
            `switch it to an exec plugin or log in with loginViaClient.`,
        );
      }
      info.token = token;
      const expiry = provider.config?.["expiry"];
      if (expiry && !Number.isNaN(new Date(expiry).getTime())) info.expiration = new Date(expiry);
    }
    if (u.exec) {
      const credentials = await runExecPlugin(u.exec, {
        file: user.file,
        directory: userDir,
        user: userName,
        cluster: {
          server: c.server,
          ...(c["certificate-authority-data"]
            ? { "certificate-authority-data": c["certificate-authority-data"] }
            : {}),
          ...(c["insecure-skip-tls-verify"] ? { "insecure-skip-tls-verify": true } : {}),
          ...(c["tls-server-name"] ? { "tls-server-name": c["tls-server-name"] } : {}),
          ...(c["proxy-url"] ? { "proxy-url": c["proxy-url"] } : {}),
          config: c.extensions?.find((e) => e?.name === "client.authentication.k8s.io/exec")
            ?.extension,
        },
        timeout: 120,
      });
      if (credentials.token) info.token = credentials.token;
      if (credentials.certificateData) {
        info.certificateData = credentials.certificateData;
        info.privateKeyData = credentials.privateKeyData;
        delete info.certificatePath;
        delete info.privateKeyPath;
      }
      if (credentials.expiration) info.expiration = credentials.expiration;
    }
  }
  return info;
}

/**
 * Log in with kubeconfig files: `KUBECONFIG` (merged) or `~/.kube/config`, or the files
 * and context given. Returns `undefined` when there is no kubeconfig at all; raises
 * {@link LoginError} with one clear line when one exists but is unusable.
 *
 * Usable directly as a login handler: `kopf.on.login(loginWithKubeconfig)`.
 *
 * @example Log in with a context of one's choice, from an operator-specific file
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.login(() =>
 *   kopf.loginWithKubeconfig({
 *     kubeconfig: "/etc/operator/kubeconfig",
 *     context: "production",
 *   })
 * );
 * ```
 */
export async function loginWithKubeconfig(
  options: KubeconfigLoginOptions = {},
): Promise<ConnectionInfo | undefined> {
  const explicit = options.kubeconfig;
  if (explicit !== undefined && typeof explicit !== "string" && !Array.isArray(explicit)) {
    throw new LoginError("The kubeconfig option must be a path or a list of paths.");
  }
  const context = typeof options.context === "string" && options.context
    ? options.context
    : undefined;
  const files = await kubeconfigFiles(explicit);
  if (!files) return undefined;
  return await connectionFromKubeconfig(await loadKubeconfig(files), context);
}
