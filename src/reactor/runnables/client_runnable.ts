/**
 * The API client as a runnable: the login handlers (or, without any, the service account in
 * a pod, else the kubeconfig) fill the credentials vault, and run again whenever it runs
 * dry; the client and the discovery then serve every other runnable until the very end.
 * Everything that starts after it runs where they are the operator's client
 * (`engines/operator_client.ts`), so that helpers of handlers such as `kopf.apply()` send
 * through them; with child handlers, also where the objects written (created, applied,
 * patched, replaced) are told of (`client/written_objects.ts`), for the children's watching
 * to know them at once.
 *
 * @module
 */

import type { ConnectionInfo } from "../../structs/credentials.ts";
import { ApiClient } from "../../client/api.ts";
import { Discovery } from "../../client/discovery.ts";
import { Vault } from "../../client/vault.ts";
import {
  runTellingWrittenObjects,
  type WrittenObjectListener,
} from "../../client/written_objects.ts";
import { runLogin } from "../../engines/activities.ts";
import {
  type OperatorClient,
  registerFallbackOperatorClient,
  runWithOperatorClient,
} from "../../engines/operator_client.ts";
import { describeScope } from "../../structs/namespace_scopes.ts";
import { activityOf, type OperatorParts } from "../operator_parts.ts";
import type { RunContext, Runnable } from "../manager.ts";

/** The logged-in API client and its discovery; see the module docs. */
export class ClientRunnable implements Runnable {
  readonly name = "API client";
  readonly after: readonly Runnable[];
  readonly #parts: OperatorParts;
  #api: ApiClient | undefined;
  #discovery: Discovery | undefined;
  #shared: OperatorClient | undefined;
  #unregister: (() => void) | undefined;
  /**
   * Told of the objects written in the operator's flows (the children's watching, once it
   * runs); the operator's flows tell it only if it has child handlers.
   */
  writtenObjects: WrittenObjectListener | undefined;

  /** The client, after the runnables given (the startup handlers). */
  constructor(parts: OperatorParts, after: readonly Runnable[]) {
    this.#parts = parts;
    this.after = after;
  }

  /** The API client; there once started. */
  get api(): ApiClient {
    if (this.#api === undefined) throw new Error("The API client is used before the login.");
    return this.#api;
  }

  /** The discovery of the served resources; there once started. */
  get discovery(): Discovery {
    if (this.#discovery === undefined) throw new Error("The discovery is used before the login.");
    return this.#discovery;
  }

  /** Log in, and say where and as whom the operator serves. */
  async start(context: RunContext): Promise<void> {
    const parts = this.#parts;
    const activity = activityOf(parts, context.signal);
    // The vault's own login function: a public extension point of the client, which any
    // program using the client on its own provides the same way.
    const vault = new Vault({
      relogin: () => runLogin({ ...activity, defaultLogin: parts.defaultLogin }),
    });
    await vault.login();
    // Which cluster, with which credentials, and where: the first thing to check when an
    // operator does not do what it should.
    const servers = [...new Set(vault.items().map((item) => describeCredentials(item.info)))];
    parts.logger.info(`Serving ${describeScope(parts.scope)} at ${servers.join("; ")}.`);
    this.#api = new ApiClient(vault, {
      networking: parts.settings.networking,
      watching: parts.settings.watching,
      metrics: parts.metrics,
    });
    this.#discovery = new Discovery(this.#api);
    this.#shared = { api: this.#api, discovery: this.#discovery, settings: parts.settings };
    this.#unregister = registerFallbackOperatorClient(this.#shared);
  }

  /** Run what comes after with this client as the operator's client. */
  enclose<T>(fn: () => T): T {
    const shared = this.#shared;
    if (shared === undefined) return fn();
    if (this.#parts.children === undefined) return runWithOperatorClient(shared, fn);
    const tell: WrittenObjectListener = (resource, object) =>
      this.writtenObjects?.(resource, object);
    return runWithOperatorClient(shared, () => runTellingWrittenObjects(tell, fn));
  }

  /** Close the client's connections. */
  async stop(): Promise<void> {
    this.#unregister?.();
    await this.#api?.close();
  }
}

/** A server and where its credentials come from: `https://k:6443 (the context "dev" ...)`. */
function describeCredentials(info: ConnectionInfo): string {
  return info.source === undefined ? info.server : `${info.server} (${info.source})`;
}
