/**
 * Where the reactor reports what it does: a minimal logger shape, which the framework's
 * object loggers also satisfy, and the default one writing through logtape.
 *
 * @module
 */
import { KOPF_CATEGORY } from "../platform/logging.ts";
import { createActivityLogger } from "../handling/loggers.ts";

/** The logger the reactor writes to: one message string per call. */
export interface ReactorLogger {
  /** Details useful when tracing the operator's behaviour. */
  debug(message: string): void;
  /** Notable normal events. */
  info(message: string): void;
  /** Something is wrong but the operator carries on. */
  warning(message: string): void;
  /** Something failed. */
  error(message: string): void;
}

/**
 * The framework's own logger for the reactor: the `kopf.reactor` logtape category, written
 * through the same adapter as the activities' logger (text as is, never posted).
 */
export function reactorLogger(): ReactorLogger {
  return createActivityLogger([...KOPF_CATEGORY, "reactor"]);
}

/** A logger that drops everything. */
export const silentLogger: ReactorLogger = {
  debug: () => {},
  info: () => {},
  warning: () => {},
  error: () => {},
};
