/**
 * How clients reach the cluster: kubeconfigs that kubectl, `@kubernetes/client-node` and
 * Python's `kubernetes` client take as they are, and the connection info of our client.
 *
 * @module
 */
import { stringify as toYaml } from "yaml";
import type { ConnectionInfo } from "../../structs/credentials.ts";
import type { CertificatePem } from "../../platform/certificates.ts";

/** Where the cluster is and how it is trusted. */
export interface ClusterEndpoint {
  /** The base URL. */
  readonly url: string;
  /** The CA's certificate, with HTTPS. */
  readonly caCertificate?: string;
}

/** Who logs in: a bearer token, a client certificate, or both. */
export interface ClusterLogin {
  readonly token?: string;
  readonly clientCertificate?: CertificatePem;
}

/**
 * A kubeconfig (YAML) with these credentials: over HTTPS it carries the CA; over plain
 * HTTP it says `insecure-skip-tls-verify: true`, without which `@kubernetes/client-node`
 * refuses plain-HTTP servers (there is no TLS to verify either way).
 */
export function kubeconfigOf(endpoint: ClusterEndpoint, login: ClusterLogin): string {
  const user: Record<string, string> = {};
  if (login.token !== undefined) user.token = login.token;
  if (login.clientCertificate) {
    user["client-certificate-data"] = btoa(login.clientCertificate.certPem);
    user["client-key-data"] = btoa(login.clientCertificate.keyPem);
  }
  const cluster: Record<string, string | boolean> = { server: endpoint.url };
  if (endpoint.caCertificate) {
    cluster["certificate-authority-data"] = btoa(endpoint.caCertificate);
  } else {
    cluster["insecure-skip-tls-verify"] = true;
  }
  return toYaml({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "fake-cluster", cluster }],
    users: [{ name: "fake-user", user }],
    contexts: [{
      name: "fake-cluster",
      context: { cluster: "fake-cluster", user: "fake-user", namespace: "default" },
    }],
    "current-context": "fake-cluster",
    preferences: {},
  });
}

/** The connection info of our client with these credentials. */
export function connectionInfoOf(
  endpoint: ClusterEndpoint,
  login: ClusterLogin,
  source: string,
): ConnectionInfo {
  const { token, clientCertificate } = login;
  return {
    server: endpoint.url,
    ...(endpoint.caCertificate ? { caData: endpoint.caCertificate } : {}),
    ...(token !== undefined ? { token, scheme: "Bearer" } : {}),
    ...(clientCertificate
      ? { certificateData: clientCertificate.certPem, privateKeyData: clientCertificate.keyPem }
      : {}),
    defaultNamespace: "default",
    source,
  };
}
