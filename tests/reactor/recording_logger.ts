/**
 * A reactor logger for tests that keeps every line, prefixed with its level.
 */
import type { Logger } from "../../src/structs/loggers.ts";

/** Keeps the lines logged, as `level: message`. */
export class RecordingLogger implements Logger {
  readonly lines: string[] = [];

  debug(message: string): void {
    this.lines.push(`debug: ${message}`);
  }

  info(message: string): void {
    this.lines.push(`info: ${message}`);
  }

  warning(message: string): void {
    this.lines.push(`warning: ${message}`);
  }

  error(message: string): void {
    this.lines.push(`error: ${message}`);
  }

  /** The lines of one level. */
  at(level: "debug" | "info" | "warning" | "error"): string[] {
    return this.lines.filter((line) => line.startsWith(`${level}: `));
  }
}
