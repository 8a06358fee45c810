/**
 * Running an operator: `operator()` for embedding (stopped by an `AbortSignal`), and
 * `run()` for scripts (stopped by SIGINT/SIGTERM, exiting with a code on failure).
 *
 * An operator is a {@link Manager} of runnables (`reactor/assembly.ts` lists them): the
 * startup handlers, the endpoints, the API client (login), the event posting, peering,
 * the replicas' coordination, admission, daemons and timers, processing, queueing and
 * observation, started in that order and stopped in reverse. On the signal: the watches
 * stop, the workers finish within `batching.exitTimeout` (then are aborted), the daemons
 * and timers are awaited as long, the operator leaves the peering and gives its Leases
 * back, cleanup handlers run, pending events are posted, connections close; then
 * `operator()` resolves.
 *
 * Several operators can run in one process, each with its own registry, settings and
 * memo: nothing here is global.
 *
 * @module
 */

import { realClock } from "../structs/clock.ts";
import { Memo } from "../structs/memos.ts";
import { summarizeError } from "../structs/log_formats.ts";
import { makeScope, type Scope } from "../structs/namespace_scopes.ts";
import { Semaphore } from "../structs/semaphores.ts";
import { outsideContexts } from "../platform/async_context.ts";
import { ensureLoggingConfigured } from "../platform/logging.ts";
import { describePermissionError } from "../platform/permission_flags.ts";
import { exitProcess } from "../platform/process.ts";
import { onTerminationSignals } from "../platform/termination_signals.ts";
import { refreshTracing } from "../platform/tracing.ts";
import { loginWithDefaults } from "../client/login.ts";
import { OperatorSettings } from "../settings/operator_settings.ts";
import { getDefaultRegistry, matcherOf } from "../intents/registry.ts";
import { getDefaultLifecycle } from "../intents/lifecycles.ts";
import { ObjectTable } from "./objects/object_table.ts";
import { reactorLogger } from "./default_logger.ts";
import { Manager } from "./manager.ts";
import { assembleOperator } from "./assembly.ts";
import { applyOptions, checkOptions, type OperatorOptions } from "./operator_options.ts";
import type { OperatorParts } from "./operator_parts.ts";
import { DEFAULT_WRITE_LIMIT } from "./pipeline/pipeline.ts";

/**
 * Run an operator until `options.signal` aborts; see the module docs. Rejects if it cannot
 * start (unsupported options, a failing startup handler, no credentials, an unreachable
 * cluster) or if it fails while running.
 *
 * @example Embed an operator in a program of one's own, and stop it after a while
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * const registry = new kopf.OperatorRegistry();
 * kopf.on.create("kopfexamples", { registry }, ({ name }) => console.log(`created ${name}`));
 * const stop = new AbortController();
 * setTimeout(() => stop.abort(), 60_000);
 * await kopf.operator({ registry, namespaces: ["default"], signal: stop.signal });
 * ```
 */
export async function operator(options: OperatorOptions = {}): Promise<void> {
  await (await prepareOperator(options)).run();
}

/** An operator ready to run: its manager, and its run until the options' signal aborts. */
interface PreparedOperator {
  /** The manager of its runnables. */
  readonly manager: Manager;
  /** Run it; see {@link operator}. */
  run(): Promise<void>;
}

/** Check the options and assemble the operator, not running yet. */
async function prepareOperator(options: OperatorOptions): Promise<PreparedOperator> {
  ensureLoggingConfigured();
  checkOptions(options);
  const parts = await partsOf(options);
  applyOptions(options, parts.settings, parts.scope.clusterwide);
  const manager = new Manager({
    logger: parts.logger,
    budget: () => parts.settings.batching.exitTimeout,
  });
  assembleOperator(
    manager,
    parts,
    { liveness: options.livenessEndpoint, metrics: options.metricsEndpoint },
    options.onReady,
  );
  const signal = options.signal ?? new AbortController().signal;
  return {
    manager,
    run: async () => {
      // Tracing only with an SDK registered by now: nothing of it runs otherwise.
      if (await refreshTracing()) {
        parts.logger.debug("Tracing through OpenTelemetry: a tracer provider records.");
      }
      try {
        await manager.run(signal);
      } catch (error) {
        // Stopped while starting (e.g. during retried startup or login handlers): no failure.
        if (!(signal.aborted && isAbortError(error))) throw error;
        parts.logger.info("The operator was stopped while starting.");
      }
    },
  };
}

/**
 * The operator's shared parts, from its options and their defaults. The parts that only some
 * operators have (metrics, the children's changes, indices) are loaded only by those: the
 * others start without their modules.
 */
async function partsOf(options: OperatorOptions): Promise<OperatorParts> {
  const registry = options.registry ?? getDefaultRegistry();
  const matcher = matcherOf(registry);
  const logger = options.logger ?? reactorLogger();
  const clock = options.clock ?? realClock;
  // Metrics only when asked for: nothing is counted otherwise.
  const metrics = options.metricsEndpoint === undefined
    ? undefined
    : new (await outsideContexts(() => import("../structs/operator_metrics.ts"))).OperatorMetrics();
  const memo = options.memo ?? new Memo();
  const objects = new ObjectTable(memo);
  const children = matcher.childHandlers().length > 0
    ? new (await outsideContexts(() => import("./objects/parent_changes.ts"))).ChildChanges(objects)
    : undefined;
  // The indices exist from the start: activities get them too (possibly still filling up).
  const indexers = matcher.indexNames().length > 0
    ? new (await outsideContexts(() => import("../engines/indexing.ts"))).OperatorIndexers({
      registry,
      clock,
      metrics,
    })
    : undefined;
  return {
    registry,
    matcher,
    settings: options.settings ?? new OperatorSettings(),
    memo,
    clock,
    logger,
    scope: scopeOf(options, logger),
    lifecycle: options.lifecycle ?? getDefaultLifecycle(),
    defaultLogin: options.defaultLogin ?? (() => loginWithDefaults()),
    metrics,
    children,
    indexers,
    objects,
    writes: new Semaphore(DEFAULT_WRITE_LIMIT),
  };
}

/** The namespaces served; the whole cluster, with a warning, when none are given. */
function scopeOf(options: OperatorOptions, logger: OperatorParts["logger"]): Scope {
  if (!options.clusterwide && (options.namespaces?.length ?? 0) === 0) {
    logger.warning("No namespaces are given: serving the whole cluster (clusterwide).");
    return makeScope({ clusterwide: true });
  }
  return makeScope({ clusterwide: options.clusterwide, namespaces: options.namespaces });
}

/** An error in one line: a missing permission as what to grant, else its first line. */
export function oneLine(error: unknown): string {
  return describePermissionError(error) ?? summarizeError(error);
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === "AbortError";
}

/**
 * Run an operator in a script: like {@link operator}, also stopped gracefully by SIGINT or
 * SIGTERM (a second signal exits at once with code 1). If the operator fails, the error
 * is logged in one line and the process exits with code 1.
 *
 * @example A self-contained operator script (`deno run operator.ts`)
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.create("kopfexamples", ({ logger }) => logger.info("hello"));
 * await kopf.run({ clusterwide: true, livenessEndpoint: "http://0.0.0.0:8080/healthz" });
 * ```
 */
export async function run(options: OperatorOptions = {}): Promise<void> {
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) controller.abort();
  const logger = options.logger ?? reactorLogger();
  let prepared: PreparedOperator | undefined;
  let signals = 0;
  const removeListeners = onTerminationSignals((signal) => {
    signals++;
    if (signals === 1) {
      logger.info(`Signal ${signal} received: the operator is stopping.`);
      controller.abort();
    } else {
      const pending = prepared?.manager.pending() ?? [];
      logger.warning(
        `Signal ${signal} received again: exiting at once.` + (pending.length === 0 ? "" : (
          ` The outcome of the handling of ${pending.join(", ")} is not stored: its ` +
          "handlers run again."
        )),
      );
      exitProcess(1);
    }
  });
  try {
    ensureLoggingConfigured();
    prepared = await prepareOperator({ ...options, logger, signal: controller.signal });
    await prepared.run();
  } catch (error) {
    removeListeners();
    logger.error(`The operator has failed: ${oneLine(error)}`);
    exitProcess(1);
  } finally {
    removeListeners();
    options.signal?.removeEventListener("abort", onAbort);
  }
}
