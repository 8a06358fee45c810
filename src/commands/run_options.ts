/**
 * The options of `kopf run`, checked and turned into what the operator and the logging
 * need; and the loading of the operator's files and modules, which register their
 * handlers on the default registry as they are imported.
 *
 * @module
 */
import { InvalidArgumentError } from "@commander-js/extra-typings";
import { UsageError } from "../structs/errors.ts";
import { fileUrlOf, isModuleNotFound } from "../platform/modules.ts";
import { pathExists } from "../platform/files.ts";
import { describeLoadFailure, firstLineOf } from "./load_errors.ts";
import type { LoggingOptions } from "../platform/logging.ts";
import {
  parseFieldSelector,
  parseLabelSelector,
  SelectorSyntaxError,
} from "../structs/label_selectors.ts";
import type { WatchSelectors } from "../settings/watch_selectors.ts";
import { parseEndpoint } from "../engines/endpoints.ts";
import {
  getDefaultRegistry,
  type OperatorRegistry,
  setDefaultRegistry,
} from "../intents/registry.ts";

/** The priority that `--dev` implies, as in Kopf. */
export const DEV_PRIORITY = 666;

/**
 * The flags of `kopf run` as commander parses them; the logging flags (`--verbose`,
 * `--debug`, `--quiet`, `--log-format`, `--[no-]log-prefix`, `--log-refkey`) are the
 * options of `configure()` by the same names.
 */
export interface RunFlags extends Omit<LoggingOptions, "writer"> {
  /** `-m/--module`: import specifiers (repeatable). */
  readonly module?: readonly string[];
  /** `-n/--namespace`: namespace names or patterns (repeatable). */
  readonly namespace?: readonly string[];
  /** `-A/--all-namespaces`: serve the whole cluster via cluster-wide endpoints. */
  readonly allNamespaces?: boolean;
  /** `--standalone`: no peering at all. */
  readonly standalone?: boolean;
  /** `--priority`: the priority in peering. */
  readonly priority?: number;
  /** `--peering`: the name of the peering object. */
  readonly peering?: string;
  /** `--dev`: the development mode (priority 666). */
  readonly dev?: boolean;
  /** `--liveness`: the URL of the liveness endpoint. */
  readonly liveness?: string;
  /** `--metrics`: where to serve metrics: `host:port` (path `/metrics`), or a URL. */
  readonly metrics?: string;
  /** `--grace-period`: seconds for running handlers to finish after SIGTERM. */
  readonly gracePeriod?: number;
  /** `--leader-election`: one replica of several handles the objects at a time. */
  readonly leaderElection?: boolean;
  /** `--shards`: the objects are split among the replicas into this many shards. */
  readonly shards?: number;
  /** `--leader-election-id`: the Lease's name (the prefix of the shards' Leases). */
  readonly leaderElectionId?: string;
  /** `--leader-election-namespace`: where the Leases live. */
  readonly leaderElectionNamespace?: string;
  /** `--kubeconfig`: the kubeconfig file instead of `KUBECONFIG` or `~/.kube/config`. */
  readonly kubeconfig?: string;
  /** `--context`: the kubeconfig context instead of the current one. */
  readonly context?: string;
  /** `-l/--selector`: a label selector for the list and watch requests of every resource. */
  readonly selector?: string;
  /** `--field-selector`: a field selector for the list and watch requests of every resource. */
  readonly fieldSelector?: string;
}

/** What to import before the operator starts: files by path, modules by specifier. */
export interface OperatorSource {
  /** How the user named it (a path or a specifier), for messages. */
  readonly name: string;
  /** What `import()` gets: a `file:` URL for files, the specifier for modules. */
  readonly specifier: string;
  /** Whether it is a file that must exist. */
  readonly file: boolean;
}

/** What `kopf run` will do, with every flag checked. */
export interface RunPlan {
  /** The files and modules to import, in the order given (files first). */
  readonly sources: readonly OperatorSource[];
  /** Serve the whole cluster via cluster-wide endpoints (`-A`). */
  readonly clusterwide: boolean;
  /** The namespace patterns (`-n`); empty with `-A`. */
  readonly namespaces: readonly string[];
  /** No peering (`--standalone`). */
  readonly standalone: boolean;
  /** The priority in peering (`--priority`, or 666 with `--dev`); unset otherwise. */
  readonly priority?: number;
  /** The peering object's name, when given. */
  readonly peeringName?: string;
  /** The liveness endpoint's URL, when given. */
  readonly livenessEndpoint?: string;
  /** The metrics endpoint's URL, when given. */
  readonly metricsEndpoint?: string;
  /** Seconds for running handlers to finish at a stop (`settings.batching.exitTimeout`). */
  readonly gracePeriod?: number;
  /** How the replicas share the work (`settings.leadership`), when asked for. */
  readonly leadership?: LeadershipPlan;
  /** The kubeconfig file of the default login, when given. */
  readonly kubeconfig?: string;
  /** The kubeconfig context of the default login, when given. */
  readonly context?: string;
  /** The selectors for every resource's watches (`-l`, `--field-selector`), when given. */
  readonly selectors?: WatchSelectors;
  /** How to log. */
  readonly logging: LoggingOptions;
  /** A warning to log once logging is configured (e.g. the implied `-A`). */
  readonly warnings: readonly string[];
}

/** The replicas' coordination of `kopf run`'s flags (see `settings.leadership`). */
export interface LeadershipPlan {
  /** One leader at a time (`--leader-election`). */
  readonly leaderElection: boolean;
  /** Shards (`--shards`); 1 with leader election. */
  readonly shards: number;
  /** The Lease's name, when given. */
  readonly name?: string;
  /** The Leases' namespace, when given. */
  readonly namespace?: string;
}

/** A wrong command line: printed as one line, exit code 2. */
export class CommandLineError extends UsageError {
  /** The error's name. */
  override name = "CommandLineError";
}

/** Parse `--grace-period`: a number of seconds, zero or more. */
export function parseSeconds(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !(n >= 0) || !Number.isFinite(n)) {
    throw new InvalidArgumentError(`it must be a number of seconds, not ${JSON.stringify(value)}.`);
  }
  return n;
}

/** Parse `--shards`: an integer of 1 or more. */
export function parseShards(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError(
      `the number of shards must be an integer of 1 or more, not ${JSON.stringify(value)}.`,
    );
  }
  return n;
}

/** The coordination the flags ask for; `undefined` for a single replica. */
function planLeadership(flags: RunFlags): LeadershipPlan | undefined {
  const shards = flags.shards ?? 1;
  const named = flags.leaderElectionId !== undefined || flags.leaderElectionNamespace !== undefined;
  if (flags.leaderElection && shards > 1) {
    throw new CommandLineError(
      "Use either --leader-election or --shards, not both (a leader holds the only shard).",
    );
  }
  if (!flags.leaderElection && shards === 1) {
    if (named) {
      throw new CommandLineError(
        "--leader-election-id and --leader-election-namespace need --leader-election or --shards.",
      );
    }
    return undefined;
  }
  if (flags.peering !== undefined) {
    throw new CommandLineError(
      `Use either --peering or ${flags.leaderElection ? "--leader-election" : "--shards"}, not ` +
        "both: the replicas would be peers of the same priority and all pause.",
    );
  }
  for (
    const [flag, value] of [
      ["--leader-election-id", flags.leaderElectionId],
      ["--leader-election-namespace", flags.leaderElectionNamespace],
    ]
  ) {
    if (value !== undefined && !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(value)) {
      throw new CommandLineError(
        `${flag} needs a lowercase DNS name like kopf-operator, not ${JSON.stringify(value)}.`,
      );
    }
  }
  return {
    leaderElection: Boolean(flags.leaderElection),
    shards,
    ...(flags.leaderElectionId !== undefined ? { name: flags.leaderElectionId } : {}),
    ...(flags.leaderElectionNamespace !== undefined
      ? { namespace: flags.leaderElectionNamespace }
      : {}),
  };
}

/** Parse `-l/--selector`: a label selector in the API server's syntax. */
export function parseLabelSelectorFlag(value: string): string {
  return checkedSelector(value, parseLabelSelector);
}

/** Parse `--field-selector`: a field selector in the API server's syntax. */
export function parseFieldSelectorFlag(value: string): string {
  return checkedSelector(value, parseFieldSelector);
}

function checkedSelector(value: string, parse: (text: string) => unknown[]): string {
  try {
    if (parse(value).length === 0) throw new InvalidArgumentError("it is empty.");
  } catch (error) {
    if (error instanceof SelectorSyntaxError) throw new InvalidArgumentError(`${error.message}.`);
    throw error;
  }
  return value;
}

/** Parse `--priority`: an integer. */
export function parsePriority(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isSafeInteger(n)) {
    throw new InvalidArgumentError(
      `the priority must be an integer, not ${JSON.stringify(value)}.`,
    );
  }
  return n;
}

/** Collect a repeatable option's values. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** The metrics endpoint of `--metrics`: `host:port` means `http://host:port/metrics`. */
export function metricsUrl(value: string): string {
  const url = /^[a-z]+:\/\//i.test(value) ? value : `http://${value}/metrics`;
  try {
    parseEndpoint(url, "metrics");
  } catch (error) {
    throw new CommandLineError(
      `--metrics: ${(error as Error).message} Give host:port, e.g. 0.0.0.0:9090.`,
    );
  }
  return url;
}

/** Check a liveness endpoint the way the operator will read it: an `http://` URL. */
export function checkLivenessUrl(value: string): string {
  try {
    parseEndpoint(value);
  } catch (error) {
    throw new CommandLineError(`--liveness: ${(error as Error).message}`);
  }
  return value;
}

/** Check the flags and the files; throws {@link CommandLineError} with one line on bad input. */
export function planRun(files: readonly string[], flags: RunFlags): RunPlan {
  const namespaces = flags.namespace ?? [];
  const warnings: string[] = [];
  if (flags.allNamespaces && namespaces.length > 0) {
    throw new CommandLineError("Use either -n/--namespace or -A/--all-namespaces, not both.");
  }
  for (const pattern of namespaces) {
    if (pattern.trim() === "") {
      throw new CommandLineError("-n/--namespace needs a non-empty pattern.");
    }
  }
  if (!flags.allNamespaces && namespaces.length === 0) {
    warnings.push(
      "Neither -n/--namespace nor -A/--all-namespaces is given: serving the whole cluster " +
        "as with -A. Pass one of them to make the scope explicit.",
    );
  }
  if (flags.standalone && flags.peering !== undefined) {
    throw new CommandLineError("Use either --standalone or --peering, not both.");
  }
  if (flags.peering !== undefined && flags.peering.trim() === "") {
    throw new CommandLineError("--peering needs the name of a peering object.");
  }
  for (const [flag, value] of [["--kubeconfig", flags.kubeconfig], ["--context", flags.context]]) {
    if (value !== undefined && value.trim() === "") {
      throw new CommandLineError(`${flag} needs a value.`);
    }
  }
  const leadership = planLeadership(flags);
  const sources: OperatorSource[] = [
    ...files.map((name) => ({ name, specifier: fileUrlOf(name), file: true })),
    ...(flags.module ?? []).map((name) => ({
      name,
      specifier: moduleSpecifier(name),
      file: false,
    })),
  ];
  return {
    sources,
    clusterwide: !namespaces.length,
    namespaces: [...namespaces],
    // Replicas coordinated by Leases do not peer (they would all pause each other).
    standalone: Boolean(flags.standalone) || leadership !== undefined,
    priority: flags.priority ?? (flags.dev ? DEV_PRIORITY : undefined),
    peeringName: flags.peering,
    livenessEndpoint: flags.liveness === undefined ? undefined : checkLivenessUrl(flags.liveness),
    metricsEndpoint: flags.metrics === undefined ? undefined : metricsUrl(flags.metrics),
    gracePeriod: flags.gracePeriod,
    ...(leadership !== undefined ? { leadership } : {}),
    kubeconfig: flags.kubeconfig,
    context: flags.context,
    ...(flags.selector !== undefined || flags.fieldSelector !== undefined
      ? { selectors: { labelSelector: flags.selector, fieldSelector: flags.fieldSelector } }
      : {}),
    logging: planLogging(flags),
    warnings,
  };
}

/**
 * The logging of the flags shared by the subcommands (`-v/--verbose`, `-d/--debug`,
 * `-q/--quiet`, `--log-format`, `--[no-]log-prefix`, `--log-refkey`), checked.
 */
export function planLogging(flags: Omit<LoggingOptions, "writer">): LoggingOptions {
  if ([flags.verbose, flags.debug, flags.quiet].filter(Boolean).length > 1) {
    throw new CommandLineError("Use only one of --verbose, --debug and --quiet.");
  }
  if (flags.logRefkey !== undefined && flags.logRefkey.trim() === "") {
    throw new CommandLineError("--log-refkey needs a key, such as `object`.");
  }
  return {
    verbose: flags.verbose,
    debug: flags.debug,
    quiet: flags.quiet,
    logFormat: flags.logFormat,
    logPrefix: flags.logPrefix,
    logRefkey: flags.logRefkey,
  };
}

/** A module specifier as `-m` takes it: relative paths are resolved like files. */
function moduleSpecifier(name: string): string {
  if (name.trim() === "") throw new CommandLineError("-m/--module needs a module specifier.");
  return name.startsWith("./") || name.startsWith("../") ? fileUrlOf(name) : name;
}

/** Options of {@link loadSources}. */
export interface LoadOptions {
  /** The registry the imported handlers go to (it is the default one while importing). */
  readonly registry?: OperatorRegistry;
  /**
   * Import files and relative modules afresh even when this process imported them before
   * (so that each operator in one process registers their handlers again).
   */
  readonly fresh?: boolean;
}

let freshCounter = 0;

/** The loading in progress: loads wait for each other, since the default registry is global. */
let loading: Promise<unknown> = Promise.resolve();

/**
 * Import the operator's files and modules; their `kopf.on.*` calls register handlers on
 * the registry given (made the default one meanwhile). A missing file, or a module that
 * is not there, ends with a {@link CommandLineError} naming it (a usage error); one that
 * fails to load -- a syntax error, a throw at its top level, an import of its own that is
 * missing -- with an `OperatorLoadError` saying where (an error of the operator).
 */
export async function loadSources(
  sources: readonly OperatorSource[],
  options: LoadOptions = {},
): Promise<void> {
  for (const source of sources) {
    if (source.file && !(await pathExists(source.name))) {
      throw new CommandLineError(`Cannot load ${source.name}: no such file.`);
    }
  }
  const turn = loading.then(() => importOnto(sources, options));
  loading = turn.catch(() => undefined);
  await turn;
}

/**
 * Whether the error says that the module itself is not there (rather than one that it
 * imports, whose place the message names): Deno's `Module not found "<its URL>"`, or
 * that its package does not exist or cannot be fetched.
 */
function isMissing(source: OperatorSource, error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  if (/\n\s*at /.test(message)) return false;
  // `npm:@scope/name@1` -> `@scope/name`: how package errors name it.
  const bare = source.name.replace(/^(npm|jsr):/, "").replace(/(?<=.)@[^@/]*$/, "");
  const named = message.includes(source.specifier) || message.includes(bare);
  return named &&
    (isModuleNotFound(error) || /does not exist|failed to load|not found/i.test(message));
}

async function importOnto(sources: readonly OperatorSource[], options: LoadOptions): Promise<void> {
  const previous = getDefaultRegistry();
  if (options.registry) setDefaultRegistry(options.registry);
  try {
    for (const source of sources) {
      let specifier = source.specifier;
      if (options.fresh && specifier.startsWith("file:")) {
        specifier += `${specifier.includes("?") ? "&" : "?"}kopf-run=${++freshCounter}`;
      }
      try {
        await import(specifier);
      } catch (error) {
        if (!source.file && isMissing(source, error)) {
          throw new CommandLineError(`Cannot load ${source.name}: ${firstLineOf(error)}`, {
            cause: error,
          });
        }
        throw await describeLoadFailure(source.name, error);
      }
    }
  } finally {
    if (options.registry) setDefaultRegistry(previous);
  }
}
