/**
 * How log records become text lines: the `plain`, `full` and `json` layouts, the object
 * prefix `[namespace/name]`, and the log levels shared by logging and event posting.
 *
 * Pure functions over a record's fields, so that they can be tested with fixed clocks.
 *
 * @module
 */

/** The log layouts offered on the command line and by `configure()`. */
export type LogFormat = "plain" | "full" | "json";

/** All accepted log formats, for validation and help texts. */
export const LOG_FORMATS: readonly LogFormat[] = ["plain", "full", "json"];

/** The severities of log records, lowest first (logtape's names). */
export type LogSeverity = "trace" | "debug" | "info" | "warning" | "error" | "fatal";

/**
 * A log level as users give it in settings: a name (`"info"`, `"warning"`, ...) or a number on
 * Python's scale (`10` debug, `20` info, `30` warning, `40` error, `50` critical), so that
 * values copied from Kopf's configuration keep working.
 */
export type LogLevelSetting =
  | "trace"
  | "debug"
  | "info"
  | "warning"
  | "error"
  | "fatal"
  | "critical"
  | number;

/** The property under which a record carries the reference of the object it is about. */
export const OBJECT_REF_PROPERTY = "k8sRef";

/** The property that marks a record as local: printed, but never posted as an event. */
export const LOCAL_ONLY_PROPERTY = "k8sSkip";

/** The property under which a record carries an error (from `logger.exception()`). */
export const ERROR_PROPERTY = "error";

/** The key of the object reference in JSON logs unless configured otherwise. */
export const DEFAULT_REFKEY = "object";

/** The fields of a log record that the layouts use (logtape's `LogRecord` has them all). */
export interface FormattableRecord {
  /** The logger's category, e.g. `["kopf", "objects"]`. */
  readonly category: readonly string[];
  /** The severity. */
  readonly level: LogSeverity;
  /** The message: text parts interleaved with substituted values. */
  readonly message: readonly unknown[];
  /** Milliseconds since the epoch. */
  readonly timestamp: number;
  /** Extra properties: the object reference, an error, anything else. */
  readonly properties: Readonly<Record<string, unknown>>;
}

/** How records are laid out. */
export interface LogLayout {
  /** Which layout. */
  readonly format: LogFormat;
  /** Whether messages about an object start with `[namespace/name]`. */
  readonly prefix: boolean;
  /** The key of the object reference in JSON lines. */
  readonly refkey: string;
}

const RANKS: Record<LogSeverity | "critical", number> = {
  trace: 5,
  debug: 10,
  info: 20,
  warning: 30,
  error: 40,
  fatal: 50,
  critical: 50,
};

/** A severity as a number on Python's scale, so that names and numbers compare. */
export function severityRank(level: LogLevelSetting): number {
  if (typeof level === "number") {
    if (!Number.isFinite(level)) {
      throw new RangeError(`A log level must be a finite number or a name, got ${level}.`);
    }
    return level;
  }
  const rank = RANKS[String(level).toLowerCase() as LogSeverity];
  if (rank === undefined) {
    throw new RangeError(
      `Unknown log level ${JSON.stringify(level)}: use one of ` +
        `"debug", "info", "warning", "error", "critical", or a number like 20.`,
    );
  }
  return rank;
}

const UPPER_NAMES: Record<LogSeverity, string> = {
  trace: "TRACE",
  debug: "DEBUG",
  info: "INFO",
  warning: "WARNING",
  error: "ERROR",
  fatal: "CRITICAL",
};

const JSON_SEVERITIES: Record<LogSeverity, string> = {
  trace: "debug",
  debug: "debug",
  info: "info",
  warning: "warn",
  error: "error",
  fatal: "fatal",
};

/** The identity of an object as far as the log prefix needs it. */
interface PrefixRef {
  readonly name?: unknown;
  readonly namespace?: unknown;
}

/** `[namespace/name]` for namespaced objects, `[name]` for cluster-scoped ones. */
export function objectPrefix(ref: PrefixRef): string {
  const name = ref.name ?? "";
  return ref.namespace ? `[${ref.namespace}/${name}]` : `[${name}]`;
}

/** The message of a record as one string, substituted values included. */
export function renderMessage(parts: readonly unknown[]): string {
  let text = "";
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    text += i % 2 === 0 || typeof part === "string" ? String(part) : describeValue(part);
  }
  return text;
}

/** A readable one-line form of an arbitrary value for log messages. */
export function describeValue(value: unknown): string {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  if (typeof value === "object" && value !== null) {
    try {
      return JSON.stringify(value);
    } catch {
      return String(value);
    }
  }
  return String(value);
}

/** The text of an error for logs: its stack when it has one, else its string form. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return summarizeError(error);
}

/**
 * An error in one line, for messages that go on: the first line of its message (its name
 * when it has none), or a thrown value that is not an error as it reads (a string as is).
 * No stack trace: those belong to DEBUG, or to a handler's own exceptions.
 */
export function summarizeError(error: unknown): string {
  if (error instanceof Error) return (error.message || error.name).split("\n")[0];
  if (typeof error === "string") return error.split("\n")[0] || "an empty string was thrown";
  return describeValue(error).split("\n")[0];
}

function pad2(n: number): string {
  return String(n).padStart(2, "0");
}

/** `YYYY-MM-DD HH:MM:SS,mmm` in local time, as classic operator logs show it. */
export function formatLocalTime(timestamp: number): string {
  const d = new Date(timestamp);
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ` +
    `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())},` +
    String(d.getMilliseconds()).padStart(3, "0");
}

/** Properties with a meaning of their own, never copied into JSON lines as extra fields. */
const RESERVED_PROPERTIES = new Set([
  OBJECT_REF_PROPERTY,
  LOCAL_ONLY_PROPERTY,
  ERROR_PROPERTY,
  "severity",
  "timestamp",
]);

/** The value itself, or an error's readable string form (JSON would make it `{}`). */
function errorSafe(value: unknown): unknown {
  return value instanceof Error ? describeValue(value) : value;
}

/** The value itself if it survives JSON encoding, else its readable string form. */
function jsonSafe(value: unknown): unknown {
  if (value instanceof Error) return describeValue(value);
  try {
    JSON.stringify(value);
    return value;
  } catch {
    return String(value);
  }
}

function fixedWidth(text: string, width: number): string {
  return text.length > width ? text.slice(0, width) : text.padEnd(width);
}

/** Lay a record out as one line (plus stack lines for errors in the text layouts). */
export function formatLogRecord(record: FormattableRecord, layout: LogLayout): string {
  const ref = record.properties[OBJECT_REF_PROPERTY] as PrefixRef | undefined;
  const error = record.properties[ERROR_PROPERTY];
  let message = renderMessage(record.message);
  if (layout.prefix && ref !== undefined && ref !== null) {
    message = `${objectPrefix(ref)} ${message}`;
  }
  if (layout.format === "json") {
    const line = (safe: (value: unknown) => unknown) => {
      const fields: Record<string, unknown> = { message };
      if (ref !== undefined && ref !== null && layout.refkey) fields[layout.refkey] = ref;
      for (const [key, value] of Object.entries(record.properties)) {
        if (!RESERVED_PROPERTIES.has(key) && !(key in fields)) fields[key] = safe(value);
      }
      fields.severity = JSON_SEVERITIES[record.level];
      fields.timestamp = new Date(record.timestamp).toISOString();
      if (error !== undefined) fields.exc_info = describeError(error);
      return fields;
    };
    // Encoded once; only a record with a value JSON cannot encode pays for checking each.
    try {
      return JSON.stringify(line(errorSafe));
    } catch {
      return JSON.stringify(line(jsonSafe));
    }
  }
  if (error !== undefined) message += "\n" + describeError(error);
  if (layout.format === "plain") return message;
  const name = fixedWidth(record.category.join("."), 20);
  const level = fixedWidth(UPPER_NAMES[record.level], 8);
  return `[${formatLocalTime(record.timestamp)}] ${name} [${level}] ${message}`;
}
