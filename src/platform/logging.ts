/**
 * Where the operator's log lines go and how they look: `configure()` sets the verbosity and
 * the layout once per process (the command line calls it from its flags).
 *
 * The framework logs under the `kopf` category; records made while an object is being handled
 * carry that object's reference (see {@link logContext}). Where LogTape is in the process, the
 * records go through it and the configuration is made there too (see `log_routing.ts`).
 *
 * @module
 */
import { ConfigurationError } from "../structs/errors.ts";
import type { Logger } from "../structs/loggers.ts";
import {
  DEFAULT_REFKEY,
  formatLogRecord,
  type FormattableRecord,
  LOG_FORMATS,
  type LogFormat,
  type LogLayout,
} from "../structs/log_formats.ts";
import {
  getConfig,
  getLogger,
  hasOwnConfig,
  isLogged,
  logContext,
  type LoggerConfig,
  type LogLevel,
  useOwnConfig,
} from "./log_routing.ts";
import { writeStderrLine } from "./stderr.ts";

export { isLogged, logContext } from "./log_routing.ts";

/** The root category of the framework's own loggers. */
export const KOPF_CATEGORY: readonly string[] = Object.freeze(["kopf"]);

/** The category of messages about individual objects (the per-object loggers). */
export const OBJECTS_CATEGORY: readonly string[] = Object.freeze(["kopf", "objects"]);

/**
 * The category of low-level API traffic: shown only with `debug`, hidden with `verbose`,
 * like the internals of the HTTP machinery in Kopf.
 */
export const TRAFFIC_CATEGORY: readonly string[] = Object.freeze(["kopf", "traffic"]);

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
  configureWith(options, true);
}

/** {@link configure}; `replaces`: whether over a configuration made directly in LogTape. */
function configureWith(options: LoggingOptions, replaces: boolean): void {
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
  const trafficLevel = options.debug ? "trace" : "info";
  const sink = (record: FormattableRecord): void => write(formatLogRecord(record, layout));
  const loggers: LoggerConfig[] = [
    { category: [], sinks: ["kopf"], lowestLevel: level },
    { category: TRAFFIC_CATEGORY, lowestLevel: trafficLevel },
    { category: ["logtape", "meta"], lowestLevel: "warning" },
  ];
  useOwnConfig({
    loggers,
    sink,
    applyTo: (logtape) =>
      logtape.configureSync({
        reset: true,
        sinks: { kopf: sink },
        contextLocalStorage: logContext,
        loggers: [
          { category: [], sinks: ["kopf"], lowestLevel: level },
          { category: [...TRAFFIC_CATEGORY], lowestLevel: trafficLevel },
          { category: ["logtape", "meta"], lowestLevel: "warning" },
        ],
      }),
  }, replaces);
}

/**
 * Whether logging has been configured in this process (by {@link configure} or directly in
 * LogTape; while LogTape is being imported, yes).
 */
export function isLoggingConfigured(): boolean {
  return hasOwnConfig() || getConfig() !== null;
}

/**
 * Configure the default logging unless someone already did: operators started from code, not
 * from the command line, still show their messages. A configuration made directly in LogTape
 * is kept.
 */
export function ensureLoggingConfigured(): void {
  if (!hasOwnConfig()) configureWith({}, false);
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
