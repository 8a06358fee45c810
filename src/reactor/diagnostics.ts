/**
 * Where the reactor reports what it does: a minimal logger shape that any logger of
 * the framework (or `console`) satisfies, and error formatting for its messages.
 *
 * @module
 */

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

/** A logger writing warnings and errors to the console and dropping the rest. */
export const consoleLogger: ReactorLogger = {
  debug: () => {},
  info: () => {},
  warning: (message) => console.warn(message),
  error: (message) => console.error(message),
};

/** A logger that drops everything. */
export const silentLogger: ReactorLogger = {
  debug: () => {},
  info: () => {},
  warning: () => {},
  error: () => {},
};

/** A readable one-block description of anything thrown, with the stack when there is one. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  try {
    return `a non-error value was thrown: ${JSON.stringify(error)}`;
  } catch {
    return `a non-error value was thrown: ${String(error)}`;
  }
}
