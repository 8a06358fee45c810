/**
 * Before `kopf run` starts an operator: is there any way to log into a cluster at all?
 * Without one, the operator would only wait for credentials forever, so the command
 * stops at once with one line saying where it looked and what to do.
 *
 * @module
 */
import { pathExists } from "../platform/files.ts";
import { getEnv } from "../platform/process.ts";
import { matcherOf, type OperatorRegistry } from "../intents/registry.ts";
import { SERVICE_ACCOUNT_DIRECTORY } from "../client/service_account.ts";
import { fakeClusterHint, type ProjectContext, projectContext } from "./project_context.ts";

/** One place where credentials were looked for, and whether it has them. */
export interface CredentialSource {
  /** What was checked, e.g. `KUBECONFIG=/x/config` or `in-cluster service account`. */
  readonly where: string;
  /** Whether usable credentials may come from there. */
  readonly found: boolean;
  /** Why not, when not found (e.g. `unset`, `no such file`). */
  readonly why?: string;
}

/** The environment and files the check looks at; the process's own by default. */
export interface CredentialProbe {
  /** The kubeconfig file given on the command line, which replaces KUBECONFIG. */
  readonly kubeconfig?: string;
  /** Reads an environment variable. */
  readonly env?: (name: string) => string | undefined;
  /** Tells whether a file exists. */
  readonly exists?: (path: string) => Promise<boolean>;
  /** Where the command runs, for the fake cluster it suggests; the current directory's. */
  readonly project?: ProjectContext;
}

/** Where the built-in logins (kubeconfig, in-cluster service account) would look. */
export async function findCredentialSources(
  probe: CredentialProbe = {},
): Promise<CredentialSource[]> {
  const env = probe.env ?? getEnv;
  const exists = probe.exists ?? pathExists;
  const sources: CredentialSource[] = [];
  const list = env("KUBECONFIG");
  const host = env("KUBERNETES_SERVICE_HOST");
  const token = `${SERVICE_ACCOUNT_DIRECTORY}/token`;
  const inCluster = Boolean(host) && await exists(token);
  const serviceAccount: CredentialSource = {
    where: "in-cluster service account",
    found: inCluster,
    why: inCluster ? undefined : host ? `no ${token}` : "KUBERNETES_SERVICE_HOST unset",
  };
  // In a pod, the default login takes the service account first; looking at the home
  // directory's kubeconfig there would need a read permission the pod never uses.
  if (inCluster && probe.kubeconfig === undefined && !list) return [serviceAccount];
  if (probe.kubeconfig !== undefined) {
    const found = await exists(probe.kubeconfig);
    sources.push({
      where: `--kubeconfig ${probe.kubeconfig}`,
      found,
      why: found ? undefined : "missing",
    });
  } else if (list) {
    for (const path of new Set(list.split(/[:;]/).filter((p) => p !== ""))) {
      const found = await exists(path);
      sources.push({ where: `KUBECONFIG file ${path}`, found, why: found ? undefined : "missing" });
    }
  } else {
    const home = env("HOME") || env("USERPROFILE");
    const path = home ? `${home.replace(/[\\/]+$/, "")}/.kube/config` : undefined;
    const found = path !== undefined && await exists(path);
    sources.push({
      where: path ?? "~/.kube/config",
      found,
      why: found ? undefined : path ? "missing" : "no home directory",
    });
  }
  sources.push(serviceAccount);
  return sources;
}

/**
 * The one-line reason why the operator cannot log in, or `undefined` when it may: the
 * registry has login handlers of its own, or a built-in login has something to use.
 */
export async function missingCredentials(
  registry: OperatorRegistry,
  probe: CredentialProbe = {},
): Promise<string | undefined> {
  if (matcherOf(registry).activityHandlers("login").length > 0) return undefined;
  const sources = await findCredentialSources(probe);
  if (sources.some((s) => s.found)) return undefined;
  const tried = sources.map((s) => `${s.where} (${s.why})`).join(", ");
  const project = probe.project ?? await projectContext();
  return `No Kubernetes credentials found; tried ${tried}. ` +
    "Set KUBECONFIG or pass --kubeconfig, run in a pod with a service account, " +
    `or add a kopf.on.login() handler \u2014 ${fakeClusterHint(project)}.`;
}
