/**
 * `kopf freeze` and `kopf resume`: pause the operators of a peering by hand, and let them
 * go on again -- as Kopf's commands of the same names do, through the peering objects.
 *
 * `kopf freeze --lifetime 600` writes a record into the peering object(s) as if an operator
 * of priority 100 (`--priority`, 666 with `--dev`) were running: every operator of that
 * peering with a lower priority pauses until the record expires after the lifetime, or
 * until `kopf resume` removes it. The record is keyed by `--id`, by default the pod's name
 * (`POD_ID`) or `user@host`, so that a resume from the same place finds it; `--message`
 * says why (operators of this framework log it when they pause; Kopf ignores it).
 *
 * The peering object is `default` unless `--peering` names another: a `ClusterKopfPeering`
 * with `-A`, else a `KopfPeering` in each namespace of `-n` (patterns are matched against
 * the cluster's namespaces). Without either, the whole cluster's, as with `kopf run`.
 *
 * @module
 */
import { Command, InvalidArgumentError, Option } from "@commander-js/extra-typings";
import { getLogger } from "../platform/log_routing.ts";
import { PeeringSettings } from "../settings/cluster_settings.ts";
import type { ConnectionInfo } from "../structs/credentials.ts";
import { LOG_FORMATS, type LogFormat } from "../structs/log_formats.ts";
import type { Resource } from "../structs/resources.ts";
import { configure, type LoggingOptions } from "../platform/logging.ts";
import { ApiClient } from "../client/api.ts";
import { APINotFoundError } from "../client/api_errors.ts";
import { Discovery } from "../client/discovery.ts";
import { loginWithDefaults, loginWithKubeconfig } from "../client/login.ts";
import { listObjects } from "../client/objects.ts";
import { Vault } from "../client/vault.ts";
import { OperatorRegistry } from "../intents/registry.ts";
import {
  findPeeringResource,
  formatLastseen,
  manualIdentity,
  patchPeeringStatus,
  type PeerRecord,
} from "../engines/peer_records.ts";
import { PeeringConfigurationError } from "../engines/peering.ts";
import { isServedNamespace, literalNamespaces, makeScope } from "../structs/namespace_scopes.ts";
import { exitCodeFor, failureText } from "./usage.ts";
import { missingCredentials } from "./credential_sources.ts";
import {
  collect,
  CommandLineError,
  DEV_PRIORITY,
  parsePriority,
  planLogging,
} from "./run_options.ts";

/** The priority `kopf freeze` writes unless told otherwise, as in Kopf. */
export const FREEZE_PRIORITY = 100;

/** The flags of `kopf freeze` and `kopf resume` as commander parses them. */
export interface PeeringCommandFlags extends Omit<LoggingOptions, "writer"> {
  /** `-i/--id`: the key of the record; `POD_ID` or `user@host` by default. */
  readonly id?: string;
  /** `-m/--message`: why the operators are frozen (freeze only). */
  readonly message?: string;
  /** `-t/--lifetime`: seconds until the freeze expires (freeze only, required). */
  readonly lifetime?: number;
  /** `-p/--priority`: the priority of the freeze (freeze only; 100 by default). */
  readonly priority?: number;
  /** `--dev`: priority 666 (freeze only). */
  readonly dev?: boolean;
  /** `-n/--namespace`: the namespaces whose peering objects to mark (repeatable). */
  readonly namespace?: readonly string[];
  /** `-A/--all-namespaces`: the cluster-wide peering object. */
  readonly allNamespaces?: boolean;
  /** `-P/--peering`: the peering object's name; `default` by default. */
  readonly peering?: string;
  /** `--kubeconfig`: the kubeconfig file instead of `KUBECONFIG` or `~/.kube/config`. */
  readonly kubeconfig?: string;
  /** `--context`: the kubeconfig context instead of the current one. */
  readonly context?: string;
}

/** What `kopf freeze` or `kopf resume` will do, with every flag checked. */
export interface PeeringCommandPlan {
  /** `freeze` writes the record, `resume` removes it. */
  readonly action: "freeze" | "resume";
  /** The key of the record. */
  readonly identity: string;
  /** The peering object's name. */
  readonly peeringName: string;
  /** The cluster-wide peering object rather than the namespaced ones. */
  readonly clusterwide: boolean;
  /** The namespace patterns, when not cluster-wide. */
  readonly namespaces: readonly string[];
  /** The record's priority (freeze). */
  readonly priority: number;
  /** The record's lifetime in seconds (freeze). */
  readonly lifetime: number;
  /** The record's message (freeze), if any. */
  readonly message?: string;
  /** The kubeconfig file of the login, when given. */
  readonly kubeconfig?: string;
  /** The kubeconfig context of the login, when given. */
  readonly context?: string;
  /** How to log. */
  readonly logging: LoggingOptions;
  /** Warnings to log once logging is configured. */
  readonly warnings: readonly string[];
}

/** What an embedding program (such as a test) changes about the commands. */
export interface PeeringCommandContext {
  /** The login to use instead of the kubeconfig or the pod's service account. */
  readonly login?: () => Promise<ConnectionInfo | undefined>;
  /** Where log lines go instead of stderr. */
  readonly writer?: (line: string) => void;
  /**
   * Whether to configure the logging from the flags (yes by default); `false` leaves the
   * process's logging as it is, e.g. beside an operator running in the same process.
   */
  readonly configureLogging?: boolean;
  /** Stops waiting for the API when aborted. */
  readonly signal?: AbortSignal;
  /** Errors are thrown to the caller instead of ending the command with an exit code. */
  readonly embedded?: boolean;
}

/** Parse `--lifetime`: whole seconds, at least 1. */
export function parseLifetime(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError(
      `the lifetime must be a whole number of seconds \u2265 1, not ${JSON.stringify(value)}.`,
    );
  }
  return n;
}

/** Check the flags of `kopf freeze` (`action: "freeze"`) or `kopf resume`. */
export function planPeeringCommand(
  action: "freeze" | "resume",
  flags: PeeringCommandFlags,
): PeeringCommandPlan {
  const namespaces = flags.namespace ?? [];
  const warnings: string[] = [];
  if (flags.allNamespaces && namespaces.length > 0) {
    throw new CommandLineError("Use either -n/--namespace or -A/--all-namespaces, not both.");
  }
  for (const pattern of namespaces) {
    if (pattern.trim() === "") throw new CommandLineError("-n/--namespace needs a pattern.");
  }
  if (!flags.allNamespaces && namespaces.length === 0) {
    warnings.push(
      "Neither -n/--namespace nor -A/--all-namespaces is given: using the cluster-wide " +
        "peering as with -A, as kopf run does. Pass one of them to make the scope explicit.",
    );
  }
  for (const [flag, value] of [["--id", flags.id], ["--peering", flags.peering]] as const) {
    if (value !== undefined && value.trim() === "") {
      throw new CommandLineError(`${flag} needs a value.`);
    }
  }
  if (action === "freeze" && flags.lifetime === undefined) {
    throw new CommandLineError(
      "kopf freeze needs --lifetime: how many seconds the operators stay paused " +
        "(kopf resume ends it earlier).",
    );
  }
  return {
    action,
    identity: flags.id ?? manualIdentity(),
    peeringName: flags.peering ?? new PeeringSettings().name,
    clusterwide: namespaces.length === 0,
    namespaces: [...namespaces],
    priority: flags.priority ?? (flags.dev ? DEV_PRIORITY : FREEZE_PRIORITY),
    lifetime: action === "freeze" ? flags.lifetime! : 0,
    ...(flags.message !== undefined ? { message: flags.message } : {}),
    kubeconfig: flags.kubeconfig,
    context: flags.context,
    logging: planLogging(flags),
    warnings,
  };
}

const logger = getLogger(["kopf", "peering"]);

/** Where the records go: `undefined` for the cluster-wide object, else namespaces. */
async function placesOf(
  plan: PeeringCommandPlan,
  api: ApiClient,
  resources: readonly Resource[],
  signal: AbortSignal | undefined,
): Promise<(string | undefined)[]> {
  if (plan.clusterwide) return [undefined];
  const literal = literalNamespaces(plan.namespaces);
  const scope = makeScope({ namespaces: plan.namespaces });
  if (literal.length === plan.namespaces.length) return literal;
  const namespaces = resources.find((r) => r.group === "" && r.plural === "namespaces");
  if (namespaces === undefined) return literal;
  const listed = await listObjects(api, namespaces, { signal });
  return listed.items
    .map((item) => item.metadata?.name ?? "")
    .filter((name) => name !== "" && isServedNamespace(name, scope))
    .sort();
}

/**
 * Do what `kopf freeze` or `kopf resume` does, with the plan already checked: log in,
 * find the peering resource, and write (or remove) the record in each peering object.
 * Fails if the peering resource is not served, or if no peering object was found to freeze.
 */
export async function executePeeringCommand(
  plan: PeeringCommandPlan,
  context: PeeringCommandContext = {},
): Promise<void> {
  if (context.configureLogging ?? true) {
    configure({ ...plan.logging, ...(context.writer ? { writer: context.writer } : {}) });
  }
  for (const warning of plan.warnings) logger.warn(warning);
  if (!context.login) {
    const missing = await missingCredentials(new OperatorRegistry(), {
      kubeconfig: plan.kubeconfig,
    });
    if (missing) throw new CommandLineError(missing);
  }
  const login = context.login ??
    (plan.kubeconfig !== undefined
      ? () => loginWithKubeconfig({ kubeconfig: plan.kubeconfig, context: plan.context })
      : () => loginWithDefaults({ context: plan.context }));
  const vault = new Vault({ relogin: async () => ({ [`kopf-${plan.action}`]: await login() }) });
  await vault.login();
  await using api = new ApiClient(vault);
  const signal = context.signal;
  const resources = await new Discovery(api).resources(signal);
  const resource = findPeeringResource(resources, plan.clusterwide);
  const kind = plan.clusterwide ? "ClusterKopfPeering" : "KopfPeering";
  const name = JSON.stringify(plan.peeringName);
  if (resource === undefined) {
    throw new PeeringConfigurationError(
      `The ${kind} resource is not served, so there is no peering to ${plan.action}: apply ` +
        "Kopf's peering CRDs (examples/peering.yaml) and create the peering object.",
    );
  }
  const places = await placesOf(plan, api, resources, signal);
  if (places.length === 0) {
    throw new CommandLineError(`No namespace matches ${plan.namespaces.join(", ")}.`);
  }
  const record: PeerRecord | null = plan.action === "resume" ? null : {
    priority: plan.priority,
    lifetime: plan.lifetime,
    lastseen: formatLastseen(Date.now()),
    ...(plan.message !== undefined ? { message: plan.message } : {}),
  };
  const id = JSON.stringify(plan.identity);
  const touched: string[] = [];
  const missing: string[] = [];
  for (const namespace of places) {
    const where = namespace === undefined
      ? `${kind} ${name}`
      : `${kind} ${name} in ${JSON.stringify(namespace)}`;
    try {
      await patchPeeringStatus(api, resource, plan.peeringName, namespace, {
        [plan.identity]: record === null ? null : { ...record },
      }, { signal });
      touched.push(where);
      logger.info(
        record === null
          ? `Resumed: the freeze ${id} is removed from the peering ${where}.`
          : `Frozen: the peering ${where} holds ${id} with priority ${record.priority} for ` +
            `${record.lifetime}s; its operators of lower priorities pause until then ` +
            "(or kopf resume).",
      );
    } catch (error) {
      if (!(error instanceof APINotFoundError)) throw error;
      missing.push(where);
      logger.warn(`The peering ${where} does not exist: nothing to ${plan.action} there.`);
    }
  }
  if (touched.length === 0 && plan.action === "freeze") {
    throw new PeeringConfigurationError(
      `No peering object to freeze: ${missing.join(", ")} does not exist. Create it ` +
        "(operators with a peering object named default join it on their own), or name " +
        "another one with --peering.",
    );
  }
}

/** The logging flags, as on `kopf run`. */
function withLoggingOptions<C extends Command>(command: C): C {
  command
    .option("-v, --verbose", "show what the command does (debug messages)")
    .option("-d, --debug", "show everything, the API traffic included")
    .option("-q, --quiet", "show warnings and errors only")
    .addOption(new Option("--log-format <format>", "the layout of log lines").choices(LOG_FORMATS))
    .option("--log-prefix", "prefix messages about objects with [namespace/name]")
    .option("--no-log-prefix", "no [namespace/name] prefix")
    .option("--log-refkey <key>", "the key of the object reference in JSON lines");
  return command;
}

/** The flags both commands share: the scope, the peering, the record's key, the login. */
function withPeeringOptions<C extends Command>(command: C): C {
  command
    .option("-i, --id <id>", "the key of the freeze (default: POD_ID, else user@host)")
    .option(
      "-n, --namespace <pattern>",
      "the KopfPeering objects of these namespaces (repeatable; patterns like team-*)",
      collect,
    )
    .option("-A, --all-namespaces", "the cluster-wide ClusterKopfPeering object")
    .option("-P, --peering <name>", "the name of the peering object (default: default)")
    .option("--kubeconfig <path>", "the kubeconfig file (default: KUBECONFIG or ~/.kube/config)")
    .option("--context <name>", "the kubeconfig context (default: the current one)");
  return command;
}

function actionOf(
  action: "freeze" | "resume",
  context: PeeringCommandContext,
): (flags: Record<string, unknown>, self: Command) => Promise<void> {
  return async (flags, self) => {
    try {
      const plan = planPeeringCommand(action, {
        ...(flags as PeeringCommandFlags),
        logFormat: flags.logFormat as LogFormat | undefined,
      });
      await executePeeringCommand(plan, context);
    } catch (error) {
      if (context.embedded) throw error;
      self.error(failureText(action, error), { exitCode: exitCodeFor(error) });
    }
  };
}

/** The `kopf freeze` subcommand; `context` is for embedding (see {@link PeeringCommandContext}). */
export function freezeCommand(context: PeeringCommandContext = {}): Command {
  const command = withLoggingOptions(withPeeringOptions(
    new Command("freeze")
      .description(
        "Pause the operators of a peering: write a record of a higher priority into the " +
          "peering object(s) for a while.",
      )
      .option("-t, --lifetime <seconds>", "how long the freeze lasts (required)", parseLifetime)
      .option(
        "-p, --priority <number>",
        `the priority of the freeze (default: ${FREEZE_PRIORITY})`,
        parsePriority,
      )
      .option("--dev", `priority ${DEV_PRIORITY}`)
      .option("-m, --message <text>", "why: operators log it when they pause"),
  ));
  command.action(actionOf("freeze", context) as never);
  return command as unknown as Command;
}

/** The `kopf resume` subcommand; `context` is for embedding (see {@link PeeringCommandContext}). */
export function resumeCommand(context: PeeringCommandContext = {}): Command {
  const command = withLoggingOptions(withPeeringOptions(
    new Command("resume").description(
      "End a freeze: remove its record from the peering object(s), so that the operators " +
        "go on.",
    ),
  ));
  command.action(actionOf("resume", context) as never);
  return command as unknown as Command;
}
