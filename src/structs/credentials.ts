/**
 * Connection credentials, as produced by login handlers and consumed by the client.
 *
 * @module
 */

/**
 * Everything needed to reach and authenticate to a Kubernetes API server.
 *
 * Login handlers return it; the credentials vault keeps it; the client turns it into
 * requests. Certificate and key data are PEM text; paths are read when connecting.
 */
export interface ConnectionInfo {
  /** The API server's base URL, e.g. `https://10.0.0.1:6443`. */
  readonly server: string;
  /** A file with the PEM-encoded CA certificate(s) to trust. */
  readonly caPath?: string;
  /** PEM-encoded CA certificate(s) to trust. */
  readonly caData?: string;
  /** Skip the verification of the server's certificate (`insecure-skip-tls-verify`). */
  readonly insecure?: boolean;
  /** The user name for HTTP basic authentication. */
  readonly username?: string;
  /** The password for HTTP basic authentication. */
  readonly password?: string;
  /** The authorization scheme for the token, `Bearer` when omitted. */
  readonly scheme?: string;
  /** The token for the `Authorization` header. */
  readonly token?: string;
  /**
   * A file with the token, re-read whenever it changes (service-account tokens rotate);
   * when readable, it wins over `token`.
   */
  readonly tokenPath?: string;
  /** A file with the PEM-encoded client certificate. */
  readonly certificatePath?: string;
  /** The PEM-encoded client certificate. */
  readonly certificateData?: string;
  /** A file with the PEM-encoded client private key. */
  readonly privateKeyPath?: string;
  /** The PEM-encoded client private key. */
  readonly privateKeyData?: string;
  /** The namespace of the context, used when a namespace is needed and none is given. */
  readonly defaultNamespace?: string;
  /** Higher-priority credentials are used before lower-priority ones. */
  readonly priority?: number;
  /** When the credentials stop being valid; they are dropped from the vault then. */
  readonly expiration?: Date;
  /**
   * Where the credentials come from, for messages when they are refused: e.g. `the
   * context "dev" (user "alice") of /home/alice/.kube/config`. Never a secret.
   */
  readonly source?: string;
}

/**
 * The options of the built-in login functions (`kopf.loginWithKubeconfig()`,
 * `kopf.loginWithServiceAccount()`, `kopf.loginViaClient()`, `kopf.loginWithDefaults()`):
 * each takes those it uses, as its signature says. Every one accepts the arguments of a login
 * handler too (only `logger` is named here, so that the arguments object fits; the rest is
 * ignored): `kopf.on.login(kopf.loginWithKubeconfig)` works as it is.
 */
export interface LoginOptions {
  /** The handler's logger, when called as a login handler; unused. */
  logger?: unknown;
  /** The kubeconfig file(s), instead of `KUBECONFIG` or `~/.kube/config`. */
  kubeconfig?: string | readonly string[];
  /** The kubeconfig context to use instead of the current one. */
  context?: string;
  /** The service account's directory (`token`, `ca.crt`, `namespace`), if not the standard one. */
  directory?: string;
}
