/**
 * The loggers of the framework: one shape for every part that reports what it does (the
 * reactor, the engines, webhook servers), and the object logger given to handlers, which
 * also knows which object it speaks about.
 *
 * @module
 */

/**
 * Where a part of the framework reports what it does: one message per call, with extra
 * structured fields (`properties`) attached to the record.
 */
export interface Logger {
  /** Details useful when debugging. */
  debug(message: string, properties?: Record<string, unknown>): void;
  /** Normal progress. */
  info(message: string, properties?: Record<string, unknown>): void;
  /** Something unexpected that does not stop the work. */
  warning(message: string, properties?: Record<string, unknown>): void;
  /** A failure. */
  error(message: string, properties?: Record<string, unknown>): void;
}

/**
 * A logger bound to one object (or to the operator, for activities).
 *
 * Messages carry the object's identity; those at the posting level and above also
 * become Kubernetes Events on the object.
 */
export interface ObjectLogger extends Logger {
  /** A failure with its error (and stack trace). */
  exception(message: string, error?: unknown, properties?: Record<string, unknown>): void;
}
