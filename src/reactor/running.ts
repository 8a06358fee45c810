/**
 * Running an operator: `operator()` for embedding (stopped by an `AbortSignal`), and
 * `run()` for scripts (stopped by SIGINT/SIGTERM, exiting with a code on failure).
 *
 * The order of things:
 *
 * 1. The options are checked: anything this version cannot do fails at once with one
 *    clear line — nothing is silently ignored.
 * 2. Startup handlers run (they may tune the settings); a permanent failure ends here.
 *    Admission handlers then need `settings.admission.server`, else the operator fails.
 *    Then the endpoints start, if asked for: liveness (probe handlers), metrics
 *    (Prometheus), and `/readyz` beside them.
 * 3. Login: the login handlers (or, without any, the service account in a pod or the
 *    kubeconfig) fill the credentials vault; they run again whenever the vault runs dry.
 * 4. Discovery, peering (without a peering object, or with `standalone`, the operator runs
 *    alone; else it keeps its record in the peering object alive, and its watches of
 *    objects pause while a peer with a higher or the same priority is alive), the
 *    webhook server (with admission handlers; it also keeps the managed webhook
 *    configurations), then observation: one watch per served resource and namespace,
 *    feeding one worker per object, which processes each object's latest state (and
 *    tells the daemons and timers about it, if the operator has any).
 * 5. On the signal: the watches stop, the daemons and timers are stopped and awaited
 *    (within `batching.exitTimeout`), the workers finish within `batching.exitTimeout`
 *    (then are aborted), the operator leaves the peering, cleanup handlers run, pending
 *    events are posted, connections close; then `operator()` resolves.
 *
 * Several operators can run in one process, each with its own registry, settings and
 * memo: nothing here is global.
 *
 * @module
 */

import { type Clock, realClock, settlesWithin } from "../structs/clock.ts";
import { ConfigurationError } from "../structs/errors.ts";
import type { ConnectionInfo } from "../structs/credentials.ts";
import { Memo } from "../structs/memos.ts";
import { summarizeError } from "../structs/log_formats.ts";
import type { Resource } from "../structs/resources.ts";
import type { RawBody } from "../structs/bodies.ts";
import { ensureLoggingConfigured } from "../platform/logging.ts";
import { describePermissionError } from "../platform/permission_flags.ts";
import { exitProcess } from "../platform/process.ts";
import { onTerminationSignals } from "../platform/termination_signals.ts";
import { ApiClient } from "../client/api.ts";
import { Discovery } from "../client/discovery.ts";
import { loginWithDefaults } from "../client/login.ts";
import { Vault } from "../client/vault.ts";
import { OperatorSettings } from "../settings/operator_settings.ts";
import { getDefaultRegistry, matcherOf, type OperatorRegistry } from "../intents/registry.ts";
import { checkLifecycle, getDefaultLifecycle, type LifeCycleFn } from "../intents/lifecycles.ts";
import { ObjectMemories } from "../handling/memories.ts";
import { runWithPostingTarget } from "../handling/posting_queue.ts";
import { Semaphore } from "../structs/semaphores.ts";
import { type DefaultLogin, runActivity, runLogin } from "../engines/activities.ts";
import {
  type EndpointRoute,
  livenessRoute,
  metricsRoute,
  parseEndpoint,
  readinessRoute,
  startEndpoints,
} from "../engines/endpoints.ts";
import { OperatorMetrics, resourceLabel } from "../structs/operator_metrics.ts";
import { watchProcessMetrics } from "../platform/process_metrics.ts";
import { refreshTracing } from "../platform/tracing.ts";
import { startEventPoster } from "../engines/posting.ts";
import { Spawner } from "../engines/daemons.ts";
import { startPeering } from "../engines/peering.ts";
import { OperatorIndexers } from "../engines/indexing.ts";
import { type RunningAdmission, startAdmission } from "../engines/admission.ts";
import type { HandlerKind } from "../intents/handlers.ts";
import type { Logger } from "../structs/loggers.ts";
import { reactorLogger } from "./default_logger.ts";
import {
  describeScope,
  isServedNamespace,
  literalNamespaces,
  makeScope,
  type NamespacePattern,
  needsNamespaceWatching,
  type Scope,
} from "./namespaces.ts";
import { observationClient, Observer } from "./observation.ts";
import { type Coordination, createCoordination } from "./coordination.ts";
import { DEFAULT_WRITE_LIMIT, ObjectProcessor } from "./processing.ts";
import { Multiplexer } from "./queueing.ts";

/** Options of {@link operator}. */
export interface OperatorOptions {
  /** The handlers; the default registry (where `kopf.on.*` register) if omitted. */
  readonly registry?: OperatorRegistry;
  /** The settings; Kopf's defaults if omitted. Startup handlers may change them. */
  readonly settings?: OperatorSettings;
  /** The operator's memo; each object gets a shallow copy. A new `Memo` if omitted. */
  readonly memo?: unknown;
  /** Serve the whole cluster. */
  readonly clusterwide?: boolean;
  /** Serve these namespaces: names, globs, negations (`!kube-*`) or regular expressions. */
  readonly namespaces?: readonly NamespacePattern[];
  /** Run without peering even if peering resources exist. */
  readonly standalone?: boolean;
  /** The priority among peers (`settings.peering.priority`; 0 by default). */
  readonly priority?: number;
  /**
   * The peering object's name (`settings.peering.name`); giving it makes the peering
   * mandatory: the operator pauses until that object exists.
   */
  readonly peeringName?: string;
  /**
   * Run as one of several replicas of which one leads and handles the objects, the others
   * standing by (`settings.leadership.leaderElection`; the Lease is
   * `settings.leadership.name`). Peering is then off.
   */
  readonly leaderElection?: boolean;
  /**
   * Run as one of several replicas sharing the objects in this many shards
   * (`settings.leadership.shards`). Peering is then off.
   */
  readonly shards?: number;
  /** Answer liveness probes with the probe handlers' results here, e.g. `http://0.0.0.0:8080/healthz`. */
  readonly livenessEndpoint?: string;
  /**
   * Expose Prometheus metrics here, e.g. `http://0.0.0.0:9090/metrics` (the same host and
   * port as the liveness endpoint share its server). `/readyz` is answered beside both.
   */
  readonly metricsEndpoint?: string;
  /** Stops the operator gracefully when aborted. */
  readonly signal?: AbortSignal;
  /**
   * Called once when every watch started at first has listed its objects (or failed once):
   * objects created afterwards arrive as watch events, not in an initial listing.
   */
  readonly onReady?: () => void;
  /**
   * The login used when no login handlers are registered; by default the in-cluster
   * service account when running in a pod, else the kubeconfig (`KUBECONFIG`, `~/.kube/config`).
   */
  readonly defaultLogin?: DefaultLogin;
  /**
   * The operator's time: its timers and delays, and the wall time it writes on objects
   * and gives to handlers. The real clock by default; tests may fix or move it.
   */
  readonly clock?: Clock;
  /** Where the operator reports what it does; the `kopf.reactor` logger by default. */
  readonly logger?: Logger;
  /**
   * Which of the due handlers run in each handling cycle, e.g. `kopf.lifecycles.allAtOnce`;
   * the default lifecycle (`kopf.setDefaultLifecycle()`, else `asap`: one per cycle).
   */
  readonly lifecycle?: LifeCycleFn;
}

/**
 * The options cannot work with this version; the message says why in one line.
 *
 * @example Admission handlers without a webhook server stop the operator at its start
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.validate("kopfexamples", () => {});
 * try {
 *   await kopf.operator({ namespaces: ["default"] }); // no settings.admission.server
 * } catch (error) {
 *   if (!(error instanceof kopf.OperatorConfigurationError)) throw error;
 *   console.error(error.message); // says to set settings.admission.server
 * }
 * ```
 */
export class OperatorConfigurationError extends ConfigurationError {
  /** The error's name, for logs and stack traces. */
  override name = "OperatorConfigurationError";
}

/** Kinds of handlers this version cannot run, with what to call them; none at present. */
/** The kinds of handlers served by watching objects (admission handlers are called instead). */
const WATCHED_KINDS: readonly HandlerKind[] = ["changing", "event", "daemon", "timer", "index"];

/** Admission handlers need a webhook server; Kopf fails at startup without one, and so here. */
function checkAdmission(registry: OperatorRegistry, settings: OperatorSettings): void {
  const handler = matcherOf(registry).handlers.find((h) => h.kind === "webhook");
  if (handler !== undefined && settings.admission.server === null) {
    throw new OperatorConfigurationError(
      `${handler.registrar} handler ${JSON.stringify(handler.id)} is registered, but no ` +
        "webhook server is configured: set settings.admission.server (e.g. new " +
        "kopf.WebhookServer()) in a startup handler.",
    );
  }
}

/** Refuse options that cannot work, with one clear line. */
function checkOptions(options: OperatorOptions): void {
  const fail = (message: string): never => {
    throw new OperatorConfigurationError(message);
  };
  if (options.peeringName !== undefined && options.peeringName.trim() === "") {
    fail("peeringName must be the name of a peering object, not an empty string.");
  }
  if (options.priority !== undefined && !Number.isSafeInteger(options.priority)) {
    fail(`The priority must be an integer, not ${JSON.stringify(options.priority)}.`);
  }
  for (
    const [endpoint, what] of [[options.livenessEndpoint, "liveness"], [
      options.metricsEndpoint,
      "metrics",
    ]] as const
  ) {
    if (endpoint === undefined) continue;
    try {
      parseEndpoint(endpoint, what);
    } catch (error) {
      fail((error as Error).message);
    }
  }
  if (options.lifecycle !== undefined) {
    try {
      checkLifecycle(options.lifecycle, "The lifecycle option");
    } catch (error) {
      fail((error as Error).message);
    }
  }
  if (
    options.shards !== undefined && !(Number.isSafeInteger(options.shards) && options.shards >= 1)
  ) {
    fail(`The shards must be an integer of 1 or more, not ${JSON.stringify(options.shards)}.`);
  }
  if (options.clusterwide && (options.namespaces?.length ?? 0) > 0) {
    fail("Either serve the whole cluster (clusterwide) or a list of namespaces, not both.");
  }
}

/** A promise resolving when the signal aborts (at once if it has). */
function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener("abort", () => resolve(), { once: true })
  );
}

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
  ensureLoggingConfigured();
  const registry = options.registry ?? getDefaultRegistry();
  const settings = options.settings ?? new OperatorSettings();
  const memo = options.memo ?? new Memo();
  const logger = options.logger ?? reactorLogger();
  const clock = options.clock ?? realClock;
  checkOptions(options);
  let scope: Scope;
  if (!options.clusterwide && (options.namespaces?.length ?? 0) === 0) {
    logger.warning("No namespaces are given: serving the whole cluster (clusterwide).");
    scope = makeScope({ clusterwide: true });
  } else {
    scope = makeScope({ clusterwide: options.clusterwide, namespaces: options.namespaces });
  }

  const stop = new AbortController();
  const onAbort = () => stop.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) stop.abort();
  // The indices exist from the start: activities get them too (possibly still filling up).
  // Tracing only with an SDK registered by now: nothing of it runs otherwise.
  if (refreshTracing()) logger.debug("Tracing through OpenTelemetry: a tracer provider records.");
  // Metrics only when asked for: nothing is counted otherwise.
  const metrics = options.metricsEndpoint === undefined ? undefined : new OperatorMetrics();
  const status: OperatorStatus = { metrics, ready: false, paused: false, stopping: false };
  stop.signal.addEventListener("abort", () => (status.stopping = true), { once: true });
  const indexers = matcherOf(registry).indexNames().length > 0
    ? new OperatorIndexers({ registry, clock, metrics })
    : undefined;
  const activity = {
    registry,
    settings,
    memo,
    clock,
    signal: stop.signal,
    indices: indexers?.indices,
  };
  // As in Kopf, the options go into the settings before the startup handlers can tune them.
  settings.peering.clusterwide = scope.clusterwide;
  if (options.peeringName !== undefined) {
    settings.peering.name = options.peeringName;
    settings.peering.mandatory = true;
  }
  if (options.priority !== undefined) settings.peering.priority = options.priority;
  if (options.standalone) settings.peering.standalone = true;
  if (options.leaderElection !== undefined) {
    settings.leadership.leaderElection = options.leaderElection;
  }
  if (options.shards !== undefined) settings.leadership.shards = options.shards;
  try {
    logger.debug("Running the startup handlers.");
    await runActivity("startup", activity);
    settings.validate(); // as the startup handlers left them
    checkAdmission(registry, settings);
    await using _endpoints = await startOperatorEndpoints(options, activity, status, logger);
    const vault = new Vault({
      relogin: () =>
        runLogin({
          ...activity,
          defaultLogin: options.defaultLogin ?? (() => loginWithDefaults()),
        }),
    });
    await vault.login();
    // Which cluster, with which credentials, and where: the first thing to check when an
    // operator does not do what it should.
    const servers = [...new Set(vault.items().map((item) => describeCredentials(item.info)))];
    logger.info(`Serving ${describeScope(scope)} at ${servers.join("; ")}.`);
    await using api = new ApiClient(vault, {
      networking: settings.networking,
      watching: settings.watching,
      metrics,
    });
    const posterStop = new AbortController();
    const posting = startEventPoster({
      creator: api,
      settings,
      clock,
      signal: posterStop.signal,
    });
    try {
      await runWithPostingTarget(
        posting.target,
        () =>
          serve({
            ...options,
            registry,
            settings,
            memo,
            scope,
            api,
            logger,
            clock,
            stop: stop.signal,
            indexers,
            status,
          }),
      );
    } finally {
      try {
        await runActivity("cleanup", { ...activity, signal: undefined });
      } catch (error) {
        logger.error(`Cleanup failed: ${oneLine(error)}`);
      }
      posterStop.abort();
      await posting.done;
    }
  } catch (error) {
    // Stopped while starting (e.g. during retried startup or login handlers): not a failure.
    if (!(stop.signal.aborted && isAbortError(error))) throw error;
    logger.info("The operator was stopped while starting.");
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
}

/** A server and where its credentials come from: `https://k:6443 (the context "dev" …)`. */
function describeCredentials(info: ConnectionInfo): string {
  return info.source === undefined ? info.server : `${info.server} (${info.source})`;
}

/** An error in one line: a missing permission as what to grant, else its first line. */
export function oneLine(error: unknown): string {
  return describePermissionError(error) ?? summarizeError(error);
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === "AbortError";
}

/** What the readiness probe and the metrics tell about the operator as a whole. */
interface OperatorStatus {
  /** The metrics, if asked for. */
  readonly metrics: OperatorMetrics | undefined;
  /** The initial listings are in and the indices populated. */
  ready: boolean;
  /** A peer of a higher priority pauses the operator. */
  paused: boolean;
  /** The operator is stopping. */
  stopping: boolean;
  /** Another replica handles the objects (leader election), or no shard is held. */
  standby?: boolean;
  /** Whether the operator answers admission reviews. */
  webhooks?: boolean;
}

function readiness(status: OperatorStatus): string | true {
  if (status.stopping) return "stopping";
  if (status.paused) return "paused by a peer of a higher priority";
  // A standby's webhook server is down: the Service must send reviews to the leader only.
  if (status.standby && status.webhooks) return "on standby: another replica leads";
  if (!status.ready) return "starting: the initial listings are not all in";
  return true;
}

/** Start the endpoints asked for (none: nothing to start), closed when disposed. */
async function startOperatorEndpoints(
  options: OperatorOptions,
  activity: Parameters<typeof livenessRoute>[0],
  status: OperatorStatus,
  logger: Logger,
): Promise<AsyncDisposable | undefined> {
  const routes = new Map<string, EndpointRoute>();
  if (options.livenessEndpoint !== undefined) {
    routes.set(options.livenessEndpoint, livenessRoute({ ...activity, signal: undefined }));
  }
  const metrics = status.metrics;
  if (options.metricsEndpoint !== undefined && metrics !== undefined) {
    routes.set(options.metricsEndpoint, metricsRoute(() => metrics.registry.expose()));
  }
  if (routes.size === 0) return undefined;
  const endpoints = await startEndpoints(routes, readinessRoute(() => readiness(status)));
  const process = metrics === undefined ? undefined : watchProcessMetrics(metrics.registry);
  for (const url of endpoints.urls) {
    const path = new URL(url).pathname;
    const what = options.livenessEndpoint !== undefined &&
        new URL(options.livenessEndpoint).pathname === path
      ? "liveness probes"
      : options.metricsEndpoint !== undefined && new URL(options.metricsEndpoint).pathname === path
      ? "metrics scrapes"
      : "readiness probes";
    logger.debug(`Answering ${what} at ${url}.`);
  }
  return {
    [Symbol.asyncDispose]: async () => {
      process?.stop();
      await endpoints.close();
    },
  };
}

interface ServeOptions extends OperatorOptions {
  readonly registry: OperatorRegistry;
  readonly settings: OperatorSettings;
  readonly memo: unknown;
  readonly scope: Scope;
  readonly api: ApiClient;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly stop: AbortSignal;
  readonly indexers: OperatorIndexers | undefined;
  readonly status: OperatorStatus;
}

/** Observe and process until stopped. */
async function serve(options: ServeOptions): Promise<void> {
  const { registry, settings, api, logger, clock, stop } = options;
  const matcher = matcherOf(registry);
  const discovery = new Discovery(api);
  // Peering: joined before the objects are watched, so that a paused operator never starts.
  // Replicas coordinated by Leases would be peers of one priority, and all pause: no peering.
  const coordinated = settings.leadership.enabled;
  const standalone = options.standalone || settings.peering.standalone;
  if (coordinated && !standalone && settings.peering.mandatory) {
    throw new OperatorConfigurationError(
      `The peering ${JSON.stringify(settings.peering.name)} and ` +
        `${settings.leadership.leaderElection ? "leader election" : "sharding"} exclude each ` +
        "other: the replicas would be peers of the same priority and all pause. Drop one.",
    );
  }
  const peering = standalone || coordinated ? undefined : await startPeering({
    api,
    resources: await discovery.resources(stop),
    settings: settings.peering,
    namespaces: peeringNamespaces(options.scope),
    logger,
    clock,
    signal: stop,
  });

  const memories = new ObjectMemories(options.memo);
  const status = options.status;
  const metrics = status.metrics;
  status.webhooks = matcher.handlers.some((h) => h.kind === "webhook");
  // A failure that ends the operator while it runs (e.g. the webhook server's).
  let failure: { error: unknown } | undefined;
  const failing = new AbortController();
  const fail = (error: unknown) => {
    failure ??= { error };
    failing.abort();
  };

  // Admission: the webhook server answers while the objects are observed — with leader
  // election, only while leading, since the managed webhook configuration and the Service
  // point at one replica's server.
  const admissionFollowsLeader = status.webhooks && settings.leadership.leaderElection;
  let admission: RunningAdmission | undefined;
  let admitting: Promise<void> = Promise.resolve();
  const startAdmissionEngine = () =>
    startAdmission({
      api,
      registry,
      settings,
      resources: () => discovery.resources(stop),
      memo: options.memo,
      memoOf: (resource, body) => memories.peek(resource, body)?.memo,
      indices: options.indexers?.indices,
      logger,
      metrics,
    });
  const adopt = (running: RunningAdmission) => {
    admission = running;
    running.failed.catch(fail);
  };
  try {
    if (status.webhooks && !admissionFollowsLeader) adopt(await startAdmissionEngine());
  } catch (error) {
    await peering?.stop();
    throw error;
  }

  // Leader election or sharding: which objects this replica handles now. The hooks run
  // only once the coordination runs, after everything below exists.
  const coordination: Coordination | undefined = await createCoordination({
    api,
    settings: settings.leadership,
    logger,
    clock,
    hooks: {
      gained: () => {
        setStandby(false);
        if (admissionFollowsLeader && admission === undefined) {
          admitting = admitting.then(() => startAdmissionEngine()).then(adopt, fail);
        }
        observer.refeed(); // the objects seen on standby were only indexed
      },
      revoke: async (deadline) => {
        setStandby(!(coordination?.active ?? false));
        if (admissionFollowsLeader) {
          await admitting;
          const stopping = admission;
          admission = undefined;
          await stopping?.stop();
        }
        const lost = (body: RawBody) => !(coordination?.owns(body) ?? true);
        const finished = Promise.all([
          multiplexer.drain((_resource, body) => lost(body)),
          spawner?.revoke(deadline),
        ]);
        if (!await settlesWithin(finished, deadline - clock.now(), clock)) {
          logger.error(
            "The handling of objects that stopped being this replica's did not finish in " +
              "time; another replica may handle them meanwhile.",
          );
        }
      },
    },
  });
  const setStandby = (standby: boolean) => {
    status.standby = standby;
    metrics?.leading.set([], standby ? 0 : 1);
  };
  if (coordination !== undefined) setStandby(true);
  const owns = coordination === undefined ? undefined : (body: RawBody) => coordination.owns(body);

  // Kopf's instant-exit tuning has nothing to tune here: say so rather than ignore it.
  const background = settings.background;
  const defaults = new OperatorSettings().background;
  if (
    background.instantExitTimeout !== defaults.instantExitTimeout ||
    background.instantExitZeroTimeCycles !== defaults.instantExitZeroTimeCycles
  ) {
    logger.warning(
      "settings.background.instantExitTimeout and instantExitZeroTimeCycles have no effect in " +
        "this version: the processing of a deleted object waits for its daemons' exits itself.",
    );
  }

  // One limit for all the operator's writes: the handling cycles' and the daemons' patches.
  const writes = new Semaphore(DEFAULT_WRITE_LIMIT);
  const hasSpawning = matcher.handlers.some((h) => h.kind === "daemon" || h.kind === "timer");
  const spawner = hasSpawning
    ? new Spawner({
      api,
      registry,
      settings,
      clock,
      writes,
      indices: options.indexers?.indices,
      metrics,
      owns,
    })
    : undefined;
  const processor = new ObjectProcessor({
    api,
    registry,
    settings,
    memories,
    clock,
    spawner,
    indexers: options.indexers,
    writes,
    metrics,
    lifecycle: options.lifecycle ?? getDefaultLifecycle(),
    owns,
  });
  const multiplexer = new Multiplexer({
    processor: (event, context) =>
      processor.process(context.resource, event, context.signal, context.aside),
    batching: settings.batching,
    persistence: settings.persistence,
    clock,
    logger,
  });
  const missing = new Set<string>();
  const select = (discovered: readonly Resource[]): readonly Resource[] => {
    admission?.resourcesChanged(discovered); // the managed webhooks' rules follow
    for (const selector of matcher.selectors(WATCHED_KINDS)) {
      const selection = selector.select(discovered);
      const key = String(selector);
      if (selection.resources.length === 0 && !missing.has(key)) {
        missing.add(key);
        logger.warning(`No served resource matches ${key} yet; it is served once it appears.`);
      } else if (selection.resources.length > 0 && missing.delete(key)) {
        logger.info(`Resources matching ${key} have appeared: serving them.`);
      }
      for (const warning of selection.warnings) logger.warning(warning);
    }
    return matcher.resolve(discovered, WATCHED_KINDS).resources.filter((r) =>
      matcher.hasHandlers(r)
    );
  };
  const observer = new Observer({
    client: observationClient(api, discovery),
    scope: options.scope,
    clock,
    select,
    feed: (resource, event) => {
      metrics?.eventsReceived.inc([resourceLabel(resource), event.type ?? "LISTED"]);
      if (processor.skips(resource, event)) return undefined; // another replica's object
      processor.expect(resource, event); // the handling waits for the listed ones' indexing
      return multiplexer.push(resource, event);
    },
    // A deletion missed while a watch was down reaches the handlers with the last known
    // body only where handlers look at deleted objects; elsewhere, identities suffice.
    keepsLastStates: (resource) => {
      const handlers = matcher.handlersFor(resource);
      return handlers.event.length > 0 ||
        handlers.changing.some((h) => h.reason === "delete" || h.reason === null);
    },
    scanning: settings.scanning,
    watching: settings.watching,
    logger,
  });
  if (metrics !== undefined) {
    collectOperatorMetrics(metrics, { memories, multiplexer, spawner, indexers: options.indexers });
  }
  status.paused = peering?.paused ?? false;
  metrics?.peeringPaused.set([], status.paused ? 1 : 0);
  // A paused operator neither watches nor keeps its daemons and timers running.
  peering?.subscribe((paused) => {
    status.paused = paused;
    metrics?.peeringPaused.set([], paused ? 1 : 0);
    if (paused) {
      observer.pause();
      spawner?.pause();
    } else {
      observer.resume();
      spawner?.resume();
    }
  });
  const observing = new AbortController();
  const running = observer.run(observing.signal);
  // The leases are held until the very end: the work of a stopping leader is finished
  // and stored under its lease, then the lease is given back.
  const leasing = new AbortController();
  const coordinating = coordination?.run(leasing.signal).catch(fail);
  // Ready once the initial watches have listed: later objects arrive as watch events.
  void observer.listed.then(() => processor.listingsQueued());
  // Ready for the readiness probe once they are also indexed (handling has begun).
  void observer.listed.then(() => options.indexers?.populating).then(() => {
    if (stop.aborted) return;
    status.ready = true;
    metrics?.ready.set([], 1);
  });
  // Paused by a peer from the start, the watches do not list: ready once they are set up.
  void (peering?.paused ? observer.ready : observer.listed).then(() => {
    if (stop.aborted) return;
    logger.debug("The operator is ready: the initial watches have listed their objects.");
    options.onReady?.();
  });
  // The observation ends only when told to, or when it cannot start (e.g. no discovery).
  await Promise.race([running, aborted(stop), aborted(failing.signal)]).catch(() => {});
  observing.abort();
  await running.catch((error) => (failure ??= { error }));
  processor.halt(); // nothing waits for the indices any longer
  await spawner?.shutdown();
  await multiplexer.shutdown();
  await admitting;
  await admission?.stop();
  await peering?.stop();
  leasing.abort();
  await coordinating;
  await coordination?.release();
  if (failure !== undefined && !stop.aborted) throw failure.error;
}

/** The gauges read when scraped: the objects known, the queue, daemons, timers, indices. */
function collectOperatorMetrics(
  metrics: OperatorMetrics,
  parts: {
    readonly memories: ObjectMemories;
    readonly multiplexer: Multiplexer;
    readonly spawner: Spawner | undefined;
    readonly indexers: OperatorIndexers | undefined;
  },
): void {
  metrics.objects.collectWith((set) => {
    for (const [resource, count] of parts.memories.sizes()) set([resourceLabel(resource)], count);
  });
  metrics.queueDepth.collectWith((set) => {
    for (const [resource, { depth }] of parts.multiplexer.waiting()) {
      set([resourceLabel(resource)], depth);
    }
  });
  metrics.queueOldestAge.collectWith((set) => {
    for (const [resource, { oldest }] of parts.multiplexer.waiting()) {
      set([resourceLabel(resource)], oldest);
    }
  });
  metrics.workersBusy.collectWith((set) => set([], parts.multiplexer.busy));
  metrics.spawned.collectWith((set) => {
    const running = parts.spawner?.running() ?? { daemon: 0, timer: 0 };
    set(["daemon"], running.daemon);
    set(["timer"], running.timer);
  });
  metrics.indexSize.collectWith((set) => {
    for (const [name, index] of Object.entries(parts.indexers?.indices ?? {})) {
      set([name], index.size);
    }
  });
}

/** Where a namespaced peering lives: the scope's literal namespaces, or any served one. */
function peeringNamespaces(scope: Scope): readonly string[] | ((namespace: string) => boolean) {
  if (scope.clusterwide) return [];
  if (needsNamespaceWatching(scope)) return (namespace) => isServedNamespace(namespace, scope);
  return literalNamespaces(scope.namespaces);
}

/** Options of {@link run}: those of {@link operator}. */
export type RunOptions = OperatorOptions;

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
export async function run(options: RunOptions = {}): Promise<void> {
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) controller.abort();
  const logger = options.logger ?? reactorLogger();
  let signals = 0;
  const removeListeners = onTerminationSignals((signal) => {
    signals++;
    if (signals === 1) {
      logger.info(`Signal ${signal} received: the operator is stopping.`);
      controller.abort();
    } else {
      logger.warning(`Signal ${signal} received again: exiting at once.`);
      exitProcess(1);
    }
  });
  try {
    ensureLoggingConfigured();
    await operator({ ...options, logger, signal: controller.signal });
  } catch (error) {
    removeListeners();
    logger.error(`The operator has failed: ${oneLine(error)}`);
    exitProcess(1);
  } finally {
    removeListeners();
    options.signal?.removeEventListener("abort", onAbort);
  }
}
