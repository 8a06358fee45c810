/**
 * Where the reactor reports what it does by default: the `kopf.reactor` logger.
 *
 * @module
 */
import type { Logger } from "../structs/loggers.ts";
import { KOPF_CATEGORY } from "../platform/logging.ts";
import { createActivityLogger } from "../handling/object_loggers.ts";

/**
 * The framework's own logger for the reactor: the `kopf.reactor` logtape category, written
 * through the same adapter as the activities' logger (text as is, never posted).
 */
export function reactorLogger(): Logger {
  return createActivityLogger([...KOPF_CATEGORY, "reactor"]);
}

/** A logger that drops everything. */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warning: () => {},
  error: () => {},
};
