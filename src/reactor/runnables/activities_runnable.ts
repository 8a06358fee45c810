/**
 * The operator's activities as runnables: the startup handlers run first of all (they may
 * tune the settings, which are checked after them), the cleanup handlers last, once
 * everything that handles objects has stopped but while the API client and the event
 * posting still serve them.
 *
 * @module
 */

import { summarizeError } from "../../structs/log_formats.ts";
import { OperatorSettings } from "../../settings/operator_settings.ts";
import type { HandlerMatcher } from "../../intents/handler_matching.ts";
import { runActivity } from "../../engines/activities.ts";
import { OperatorConfigurationError } from "../operator_options.ts";
import { activityOf, type OperatorParts } from "../operator_parts.ts";
import type { RunContext, Runnable } from "../manager.ts";

/** The startup handlers, then the check of the settings they leave. */
export class StartupRunnable implements Runnable {
  readonly name = "startup handlers";
  readonly after: readonly Runnable[] = [];
  readonly #parts: OperatorParts;

  /** The startup of the operator of these parts. */
  constructor(parts: OperatorParts) {
    this.#parts = parts;
  }

  /** Run the startup handlers; a permanent failure ends the operator's start. */
  async start(context: RunContext): Promise<void> {
    const { settings, matcher, logger } = this.#parts;
    logger.debug("Running the startup handlers.");
    await runActivity("startup", activityOf(this.#parts, context.signal));
    settings.validate(); // as the startup handlers left them
    checkAdmission(matcher, settings);
    checkCoordination(settings);
    warnOfInertSettings(this.#parts);
  }
}

/** The cleanup handlers, when the operator stops. */
export class CleanupRunnable implements Runnable {
  readonly name = "cleanup handlers";
  readonly after: readonly Runnable[];
  readonly #parts: OperatorParts;

  /** The cleanup after the runnables it needs (the API client, the event posting). */
  constructor(parts: OperatorParts, after: readonly Runnable[]) {
    this.#parts = parts;
    this.after = after;
  }

  /** Run the cleanup handlers to their end; a failure is reported, not thrown. */
  async stop(): Promise<void> {
    try {
      await runActivity("cleanup", activityOf(this.#parts));
    } catch (error) {
      this.#parts.logger.error(`Cleanup failed: ${summarizeError(error)}`);
    }
  }
}

/** Admission handlers need a webhook server; Kopf fails at startup without one, and so here. */
function checkAdmission(matcher: HandlerMatcher, settings: OperatorSettings): void {
  const handler = matcher.handlers.find((h) => h.kind === "webhook");
  if (handler !== undefined && settings.admission.server === null) {
    throw new OperatorConfigurationError(
      `${handler.registrar} handler ${JSON.stringify(handler.id)} is registered, but no ` +
        "webhook server is configured: set settings.admission.server (e.g. new " +
        "kopf.WebhookServer()) in a startup handler.",
    );
  }
}

/**
 * A mandatory peering and the replicas' coordination exclude each other: replicas
 * coordinated by Leases would be peers of one priority, and all pause.
 */
function checkCoordination(settings: OperatorSettings): void {
  if (!settings.leadership.enabled || settings.peering.standalone) return;
  if (!settings.peering.mandatory) return;
  throw new OperatorConfigurationError(
    `The peering ${JSON.stringify(settings.peering.name)} and ` +
      `${settings.leadership.leaderElection ? "leader election" : "sharding"} exclude each ` +
      "other: the replicas would be peers of the same priority and all pause. Drop one.",
  );
}

/** Kopf's instant-exit tuning has nothing to tune here: say so rather than ignore it. */
function warnOfInertSettings(parts: OperatorParts): void {
  const background = parts.settings.background;
  const defaults = new OperatorSettings().background;
  if (
    background.instantExitTimeout !== defaults.instantExitTimeout ||
    background.instantExitZeroTimeCycles !== defaults.instantExitZeroTimeCycles
  ) {
    parts.logger.warning(
      "settings.background.instantExitTimeout and instantExitZeroTimeCycles have no effect in " +
        "this version: the processing of a deleted object waits for its daemons' exits itself.",
    );
  }
}
