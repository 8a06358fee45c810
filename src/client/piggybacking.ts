/**
 * Login by piggybacking on `@kubernetes/client-node`: its kubeconfig loading and
 * authenticators (cloud providers, OIDC, exec plugins with caching) produce the
 * credentials; only what the API calls need is taken from it. The package is heavy and
 * optional, so it is imported only when this login runs.
 *
 * @module
 */
import type { LoginOptions } from "../structs/credentials.ts";
import type { ConnectionInfo } from "../structs/credentials.ts";
import { LoginError } from "../structs/errors.ts";
import { findMissingPermission } from "../platform/permission_flags.ts";
import { outsideContexts } from "../platform/async_context.ts";

type ClientNode = typeof import("@kubernetes/client-node");
type HttpsOptions = Parameters<InstanceType<ClientNode["KubeConfig"]>["applyToHTTPSOptions"]>[0];

function text(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return value.map((v) => String(v)).join("\n");
  return String(value); // Buffers print as their UTF-8 text (PEM)
}

/**
 * Log in the way `@kubernetes/client-node` does (`KubeConfig.loadFromDefault()`: the
 * in-cluster service account, `KUBECONFIG` or `~/.kube/config`). Returns `undefined`
 * when it finds no cluster.
 *
 * Usable directly as a login handler: `kopf.on.login(loginViaClient)`.
 *
 * @example Log in exactly as the operator's own calls with the Kubernetes JS client do
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.login(kopf.loginViaClient);
 * ```
 */
export async function loginViaClient(
  options: Pick<LoginOptions, "logger" | "context"> = {},
): Promise<ConnectionInfo | undefined> {
  let k8s: ClientNode;
  try {
    k8s = await outsideContexts(() => import("@kubernetes/client-node"));
  } catch (e) {
    if (findMissingPermission(e)) throw e; // named at the top, with the flag to add
    // Loaded only to say so: its `node:path`/`node:url` cost every operator's start-up.
    const { optionalPackageMessage } = await outsideContexts(() =>
      import("../platform/modules.ts")
    );
    throw new LoginError(
      optionalPackageMessage("loginViaClient", "@kubernetes/client-node", e, "loginWithKubeconfig"),
      { cause: e },
    );
  }
  const config = new k8s.KubeConfig();
  try {
    config.loadFromDefault();
    if (typeof options.context === "string" && options.context) {
      config.setCurrentContext(options.context);
    }
  } catch (e) {
    if (findMissingPermission(e)) throw e; // named at the top, with the flag to add
    throw new LoginError(
      `@kubernetes/client-node cannot load the kubeconfig: ${(e as Error).message}`,
    );
  }
  const cluster = config.getCurrentCluster();
  if (!cluster?.server) return undefined;
  const https: Record<string, unknown> = {};
  try {
    await config.applyToHTTPSOptions(https as HttpsOptions);
  } catch (e) {
    if (findMissingPermission(e)) throw e; // named at the top, with the flag to add
    throw new LoginError(
      `@kubernetes/client-node cannot authenticate to ${cluster.server}: ${(e as Error).message}`,
    );
  }
  const headers = (https.headers ?? {}) as Record<string, unknown>;
  const authorization = text(headers["Authorization"] ?? headers["authorization"]);
  const [scheme, ...rest] = (authorization ?? "").split(" ");
  const auth = text(https.auth);
  const colon = auth?.indexOf(":") ?? -1;
  const namespace = config.getContextObject(config.getCurrentContext())?.namespace;
  const info: { -readonly [K in keyof ConnectionInfo]: ConnectionInfo[K] } = {
    server: cluster.server,
    source: `the context "${config.getCurrentContext()}" of @kubernetes/client-node`,
  };
  const ca = text(https.ca);
  if (ca) info.caData = ca;
  if (cluster.skipTLSVerify || https.rejectUnauthorized === false) info.insecure = true;
  const cert = text(https.cert);
  const key = text(https.key);
  if (cert && key) {
    info.certificateData = cert;
    info.privateKeyData = key;
  }
  if (authorization && rest.length) {
    info.scheme = scheme;
    info.token = rest.join(" ");
  }
  if (auth && colon >= 0) {
    info.username = auth.slice(0, colon);
    info.password = auth.slice(colon + 1);
  }
  if (namespace) info.defaultNamespace = namespace;
  return info;
}
