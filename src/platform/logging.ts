/**
 * Where the operator's log lines go and how they look: `configure()` sets the verbosity and
 * the layout once per process (the command line calls it from its flags), on top of logtape.
 *
 * Libraries and the framework log through logtape loggers under the `kopf` category; records
 * made while an object is being handled carry that object's reference (see {@link logContext}).
 *
 * @module
 */
import { ConfigurationError } from "../structs/errors.ts";
import type { Logger } from "../structs/loggers.ts";
import {
  type Config,
  configureSync,
  getConfig,
  getLogger,
  type LogLevel,
  type LogRecord,
} from "@logtape/logtape";
import {
  DEFAULT_REFKEY,
  formatLogRecord,
  LOG_FORMATS,
  type LogFormat,
  type LogLayout,
} from "../structs/log_formats.ts";
import { AsyncContext } from "./async_context.ts";
import { writeStderrLine } from "./stderr.ts";

/** The root category of the framework's own loggers. */
export const KOPF_CATEGORY: readonly string[] = ["kopf"];

/** The category of messages about individual objects (the per-object loggers). */
export const OBJECTS_CATEGORY: readonly string[] = ["kopf", "objects"];

/**
 * The category of low-level API traffic: shown only with `debug`, hidden with `verbose`,
 * like the internals of the HTTP machinery in Kopf.
 */
export const TRAFFIC_CATEGORY: readonly string[] = ["kopf", "traffic"];

/**
 * Properties added to every record logged inside {@link AsyncContext.run} of this context —
 * logtape's implicit context. The handling scope puts the object's reference here, so that
 * any logger used while an object is handled prints `[namespace/name]`.
 */
export const logContext: AsyncContext<Record<string, unknown>> = new AsyncContext();

/**
 * Configure the process's logging: verbosity and layout. Calling it again replaces the
 * previous configuration (also one made directly with logtape).
 *
 * @example JSON lines for a log collector, with debug records when asked for
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.configure({ logFormat: "json", verbose: Deno.args.includes("--verbose") });
 * kopf.on.create("kopfexamples", ({ logger }) => logger.info("created")); // one JSON line
 * ```
 */
export function configure(
  options: {
    /** Show what the framework is doing (debug level), but not the API traffic. */
    readonly verbose?: boolean;
    /** Show everything, the API traffic included. */
    readonly debug?: boolean;
    /** Show only warnings and errors. */
    readonly quiet?: boolean;
    /** The layout of lines: `full` (the default), `plain` or `json`. */
    readonly logFormat?: LogFormat;
    /**
     * Whether messages about objects start with `[namespace/name]`. By default: yes for `plain`
     * and `full`, no for `json` (where the reference is under {@link logRefkey} anyway).
     */
    readonly logPrefix?: boolean;
    /** The key of the object reference in JSON lines; `object` by default. */
    readonly logRefkey?: string;
    /** Where finished lines go instead of stderr (tests, embedding in another program). */
    readonly writer?: (line: string) => void;
  } = {},
): void {
  const format = options.logFormat ?? "full";
  if (!LOG_FORMATS.includes(format)) {
    throw new ConfigurationError(
      `Unknown log format ${JSON.stringify(format)}: use one of ${LOG_FORMATS.join(", ")}.`,
    );
  }
  if (options.logRefkey !== undefined && options.logRefkey.trim() === "") {
    throw new ConfigurationError("The log refkey must not be empty: give a key such as `object`.");
  }
  const layout: LogLayout = {
    format,
    prefix: options.logPrefix ?? format !== "json",
    refkey: options.logRefkey ?? DEFAULT_REFKEY,
  };
  const write = options.writer ?? writeStderrLine;
  const level = options.debug || options.verbose ? "debug" : options.quiet ? "warning" : "info";
  const sink = (record: LogRecord): void => write(formatLogRecord(record, layout));
  configureSync({
    reset: true,
    sinks: { kopf: sink },
    contextLocalStorage: logContext,
    loggers: [
      { category: [], sinks: ["kopf"], lowestLevel: level },
      { category: [...TRAFFIC_CATEGORY], lowestLevel: options.debug ? "trace" : "info" },
      { category: ["logtape", "meta"], lowestLevel: "warning" },
    ],
  });
}

/** Whether logging has been configured in this process (by {@link configure} or directly). */
export function isLoggingConfigured(): boolean {
  return getConfig() !== null;
}

/**
 * Configure the default logging unless someone already did: operators started from code, not
 * from the command line, still show their messages.
 */
export function ensureLoggingConfigured(): void {
  if (!isLoggingConfigured()) configure();
}

const LEVEL_RANKS: Readonly<Record<LogLevel, number>> = {
  trace: 0,
  debug: 1,
  info: 2,
  warning: 3,
  error: 4,
  fatal: 5,
};

type AnyConfig = Config<string, string>;
let answers: { config: AnyConfig; byKey: Map<string, boolean> } | undefined;

/**
 * Whether a record of this category and level would reach any sink under the current
 * logtape configuration. logtape builds every record (message, properties) before it
 * checks levels; an operator's debug lines about thousands of objects are garbage the JS
 * engine must collect even when nothing prints them, so callers check first. When
 * unsure (no configuration, filters, loggers elsewhere that might get our records under
 * a category prefix), the answer is yes.
 */
export function isLogged(category: readonly string[], level: LogLevel): boolean {
  const config = getConfig() as AnyConfig | null;
  if (config === null) return true;
  if (answers?.config !== config) answers = { config, byKey: new Map() };
  const key = `${level}\u0000${category.join("\u0000")}`;
  let answer = answers.byKey.get(key);
  if (answer === undefined) {
    answer = computeLogged(config, category, level);
    answers.byKey.set(key, answer);
  }
  return answer;
}

function computeLogged(config: AnyConfig, category: readonly string[], level: LogLevel): boolean {
  const loggers = config.loggers.map((logger) => ({
    ...logger,
    path: typeof logger.category === "string" ? [logger.category] : [...logger.category],
  }));
  const onPath = (path: readonly string[]) =>
    path.length <= category.length && path.every((part, i) => part === category[i]);
  for (const logger of loggers) {
    if (logger.path[0] === "logtape") continue; // logtape's own messages
    if (!onPath(logger.path) && (logger.sinks?.length ?? 0) > 0) return true;
    if (onPath(logger.path) && (logger.filters?.length ?? 0) > 0) return true;
  }
  // As logtape dispatches: up from the category, every logger on the way must accept the
  // level, until one with sinks (or one that does not inherit its parents' sinks).
  for (let depth = category.length; depth >= 0; depth--) {
    const logger = loggers.find((l) =>
      l.path.length === depth && l.path.every((part, i) => part === category[i])
    );
    if (logger === undefined) continue;
    if (logger.lowestLevel === null) return false;
    if (logger.lowestLevel !== undefined && LEVEL_RANKS[level] < LEVEL_RANKS[logger.lowestLevel]) {
      return false;
    }
    if ((logger.sinks?.length ?? 0) > 0) return true;
    if (logger.parentSinks === "override") return false;
  }
  return false;
}

/**
 * A framework logger of a category, in the framework's `Logger` shape: messages are taken
 * verbatim (never as logtape templates, so braces in a URL or a reason print as they are),
 * with the properties given.
 */
export function categoryLogger(category: readonly string[]): Logger {
  const logger = getLogger([...category]);
  const log = (level: LogLevel) => (message: string, properties?: Record<string, unknown>) => {
    if (!isLogged(category, level)) return;
    const text = String(message);
    logger.emit({
      level,
      message: [text],
      rawMessage: text,
      timestamp: Date.now(),
      properties: { ...properties },
    });
  };
  return { debug: log("debug"), info: log("info"), warning: log("warning"), error: log("error") };
}

/** The options of {@link configure}, as the command-line flags set them. */
export type LoggingOptions = NonNullable<Parameters<typeof configure>[0]>;
