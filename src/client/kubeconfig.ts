/**
 * Login with kubeconfig files, the way kubectl reads them.
 *
 * - The files: the `kubeconfig` option, else `KUBECONFIG` (a path list, merged), else
 *   `~/.kube/config`. In a merge, the first file to define a cluster, user or context
 *   name wins, and the current context comes from the first file that sets one.
 * - The context: the `context` option, else the current context; its namespace becomes
 *   the default namespace.
 * - The YAML is read as kubectl reads it: `insecure-skip-tls-verify: no` is false, and a
 *   quoted `"false"` (or a number) where a boolean belongs refuses the file, as kubectl
 *   does (see `kubeconfig_entries.ts`).
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
import type { LoginOptions } from "../structs/credentials.ts";
import { getLogger } from "../platform/log_routing.ts";
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
import { runExecPlugin } from "./exec_credentials.ts";
import { substituteLogin } from "./login_substitute.ts";
import {
  type ClusterEntry,
  type ContextEntry,
  decodeKubeconfig,
  parseKubeconfigYaml,
  type UserEntry,
} from "./kubeconfig_entries.ts";

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
      doc = await parseKubeconfigYaml(text);
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
    const entries = decodeKubeconfig(doc, file);
    addEntries(merged.clusters, entries.clusters, file);
    addEntries(merged.users, entries.users, file);
    addEntries(merged.contexts, entries.contexts, file);
    merged.currentContext ??= entries.currentContext;
  }
  return merged;
}

/** Add the entries not defined yet: in a merge, the first file to define a name wins. */
function addEntries<T>(
  target: Map<string, Sourced<T>>,
  entries: readonly [string, T][],
  file: string,
): void {
  for (const [name, value] of entries) if (!target.has(name)) target.set(name, { value, file });
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
  const { name, context, cluster, userName, user } = resolveContext(config, contextName);
  const info = clusterConnection(cluster, context, name, userName);
  if (user && userName) await addUserCredentials(info, user, userName, cluster);
  return info;
}

/** The context's entries: its own, its cluster's, and its user's (if it names one). */
interface ResolvedContext {
  name: string;
  context: Sourced<ContextEntry>;
  cluster: Named<ClusterEntry>;
  userName: string | undefined;
  user: Sourced<UserEntry> | undefined;
}

/** An entry with its name and file. */
interface Named<T> extends Sourced<T> {
  name: string;
}

function resolveContext(config: MergedKubeconfig, contextName?: string): ResolvedContext {
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
  const userName = context.value.user || undefined;
  const user = userName ? config.users.get(userName) : undefined;
  if (userName && !user) {
    throw new LoginError(
      `The context "${name}" in ${context.file} refers to the user "${userName}", ` +
        `which is not defined in the kubeconfig ${files}.`,
    );
  }
  return { name, context, cluster: { ...cluster, name: clusterName }, userName, user };
}

/** The connection to the context's cluster: server, CA, insecure mode, namespace. */
function clusterConnection(
  cluster: Named<ClusterEntry>,
  context: Sourced<ContextEntry>,
  contextName: string,
  userName: string | undefined,
): Mutable<ConnectionInfo> {
  const c = cluster.value;
  const clusterWhere = `The cluster "${cluster.name}" in ${cluster.file}`;
  if (!c.server) throw new LoginError(`${clusterWhere} has no server.`);
  oneOf(
    c as Record<string, unknown>,
    "certificate-authority",
    "certificate-authority-data",
    clusterWhere,
  );
  const info: Mutable<ConnectionInfo> = {
    server: c.server,
    source: `the context "${contextName}"${
      userName ? ` (user "${userName}")` : ""
    } of ${context.file}`,
  };
  if (c["certificate-authority"]) {
    info.caPath = resolvePath(directoryOf(cluster.file), c["certificate-authority"]);
  }
  if (c["certificate-authority-data"]) {
    info.caData = decodeBase64(
      c["certificate-authority-data"],
      `certificate-authority-data of cluster "${cluster.name}"`,
      cluster.file,
    );
  }
  if (c["insecure-skip-tls-verify"] === true) info.insecure = true;
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
  return info;
}

/** The user's credentials: certificates, tokens, basic auth, auth-provider, exec plugin. */
async function addUserCredentials(
  info: Mutable<ConnectionInfo>,
  user: Sourced<UserEntry>,
  userName: string,
  cluster: Named<ClusterEntry>,
): Promise<void> {
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
    info.username = u.username ?? "";
    info.password = u.password ?? "";
  }
  if (u["auth-provider"]) addAuthProviderToken(info, u["auth-provider"], userWhere);
  if (u.exec) await addExecCredentials(info, user, userName, cluster);
}

/** The token that a legacy `auth-provider` entry keeps in the file. */
function addAuthProviderToken(
  info: Mutable<ConnectionInfo>,
  provider: NonNullable<UserEntry["auth-provider"]>,
  userWhere: string,
): void {
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

/** The credentials that the user's exec plugin prints. */
async function addExecCredentials(
  info: Mutable<ConnectionInfo>,
  user: Sourced<UserEntry>,
  userName: string,
  cluster: Named<ClusterEntry>,
): Promise<void> {
  const c = cluster.value;
  const credentials = await runExecPlugin(user.value.exec!, {
    file: user.file,
    directory: directoryOf(user.file),
    user: userName,
    cluster: {
      server: c.server!,
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

/**
 * `loginWithKubeconfig()` as `client/login.ts` documents it, which loads this module at its
 * first call.
 */
export async function loginWithKubeconfig(
  options: Pick<LoginOptions, "logger" | "kubeconfig" | "context"> = {},
): Promise<ConnectionInfo | undefined> {
  const explicit = options.kubeconfig;
  if (explicit !== undefined && typeof explicit !== "string" && !Array.isArray(explicit)) {
    throw new LoginError("The kubeconfig option must be a path or a list of paths.");
  }
  const substitute = explicit === undefined ? substituteLogin() : undefined;
  if (substitute !== undefined) return await substitute();
  const context = typeof options.context === "string" && options.context
    ? options.context
    : undefined;
  const files = await kubeconfigFiles(explicit);
  if (!files) return undefined;
  return await connectionFromKubeconfig(await loadKubeconfig(files), context);
}
