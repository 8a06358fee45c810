/**
 * Login inside a pod, with its service account: the API server from
 * `KUBERNETES_SERVICE_HOST`/`KUBERNETES_SERVICE_PORT`, the mounted token (re-read when
 * the kubelet rotates it), the cluster's CA and the pod's namespace.
 *
 * @module
 */
import type { LoginOptions } from "../structs/credentials.ts";
import type { ConnectionInfo } from "../structs/credentials.ts";
import { LoginError } from "../structs/errors.ts";
import { pathExists, readTextFileIfExists, resolvePath } from "../platform/files.ts";
import { getEnv } from "../platform/process.ts";

/** Where Kubernetes mounts the service account's token, CA and namespace. */
export const SERVICE_ACCOUNT_DIRECTORY = "/var/run/secrets/kubernetes.io/serviceaccount";

/**
 * Log in with the pod's service account. Returns `undefined` outside a pod (no token
 * file). The token file is named in the credentials, so that a rotated token is picked
 * up without logging in again.
 *
 * Usable directly as a login handler: `kopf.on.login(loginWithServiceAccount)`.
 *
 * @example In the cluster, always the pod's service account, whatever kubeconfig is around
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.login(kopf.loginWithServiceAccount);
 * ```
 */
export async function loginWithServiceAccount(
  options: Pick<LoginOptions, "logger" | "directory"> = {},
): Promise<ConnectionInfo | undefined> {
  const directory = typeof options.directory === "string" && options.directory
    ? options.directory
    : SERVICE_ACCOUNT_DIRECTORY;
  const tokenPath = resolvePath(directory, "token");
  const token = (await readTextFileIfExists(tokenPath))?.trim();
  if (token === undefined) return undefined;
  if (!token) {
    throw new LoginError(`The service-account token ${tokenPath} is empty.`);
  }
  const host = getEnv("KUBERNETES_SERVICE_HOST") || "kubernetes.default.svc";
  const port = getEnv("KUBERNETES_SERVICE_PORT") || "443";
  const server = `https://${host.includes(":") ? `[${host}]` : host}:${port}`;
  const caPath = resolvePath(directory, "ca.crt");
  const namespace = (await readTextFileIfExists(resolvePath(directory, "namespace")))?.trim();
  return {
    server,
    token,
    tokenPath,
    source: `the pod's service account (${tokenPath})`,
    ...((await pathExists(caPath)) ? { caPath } : {}),
    ...(namespace ? { defaultNamespace: namespace } : {}),
  };
}
