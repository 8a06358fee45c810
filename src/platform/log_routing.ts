/**
 * Where the framework's log records go: to the framework's own sink (the layout and levels of
 * `configure()` in `logging.ts`), or to LogTape once LogTape is in the process.
 *
 * LogTape is not imported at start: its npm package costs a plain operator's start the npm
 * resolver, its modules and `node:util` (see docs/performance.md, "Start-up"). An operator that
 * nobody else logs through prints its lines itself. When LogTape's root logger exists in the
 * process (LogTape keeps it under a global symbol so that all of its copies share one tree of
 * loggers; it is made by the first `getLogger()` or `configure()` of any of them), the framework
 * imports LogTape (already loaded then, so at little cost) and hands over: its records go through
 * LogTape's loggers under the `kopf` category, to the user's own configuration if there is one,
 * else to the framework's configuration applied to LogTape (so that the user's LogTape loggers
 * print through it too). The records made while LogTape is being imported are held and passed on
 * in their order.
 *
 * @module
 */
import type { LogSeverity } from "../structs/log_formats.ts";
import { AsyncContext } from "./async_context.ts";
import { outsideContexts } from "./async_context.ts";

/** The severities of records, lowest first (LogTape's names). */
export type LogLevel = LogSeverity;

/** A log record, in the shape LogTape's sinks take. */
export interface LogRecord {
  /** The logger's category, e.g. `["kopf", "objects"]`. */
  readonly category: readonly string[];
  /** The severity. */
  readonly level: LogLevel;
  /** The message: text parts interleaved with substituted values. */
  readonly message: readonly unknown[];
  /** The message as written, before substitution. */
  readonly rawMessage: string;
  /** Milliseconds since the epoch. */
  readonly timestamp: number;
  /** Extra properties: the object reference, an error, anything else. */
  readonly properties: Record<string, unknown>;
}

/** The loggers of a configuration, in the shape of LogTape's (what {@link isLogged} reads). */
export interface LoggerConfig {
  readonly category: string | readonly string[];
  readonly sinks?: readonly string[];
  readonly filters?: readonly unknown[];
  readonly lowestLevel?: LogLevel | null;
  readonly parentSinks?: "inherit" | "override";
}

/** A configuration: its loggers (LogTape's configurations have this shape too). */
export interface LogConfig {
  readonly loggers: readonly LoggerConfig[];
}

type LogTape = typeof import("@logtape/logtape");

/** The framework's own configuration, made by `configure()` of `logging.ts`. */
export interface OwnConfig extends LogConfig {
  /** Where the records that pass the loggers' levels go. */
  readonly sink: (record: LogRecord) => void;
  /** The same configuration made in LogTape, for when LogTape is in the process. */
  readonly applyTo: (logtape: LogTape) => void;
}

/**
 * Properties added to every record logged inside {@link AsyncContext.run} of this context --
 * LogTape's implicit context. The handling scope puts the object's reference here, so that
 * any logger used while an object is handled prints `[namespace/name]`.
 */
export const logContext: AsyncContext<Record<string, unknown>> = new AsyncContext();

const ROOT_LOGGER = Symbol.for("logtape.rootLogger");

/** The framework's configuration, and whether it replaces LogTape's when handing over. */
let own: { config: OwnConfig; replaces: boolean } | undefined;
/** LogTape, once handed over to. */
let logtape: LogTape | undefined;
/** The import of LogTape under way, and the records made meanwhile. */
let linking: Promise<void> | undefined;
const held: LogRecord[] = [];
/** Stands for the configuration while LogTape is being imported (the answers are all yes). */
const LINKING: LogConfig = Object.freeze({ loggers: [] });

/** Whether LogTape could not be imported (then the framework prints on its own for good). */
let unavailable = false;

/** Whether LogTape has made its root logger in this process (the framework's import aside). */
function logTapeInProcess(): boolean {
  return !unavailable && ROOT_LOGGER in globalThis;
}

/** Whether records wait for LogTape: it is in the process, and not handed over to yet. */
function awaitingLogTape(): boolean {
  return logtape === undefined && !unavailable && (linking !== undefined || logTapeInProcess());
}

/**
 * Import LogTape and hand over to it: apply the framework's configuration there when it is
 * newer than LogTape's or LogTape has none, then pass the held records on.
 */
function link(): Promise<void> {
  linking ??= outsideContexts(() => import("@logtape/logtape")).then(
    (module) => {
      logtape = module;
      if (own !== undefined && (own.replaces || module.getConfig() === null)) {
        own.config.applyTo(module);
      }
      for (const record of held.splice(0)) module.getLogger([...record.category]).emit(record);
    },
    () => {
      // LogTape cannot be imported where this runs: the framework prints on its own.
      unavailable = true;
      for (const record of held.splice(0)) if (own !== undefined) deliver(own.config, record);
    },
  );
  return linking;
}

/** Resolves once the records go where they will go from now on (LogTape, if it is here). */
export function logRoutingSettled(): Promise<void> {
  return awaitingLogTape() ? link() : Promise.resolve();
}

/**
 * Use the framework's own configuration. `replaces`: whether it replaces one made directly
 * in LogTape before (an explicit `configure()`) or only stands in for none (the default).
 */
export function useOwnConfig(config: OwnConfig, replaces: boolean): void {
  own = { config, replaces: replaces && logTapeInProcess() };
  if (logtape !== undefined) {
    if (replaces || logtape.getConfig() === null) config.applyTo(logtape);
  } else if (logTapeInProcess()) {
    void link();
  }
}

/** Whether the framework's own configuration was made (LogTape's aside). */
export function hasOwnConfig(): boolean {
  return own !== undefined;
}

/**
 * The configuration records are routed by now: LogTape's once handed over, else the
 * framework's own (also while LogTape is being imported), else a stand-in while LogTape is
 * imported, or `null`. A new value after every change, so that answers may be kept per
 * configuration.
 */
export function getConfig(): LogConfig | null {
  if (logtape !== undefined) return logtape.getConfig() as LogConfig | null;
  if (!awaitingLogTape()) return own?.config ?? null;
  void link();
  return own?.config ?? LINKING;
}

// LogTape, when the program imports it, is evaluated with the module graph: hand over as soon
// as the graph has run, not at the first record.
queueMicrotask(() => {
  if (logTapeInProcess()) void link();
});

function deliver(config: OwnConfig, record: LogRecord): void {
  if (isLoggedUnder(config, record.category, record.level)) config.sink(record);
}

/** Route one of the framework's records (its category included). */
function route(record: LogRecord): void {
  if (logtape !== undefined) {
    logtape.getLogger([...record.category]).emit(record);
  } else if (awaitingLogTape()) {
    held.push(record);
    void link();
  } else if (own !== undefined) {
    deliver(own.config, record);
  }
}

const LEVEL_RANKS: Readonly<Record<LogLevel, number>> = {
  trace: 0,
  debug: 1,
  info: 2,
  warning: 3,
  error: 4,
  fatal: 5,
};

/**
 * The answers of {@link isLoggedUnder} under one configuration: by category and level, and
 * for a frozen category (a logger's own) by its identity too, so that the check at every
 * record makes no key.
 */
let answers: {
  config: LogConfig;
  byKey: Map<string, boolean>;
  byCategory: WeakMap<readonly string[], Partial<Record<LogLevel, boolean>>>;
} | undefined;

/**
 * Whether a record of this category and level would reach any sink under the current
 * configuration. LogTape builds every record (message, properties) before it checks levels;
 * an operator's debug lines about thousands of objects are garbage the JS engine must collect
 * even when nothing prints them, so callers check first. When unsure (no configuration,
 * LogTape being imported, filters, loggers elsewhere that might get our records under a
 * category prefix), the answer is yes; while LogTape is being imported, the framework's own
 * configuration answers.
 */
export function isLogged(category: readonly string[], level: LogLevel): boolean {
  const config = getConfig();
  if (config === null || config === LINKING) return true;
  return isLoggedUnder(config, category, level);
}

function isLoggedUnder(config: LogConfig, category: readonly string[], level: LogLevel): boolean {
  if (answers?.config !== config) answers = { config, byKey: new Map(), byCategory: new WeakMap() };
  // Only frozen categories are kept by identity, so a category found there is one: whether it
  // is frozen is asked of the runtime only when an answer is kept, not at every record.
  const levels = answers.byCategory.get(category);
  let answer = levels?.[level];
  if (answer !== undefined) return answer;
  const key = `${level}\u0000${category.join("\u0000")}`;
  answer = answers.byKey.get(key);
  if (answer === undefined) {
    answer = computeLogged(config, category, level);
    answers.byKey.set(key, answer);
  }
  if (levels !== undefined) levels[level] = answer;
  else if (Object.isFrozen(category)) answers.byCategory.set(category, { [level]: answer });
  return answer;
}

function computeLogged(config: LogConfig, category: readonly string[], level: LogLevel): boolean {
  const loggers = config.loggers.map((logger) => ({
    ...logger,
    path: typeof logger.category === "string" ? [logger.category] : [...logger.category],
  }));
  const onPath = (path: readonly string[]) =>
    path.length <= category.length && path.every((part, i) => part === category[i]);
  for (const logger of loggers) {
    if (logger.path[0] === "logtape") continue; // LogTape's own messages
    if (!onPath(logger.path) && (logger.sinks?.length ?? 0) > 0) return true;
    if (onPath(logger.path) && (logger.filters?.length ?? 0) > 0) return true;
  }
  // As LogTape dispatches: up from the category, every logger on the way must accept the
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
 * A message template's parts: `{name}` is the property `name` (as LogTape substitutes them),
 * `{{` and `}}` are braces.
 */
export function templateParts(template: string, properties: Record<string, unknown>): unknown[] {
  const parts: unknown[] = [];
  let text = "";
  for (let i = 0; i < template.length; i++) {
    const char = template[i];
    if ((char === "{" || char === "}") && template[i + 1] === char) {
      text += char;
      i++;
      continue;
    }
    const end = char === "{" ? template.indexOf("}", i + 1) : -1;
    if (end < 0) {
      text += char;
      continue;
    }
    parts.push(text, properties[template.slice(i + 1, end).trim()]);
    text = "";
    i = end;
  }
  parts.push(text);
  return parts;
}

/** A framework logger of one category (the part of LogTape's `Logger` the framework uses). */
export interface Logger {
  /** The category, e.g. `["kopf", "client", "api"]`. */
  readonly category: readonly string[];
  /** Pass on a record made by the caller (its message taken as it is). */
  emit(record: Omit<LogRecord, "category">): void;
  /** Log a message template (`{name}` for a property) with the properties given. */
  debug(template: string, properties?: Record<string, unknown>): void;
  info(template: string, properties?: Record<string, unknown>): void;
  warning(template: string, properties?: Record<string, unknown>): void;
  /** The same as {@link warning}. */
  warn(template: string, properties?: Record<string, unknown>): void;
  error(template: string, properties?: Record<string, unknown>): void;
}

/** The framework logger of a category, routed as the module says. */
export function getLogger(category: readonly string[]): Logger {
  const path = Object.freeze([...category]);
  const log = (level: LogLevel) => (template: string, given?: Record<string, unknown>) => {
    if (!isLogged(path, level)) return;
    const properties = { ...logContext.get(), ...given };
    route({
      category: path,
      level,
      message: templateParts(template, properties),
      rawMessage: template,
      timestamp: Date.now(),
      properties,
    });
  };
  return {
    category: path,
    emit: (record) => route({ ...record, category: path }),
    debug: log("debug"),
    info: log("info"),
    warning: log("warning"),
    warn: log("warning"),
    error: log("error"),
  };
}
