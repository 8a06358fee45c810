/**
 * What `operator()` and `run()` take ({@link OperatorOptions}), and their checks: anything
 * this version cannot do fails at once with one clear line -- nothing is silently ignored.
 *
 * @module
 */

import type { Clock } from "../structs/clock.ts";
import { ConfigurationError } from "../structs/errors.ts";
import type { Logger } from "../structs/loggers.ts";
import type { OperatorSettings } from "../settings/operator_settings.ts";
import type { OperatorRegistry } from "../intents/registry.ts";
import { checkLifecycle, type LifeCycleFn } from "../intents/lifecycles.ts";
import type { ConnectionInfo } from "../structs/credentials.ts";
import { parseEndpoint } from "../engines/endpoints.ts";

/** Options of `operator()`. */
export interface OperatorOptions {
  /** The handlers; the default registry (where `kopf.on.*` register) if omitted. */
  readonly registry?: OperatorRegistry;
  /** The settings; Kopf's defaults if omitted. Startup handlers may change them. */
  readonly settings?: OperatorSettings;
  /** The operator's memo; each object gets a shallow copy. A new `Memo` if omitted. */
  readonly memo?: unknown;
  /** Serve the whole cluster. */
  readonly clusterwide?: boolean;
  /** Serve these namespaces: names, globs, negations (`!kube-*`) or regular expressions. */
  readonly namespaces?: readonly (string | RegExp)[];
  /** Run without peering even if peering resources exist. */
  readonly standalone?: boolean;
  /** The priority among peers (`settings.peering.priority`; 0 by default). */
  readonly priority?: number;
  /**
   * The peering object's name (`settings.peering.name`); giving it makes the peering
   * mandatory: the operator pauses until that object exists.
   */
  readonly peeringName?: string;
  /**
   * Run as one of several replicas of which one leads and handles the objects, the others
   * standing by (`settings.leadership.leaderElection`; the Lease is
   * `settings.leadership.name`). Peering is then off.
   */
  readonly leaderElection?: boolean;
  /**
   * Run as one of several replicas sharing the objects in this many shards
   * (`settings.leadership.shards`). Peering is then off.
   */
  readonly shards?: number;
  /** Answer liveness probes with the probe handlers' results here, e.g. `http://0.0.0.0:8080/healthz`. */
  readonly livenessEndpoint?: string;
  /**
   * Expose Prometheus metrics here, e.g. `http://0.0.0.0:9090/metrics` (the same host and
   * port as the liveness endpoint share its server). `/readyz` is answered beside both.
   */
  readonly metricsEndpoint?: string;
  /** Stops the operator gracefully when aborted. */
  readonly signal?: AbortSignal;
  /**
   * Called once when every watch started at first has listed its objects (or failed once):
   * objects created afterwards arrive as watch events, not in an initial listing.
   */
  readonly onReady?: () => void;
  /**
   * The login used when no login handlers are registered; by default the in-cluster
   * service account when running in a pod, else the kubeconfig (`KUBECONFIG`, `~/.kube/config`).
   */
  readonly defaultLogin?: () => Promise<ConnectionInfo | null | undefined>;
  /**
   * The operator's time: its timers and delays, and the wall time it writes on objects
   * and gives to handlers. The real clock by default; tests may fix or move it.
   */
  readonly clock?: Clock;
  /** Where the operator reports what it does; the `kopf.reactor` logger by default. */
  readonly logger?: Logger;
  /**
   * Which of the due handlers run in each handling cycle, e.g. `kopf.lifecycles.allAtOnce`;
   * the default lifecycle (`kopf.setDefaultLifecycle()`, else `asap`: one per cycle).
   */
  readonly lifecycle?: LifeCycleFn;
}

/**
 * The options cannot work with this version; the message says why in one line.
 *
 * @example Admission handlers without a webhook server stop the operator at its start
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.validate("kopfexamples", () => {});
 * try {
 *   await kopf.operator({ namespaces: ["default"] }); // no settings.admission.server
 * } catch (error) {
 *   if (!(error instanceof kopf.OperatorConfigurationError)) throw error;
 *   console.error(error.message); // says to set settings.admission.server
 * }
 * ```
 */
export class OperatorConfigurationError extends ConfigurationError {
  /** The error's name, for logs and stack traces. */
  override name = "OperatorConfigurationError";
}

/** Refuse options that cannot work, with one clear line. */
export function checkOptions(options: OperatorOptions): void {
  const fail = (message: string): never => {
    throw new OperatorConfigurationError(message);
  };
  if (options.peeringName !== undefined && options.peeringName.trim() === "") {
    fail("peeringName must be the name of a peering object, not an empty string.");
  }
  if (options.priority !== undefined && !Number.isSafeInteger(options.priority)) {
    fail(`The priority must be an integer, not ${JSON.stringify(options.priority)}.`);
  }
  const endpoints = [[options.livenessEndpoint, "liveness"], [options.metricsEndpoint, "metrics"]];
  for (const [endpoint, what] of endpoints) {
    if (endpoint === undefined) continue;
    try {
      parseEndpoint(endpoint, what);
    } catch (error) {
      fail((error as Error).message);
    }
  }
  if (options.lifecycle !== undefined) {
    try {
      checkLifecycle(options.lifecycle, "The lifecycle option");
    } catch (error) {
      fail((error as Error).message);
    }
  }
  if (
    options.shards !== undefined && !(Number.isSafeInteger(options.shards) && options.shards >= 1)
  ) {
    fail(`The shards must be an integer of 1 or more, not ${JSON.stringify(options.shards)}.`);
  }
  if (options.clusterwide && (options.namespaces?.length ?? 0) > 0) {
    fail("Either serve the whole cluster (clusterwide) or a list of namespaces, not both.");
  }
}

/**
 * The options that go into the settings, as in Kopf before the startup handlers can tune
 * them: the peering's name, priority and standalone mode, leader election and shards.
 */
export function applyOptions(
  options: OperatorOptions,
  settings: OperatorSettings,
  clusterwide: boolean,
): void {
  settings.peering.clusterwide = clusterwide;
  if (options.peeringName !== undefined) {
    settings.peering.name = options.peeringName;
    settings.peering.mandatory = true;
  }
  if (options.priority !== undefined) settings.peering.priority = options.priority;
  if (options.standalone) settings.peering.standalone = true;
  if (options.leaderElection !== undefined) {
    settings.leadership.leaderElection = options.leaderElection;
  }
  if (options.shards !== undefined) settings.leadership.shards = options.shards;
}
