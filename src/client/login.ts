/**
 * The default login, used when an operator registers no login handlers: the pod's
 * service account when running in a cluster, else the kubeconfig. The kubeconfig's reader
 * (`kubeconfig.ts`: its files, contexts and credential plugins) loads at the first login
 * with a kubeconfig: an operator in a pod, or with login handlers of its own, does without.
 *
 * @module
 */
import type { ConnectionInfo, LoginOptions } from "../structs/credentials.ts";
import { outsideContexts } from "../platform/async_context.ts";
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

/**
 * Log in with kubeconfig files: `KUBECONFIG` (merged) or `~/.kube/config`, or the files
 * and context given. Returns `undefined` when there is no kubeconfig at all; raises
 * a `LoginError` with one clear line when one exists but is unusable. Without files
 * given, in an operator that `KopfRunner` runs against a test's cluster, it returns that
 * cluster's credentials instead.
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
  options: Pick<LoginOptions, "logger" | "kubeconfig" | "context"> = {},
): Promise<ConnectionInfo | undefined> {
  const kubeconfig = await outsideContexts(() => import("./kubeconfig.ts"));
  return await kubeconfig.loginWithKubeconfig(options);
}
