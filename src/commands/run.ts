/**
 * `kopf run [files...] [-m specifier...]`: import the operator's files and modules (their
 * `kopf.on.*` calls register handlers), configure the logging from the flags, and run
 * the operator until it is stopped (SIGINT, SIGTERM, or the signal of an embedding
 * test via `KopfRunner`).
 *
 * @module
 */
import { Command, Option } from "@commander-js/extra-typings";
import { getLogger } from "../platform/log_routing.ts";
import { configure } from "../platform/logging.ts";
import { formatLogRecord, LOG_FORMATS, type LogFormat } from "../structs/log_formats.ts";
import { writeStderrLine } from "../platform/stderr.ts";
import type { ConnectionInfo } from "../structs/credentials.ts";
import type { Memo } from "../structs/memos.ts";
import type { Clock } from "../structs/clock.ts";
import { OperatorSettings } from "../settings/operator_settings.ts";
import { loginWithDefaults, loginWithKubeconfig } from "../client/login.ts";
import { withSubstituteLogin } from "../client/login_substitute.ts";
import { getDefaultRegistry, matcherOf, type OperatorRegistry } from "../intents/registry.ts";
import { operator, run } from "../reactor/running.ts";
import { exitCodeFor, failureText } from "./usage.ts";
import type { OperatorOptions } from "../reactor/operator_options.ts";
import { missingCredentials } from "./credential_sources.ts";
import { runWatching } from "./run_watch.ts";
import {
  collect,
  CommandLineError,
  loadSources,
  parseFieldSelectorFlag,
  parseLabelSelectorFlag,
  parsePriority,
  parseSeconds,
  parseShards,
  planRun,
  type RunFlags,
  type RunPlan,
} from "./run_options.ts";

/**
 * What an embedding program (such as `KopfRunner`) changes about `kopf run`. The command
 * line itself uses none of it.
 */
export interface RunContext {
  /** The registry for the imported handlers; the default registry otherwise. */
  readonly registry?: OperatorRegistry;
  /** The operator's settings; the defaults otherwise. */
  readonly settings?: OperatorSettings;
  /** The operator's memo. */
  readonly memo?: Memo;
  /**
   * Stop the operator when this aborts. With a signal, the operator runs embedded: no
   * process signal handlers, no process exit; errors are thrown to the caller.
   */
  readonly signal?: AbortSignal;
  /** Where log lines go instead of stderr. */
  readonly writer?: (line: string) => void;
  /** Import files again even if this process imported them already. */
  readonly fresh?: boolean;
  /** Called once the operator has started serving. */
  readonly onReady?: () => void;
  /**
   * The login to use when the registry has no login handlers, instead of the built-in
   * ones (service account, kubeconfig) -- e.g. the credentials of a test's fake cluster.
   * It also stands in for the environment's credentials wherever the operator's files,
   * handlers or login handlers call `loginWithDefaults()` or `loginWithKubeconfig()`
   * themselves (for clients of their own), so that those reach the same cluster.
   */
  readonly login?: () => Promise<ConnectionInfo | undefined>;
  /** The operator's time (see `OperatorOptions.clock`): a simulation's virtual clock. */
  readonly clock?: Clock;
}

const logger = getLogger(["kopf", "cli"]);

/** Do what `kopf run` does, with the plan already checked. */
export function executeRun(plan: RunPlan, context: RunContext = {}): Promise<void> {
  const login = context.login;
  if (login === undefined) return serve(plan, context);
  // Everything the operator runs -- its files' top level included -- flows from here.
  return withSubstituteLogin(login, () => serve(plan, context));
}

async function serve(plan: RunPlan, context: RunContext): Promise<void> {
  configure({ ...plan.logging, ...(context.writer ? { writer: context.writer } : {}) });
  for (const warning of plan.warnings) logger.warn(warning);
  const registry = context.registry ?? getDefaultRegistry();
  await loadSources(plan.sources, { registry, fresh: context.fresh });
  if (matcherOf(registry).handlers.length === 0) {
    throw new CommandLineError(
      "Nothing to run: no handlers are registered. Give the operator's files or -m modules.",
    );
  }
  if (!context.login) {
    const missing = await missingCredentials(registry, { kubeconfig: plan.kubeconfig });
    if (missing) throw new CommandLineError(missing);
  }
  // The grace period goes into the settings (startup handlers may still change it).
  let settings = context.settings;
  if (plan.gracePeriod !== undefined) {
    settings ??= new OperatorSettings();
    settings.batching.exitTimeout = plan.gracePeriod;
  }
  if (plan.selectors !== undefined) {
    settings ??= new OperatorSettings();
    settings.watching.selectors.push(plan.selectors);
  }
  if (plan.leadership !== undefined) {
    settings ??= new OperatorSettings();
    const { leaderElection, shards, name, namespace } = plan.leadership;
    Object.assign(settings.leadership, { leaderElection, shards });
    if (name !== undefined) settings.leadership.name = name;
    if (namespace !== undefined) settings.leadership.namespace = namespace;
  }
  // Options left unset are not passed: the settings (and startup handlers) decide them.
  const options: OperatorOptions = {
    registry,
    settings,
    memo: context.memo,
    clusterwide: plan.clusterwide,
    namespaces: [...plan.namespaces],
    standalone: plan.standalone,
    onReady: context.onReady,
    ...(context.clock !== undefined ? { clock: context.clock } : {}),
    // Without login handlers: the kubeconfig given, else the pod's service account, else
    // the kubeconfig of KUBECONFIG or ~/.kube/config.
    defaultLogin: context.login ??
      (plan.kubeconfig !== undefined
        ? () => loginWithKubeconfig({ kubeconfig: plan.kubeconfig, context: plan.context })
        : () => loginWithDefaults({ context: plan.context })),
    ...(plan.priority !== undefined ? { priority: plan.priority } : {}),
    ...(plan.peeringName !== undefined ? { peeringName: plan.peeringName } : {}),
    ...(plan.livenessEndpoint !== undefined ? { livenessEndpoint: plan.livenessEndpoint } : {}),
    ...(plan.metricsEndpoint !== undefined ? { metricsEndpoint: plan.metricsEndpoint } : {}),
  };
  if (context.signal) {
    await operator({ ...options, signal: context.signal });
  } else {
    await run(options);
  }
}

/** The `kopf run` subcommand; `context` is for embedding (see {@link RunContext}). */
export function runCommand(context: RunContext = {}): Command {
  const command = new Command("run")
    .description("Run an operator: import its files and modules, then serve until stopped.")
    .argument("[files...]", "operator files to import (they register the handlers)")
    .option(
      "-m, --module <specifier>",
      "a module to import, e.g. npm:my-operator (repeatable)",
      collect,
    )
    .option(
      "-n, --namespace <pattern>",
      "serve namespaces matching a pattern like team-*,!team-b (repeatable)",
      collect,
    )
    .option("-A, --all-namespaces", "serve the whole cluster via the cluster-wide endpoints")
    .option("--standalone", "run as the only instance: no peering")
    .option("--priority <number>", "the priority in peering (0 by default)", parsePriority)
    .option("--peering <name>", "the name of the peering object")
    .option("--dev", "the development mode: priority 666")
    .option("--liveness <url>", "serve health probes at this URL, e.g. http://0.0.0.0:8080/healthz")
    .option(
      "--metrics <host:port>",
      "serve Prometheus metrics at http://<host:port>/metrics (and /readyz beside)",
    )
    .option(
      "--grace-period <seconds>",
      "how long running handlers may take to finish after SIGTERM (settings.batching.exitTimeout)",
      parseSeconds,
    )
    .option(
      "--leader-election",
      "run as one of several replicas: one leads and handles the objects, the others stand by",
    )
    .option(
      "--shards <count>",
      "run as one of several replicas sharing the objects in this many shards",
      parseShards,
    )
    .option(
      "--leader-election-id <name>",
      "the Lease of the replicas (with --shards, the prefix of theirs); kopf-operator",
    )
    .option(
      "--leader-election-namespace <namespace>",
      "where the Leases live (default: the pod's namespace, else default)",
    )
    .option("--kubeconfig <path>", "the kubeconfig file (default: KUBECONFIG or ~/.kube/config)")
    .option("--context <name>", "the kubeconfig context (default: the current one)")
    .option(
      "-l, --selector <selector>",
      "watch only the objects with these labels, e.g. app=web,tier in (a,b) (all resources)",
      parseLabelSelectorFlag,
    )
    .option(
      "--field-selector <selector>",
      "watch only the objects with these fields, e.g. metadata.name!=x (all resources)",
      parseFieldSelectorFlag,
    )
    .option("-v, --verbose", "show what the framework does (debug messages)")
    .option("-d, --debug", "show everything, the API traffic included")
    .option("-q, --quiet", "show warnings and errors only")
    .addOption(
      new Option("--log-format <format>", "the layout of log lines").choices(LOG_FORMATS),
    )
    .option("--log-prefix", "prefix messages about objects with [namespace/name]")
    .option("--no-log-prefix", "no [namespace/name] prefix")
    .option("--log-refkey <key>", "the key of the object reference in JSON lines")
    .option("--watch", "restart the operator when its files change (development)")
    .action(async (files, flags, self) => {
      try {
        const plan = planRun(files, { ...flags, logFormat: flags.logFormat as LogFormat });
        if (flags.watch) await runWatching(plan, context.signal !== undefined);
        else await executeRun(plan, context);
      } catch (error) {
        if (context.signal) throw error;
        self.error(failureText("run", error), { exitCode: exitCodeFor(error) });
      }
    });
  writeErrorsAsLogLines(command);
  return command as unknown as Command;
}

/**
 * In JSON mode, the command's own messages (a wrong command line, a failure to start) are
 * JSON lines too, like every log line: one record per message, its lines (a load error's
 * code frame and stack) kept in it.
 */
function writeErrorsAsLogLines(command: {
  opts(): { logFormat?: string };
  configureOutput(output: { writeErr: (text: string) => void }): unknown;
}): void {
  command.configureOutput({
    writeErr: (text) => {
      const lines = text.replace(/\n$/, "").split("\n");
      if (command.opts().logFormat !== "json") {
        for (const line of lines) writeStderrLine(line);
        return;
      }
      const layout = { format: "json", prefix: false, refkey: "object" } as const;
      writeStderrLine(formatLogRecord({
        category: ["kopf", "cli"],
        level: "error",
        message: [lines.join("\n")],
        timestamp: Date.now(),
        properties: {},
      }, layout));
    },
  });
}

export type { RunFlags };
