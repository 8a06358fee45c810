/**
 * The default login, used when an operator registers no login handlers: the pod's
 * service account when running in a cluster, else the kubeconfig.
 *
 * @module
 */
import type { ConnectionInfo, LoginOptions } from "../structs/credentials.ts";
import { loginWithKubeconfig } from "./kubeconfig.ts";
import { loginWithServiceAccount } from "./service_account.ts";
import { substituteLogin } from "./login_substitute.ts";

/**
 * Log in with the service account if running in a pod, else with the kubeconfig.
 * Returns `undefined` when neither is available. In an operator that `KopfRunner` runs
 * against a test's cluster, it returns that cluster's credentials instead.
 *
 * @example Add a fallback after the usual logins: a token from a mounted file
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.login(async () => {
 *   const found = await kopf.loginWithDefaults();
 *   if (found !== undefined) return found;
 *   const token = await Deno.readTextFile("/etc/operator/token").catch(() => undefined);
 *   return token === undefined ? undefined : { server: "https://k8s.example.com", token };
 * });
 * ```
 */
export async function loginWithDefaults(
  options: LoginOptions = {},
): Promise<ConnectionInfo | undefined> {
  const substitute = substituteLogin();
  if (substitute !== undefined) return await substitute();
  return (await loginWithServiceAccount(options)) ?? (await loginWithKubeconfig(options));
}
