/**
 * The error of failed authentication, shared by the client (logins, the vault) and the
 * engines that run login handlers.
 *
 * @module
 */

/**
 * The operator cannot log in to the Kubernetes API: a login source is broken (e.g. an
 * unreadable kubeconfig), or no login produced usable credentials.
 */
export class LoginError extends Error {
  /** The error class name. */
  override name = "LoginError";
}
