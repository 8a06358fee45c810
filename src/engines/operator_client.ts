/**
 * The operator's own API client as an async context: everything the operator runs after its
 * login -- handlers, daemons, timers -- can reach the client it logged in with (its
 * credentials, retries and tuning), its discovery and its settings, without a client of its
 * own. Helpers such as `kopf.apply()` use it when not given a client.
 *
 * @module
 */
import type { ApiClient } from "../client/api.ts";
import type { Discovery } from "../client/discovery.ts";
import type { OperatorSettings } from "../settings/operator_settings.ts";
import { AsyncContext } from "../platform/async_context.ts";

/** What an operator shares with the code it runs: its client, discovery and settings. */
export interface OperatorClient {
  /** The logged-in API client of the operator. */
  readonly api: ApiClient;
  /** The discovery of the operator (cached for its whole life). */
  readonly discovery: Discovery;
  /** The operator's settings (read at each use, so changes apply at once). */
  readonly settings: Pick<OperatorSettings, "applying">;
}

const clientContext = new AsyncContext<OperatorClient>();
const fallbackClients: OperatorClient[] = [];

/** Run `fn` with `client` as the operator's client of everything `fn` starts. */
export function runWithOperatorClient<R>(client: OperatorClient, fn: () => R): R {
  return clientContext.run(client, fn);
}

/**
 * Make `client` the process-wide fallback for code outside any operator's async flow (the
 * cleanup handlers, which run as the operator stops; a foreign library's callbacks); the
 * latest registered wins. Returns the unregistering function.
 */
export function registerFallbackOperatorClient(client: OperatorClient): () => void {
  fallbackClients.push(client);
  return () => {
    const index = fallbackClients.lastIndexOf(client);
    if (index >= 0) fallbackClients.splice(index, 1);
  };
}

/** The operator's client of the current async flow, else the fallback, else `undefined`. */
export function currentOperatorClient(): OperatorClient | undefined {
  return clientContext.get() ?? fallbackClients[fallbackClients.length - 1];
}
