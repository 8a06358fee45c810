/**
 * A login that stands in for the environment's credentials within one flow of calls: where
 * it is set, `loginWithDefaults()` and `loginWithKubeconfig()` without files of their own
 * return what it returns instead of reading `KUBECONFIG`, `~/.kube/config` or a pod's
 * service account.
 *
 * `kopf run` inside a test (`KopfRunner` with a `cluster`) sets it for the operator it
 * runs, so that a handler creating objects with a client of its own (a `Vault` whose
 * login is `kopf.loginWithDefaults`) reaches the test's cluster as the operator does --
 * without the test writing a kubeconfig and pointing `KUBECONFIG` at it, which would also
 * reach every other test of the process.
 *
 * @module
 */
import type { ConnectionInfo } from "../structs/credentials.ts";
import { AsyncContext } from "../platform/async_context.ts";

/** A login that yields the credentials to use, or `undefined` when it has none. */
export type SubstituteLogin = () => Promise<ConnectionInfo | undefined>;

const substitute = new AsyncContext<SubstituteLogin>();

/** Run `fn` with `login` standing in for the environment's credentials (see the module). */
export function withSubstituteLogin<R>(login: SubstituteLogin, fn: () => R): R {
  return substitute.run(login, fn);
}

/** The login standing in for the environment's in the current flow, if any. */
export function substituteLogin(): SubstituteLogin | undefined {
  return substitute.get();
}
