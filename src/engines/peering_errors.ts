/**
 * The peering's error, apart from the peering's engine: the public API exports it, and an
 * operator that runs without peering (standalone, or with Leases) never loads the engine.
 *
 * @module
 */

import { ConfigurationError } from "../structs/errors.ts";

/**
 * The peering cannot work as configured; the message says what to do, in one line.
 *
 * @example Run standalone where the peering resources are not installed
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * const settings = new kopf.OperatorSettings({ peering: { name: "example", mandatory: true } });
 * try {
 *   await kopf.operator({ settings, namespaces: ["default"] });
 * } catch (error) {
 *   if (!(error instanceof kopf.PeeringConfigurationError)) throw error;
 *   console.error(`${error.message} Running standalone instead.`);
 *   await kopf.operator({ standalone: true, namespaces: ["default"] });
 * }
 * ```
 */
export class PeeringConfigurationError extends ConfigurationError {
  /** The error's name, for logs and stack traces. */
  override name = "PeeringConfigurationError";
}
