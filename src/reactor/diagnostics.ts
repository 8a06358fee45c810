/**
 * Where the reactor reports what it does: a minimal logger shape, which the framework's
 * object loggers also satisfy, and the default one writing through logtape.
 *
 * @module
 */
import { getLogger, type LogLevel } from "@logtape/logtape";
import { KOPF_CATEGORY } from "../platform/logging.ts";

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

/** The framework's own logger for the reactor: the `kopf.reactor` logtape category. */
export function reactorLogger(): ReactorLogger {
  const logger = getLogger([...KOPF_CATEGORY, "reactor"]);
  // Emit the text as is: logtape would otherwise read `{...}` in messages as placeholders.
  const emit = (level: LogLevel, text: string) =>
    logger.emit({
      level,
      message: [text],
      rawMessage: text,
      timestamp: Date.now(),
      properties: {},
    });
  return {
    debug: (message) => emit("debug", message),
    info: (message) => emit("info", message),
    warning: (message) => emit("warning", message),
    error: (message) => emit("error", message),
  };
}

/** A logger that drops everything. */
export const silentLogger: ReactorLogger = {
  debug: () => {},
  info: () => {},
  warning: () => {},
  error: () => {},
};
