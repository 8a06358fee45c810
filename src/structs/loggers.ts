/**
 * The logger given to handlers: it knows which object it speaks about.
 *
 * @module
 */

/** Extra structured fields attached to one log record. */
export type LogProperties = Record<string, unknown>;

/**
 * A logger bound to one object (or to the operator, for activities).
 *
 * Messages carry the object's identity; those at the posting level and above also
 * become Kubernetes Events on the object.
 */
export interface ObjectLogger {
  /** Details useful when debugging. */
  debug(message: string, properties?: LogProperties): void;
  /** Normal progress. */
  info(message: string, properties?: LogProperties): void;
  /** Something unexpected that does not stop the work. */
  warning(message: string, properties?: LogProperties): void;
  /** A failure. */
  error(message: string, properties?: LogProperties): void;
  /** A failure with its error (and stack trace). */
  exception(message: string, error?: unknown, properties?: LogProperties): void;
}
