/**
 * `OperatorSettings`: every tunable of one operator, grouped in sections as in Kopf, in
 * camelCase, with Kopf's defaults. All durations are in seconds; `null` means "none".
 * Usually changed in a startup handler: `settings.posting.level = "warning"`.
 *
 * @module
 */

import { conditionTypeProblem } from "../structs/condition_lists.ts";
import { ConfigurationError } from "../structs/errors.ts";
import type { LogLevelSetting } from "../structs/log_formats.ts";
import { AnnotationsDiffBaseStorage, DiffBaseStorage } from "./diffbase_storages.ts";
import { type FieldSpec, parseField } from "./field_paths.ts";
import { ProgressStorage, SmartProgressStorage } from "./progress_storages.ts";
import { checkWatchSelectors, type WatchSelectors } from "./watch_selectors.ts";

const LEVEL_NAMES: ReadonlySet<string> = new Set([
  "trace",
  "debug",
  "info",
  "warning",
  "error",
  "fatal",
  "critical",
]);

/**
 * Which log records of handlers become Kubernetes Events on the object.
 *
 * @example Post only warnings and errors as Kubernetes Events, under the operator's name
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.posting.level = "warning";
 *   settings.posting.reportingComponent = "example-operator";
 * });
 * ```
 */
export class PostingSettings {
  /** Whether events are posted at all (also those of `kopf.event()` and friends). */
  enabled = true;
  /** The lowest level posted as an event. */
  level: LogLevelSetting = "info";
  /** `source.component` and `reportingComponent` of the events. */
  reportingComponent = "kopf";
  /** `reportingInstance` of the events. */
  reportingInstance = "dev";
  /** `metadata.generateName` of the events. */
  eventNamePrefix = "kopf-event-";
}

/**
 * How watch streams behave (the client's `WatchingOptions`).
 *
 * @example Shorter watch requests behind a proxy that drops idle connections
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.watching.serverTimeout = 300;
 *   settings.watching.clientTimeout = 330;
 *   settings.watching.inactivityTimeout = 90;
 * });
 * ```
 */
export class WatchingSettings {
  /** The server-side limit of one watch request (`timeoutSeconds`); `null` leaves it to the server. */
  serverTimeout: number | null = null;
  /** The client-side limit of one watch request; `null` for none. */
  clientTimeout: number | null = null;
  /** The connect timeout of watch requests; `null` falls back to `networking.connectTimeout`. */
  connectTimeout: number | null = null;
  /** The pause between watch requests, so that errors and disconnects do not flood the API. */
  reconnectBackoff = 0.1;
  /**
   * Reconnect a stream that sent nothing (not even a bookmark) for this long; `null` to wait
   * forever. The server sends bookmarks about every minute and keeps events for 75 seconds.
   */
  inactivityTimeout: number | null = 70;
  /**
   * How the initial (and every later) listing of a watched resource is fetched:
   * `"stream"` as a watch that begins with the current objects and ends them with a
   * bookmark (`sendInitialEvents`, Kubernetes 1.27+, on by default since 1.32); `"paginate"`
   * as list requests of {@link listPageSize} objects each, following `continue` tokens;
   * `"auto"` streams where the server supports it and paginates elsewhere, remembering
   * the fallback per watched resource.
   */
  listMode: "auto" | "stream" | "paginate" = "auto";
  /**
   * The most objects one list request returns (`limit`), and the most objects of a streamed
   * listing passed on at once; client-go's page size by default.
   */
  listPageSize = 500;
  /**
   * Seconds for which a listing waits for the processing to catch up (back-pressure: the
   * rest of the listing stays on the server); afterwards the rest is passed on as it comes
   * and waits in the per-object queues. Waiting keeps the memory low at the start against
   * a big cluster, but the events after the listing (the echoes of the operator's own
   * patches among them) wait behind it. `0` never waits. A listing held for minutes would
   * have to begin anew (continuations expire), hence the bound.
   */
  listPatience = 120;
  /**
   * Ask the API server only for the objects that the handlers' filters can match: the
   * label and field selectors that every handler of a resource requires are sent with its
   * list and watch requests (see the large-clusters guide). `false` lists and watches every
   * object and filters here, as Kopf does.
   */
  selectByFilters = true;
  /**
   * Selectors of one's own for the list and watch requests, on top of the derived ones
   * (e.g. `kopf run -l`): objects outside them are never seen, whatever the handlers'
   * filters. Each entry names a resource as handlers do (`"pods"`,
   * `"kopfexamples.kopf.dev"`), or none for every served resource.
   */
  selectors: WatchSelectors[] = [];
}

/**
 * How events of one object are queued and processed by its worker.
 *
 * @example Fewer objects at once, and more time to finish when stopping
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.batching.workerLimit = 10;
 *   settings.batching.batchWindow = 0.5; // coalesce bursts of changes of one object
 *   settings.batching.exitTimeout = 20;
 * });
 * ```
 */
export class BatchingSettings {
  /** How many per-object workers may run at once; `null` for no limit. */
  workerLimit: number | null = null;
  /** How long an idle worker waits for new events before it exits. */
  idleTimeout = 5.0;
  /** Events arriving within this window after the first are coalesced into the last one. */
  batchWindow = 0.1;
  /** How long workers may take to finish their queues when the operator exits. */
  exitTimeout = 2.0;
  /**
   * Pauses after consecutive unexpected errors of the framework for one object (not of
   * handlers); the last one repeats; empty disables throttling. Fibonacci up to 10 minutes.
   */
  errorDelays: Iterable<number> = [1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610];
}

/**
 * The pause after the `failures`-th consecutive failure (counted from 0) along the error
 * delays: their values in order, then the last one again; `undefined` when there are none
 * (then nothing is retried before the object's next change). The one rule of the
 * framework's own retries for an object: its processing, and the storing of its outcome.
 */
export function errorDelayAfter(delays: Iterable<number>, failures: number): number | undefined {
  let delay: number | undefined;
  let step = 0;
  for (const value of delays) {
    delay = value;
    if (step++ >= failures) break;
  }
  return delay;
}

/**
 * How regular API requests behave (the client's `NetworkingOptions`).
 *
 * @example Quick failures against a cluster far away
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.networking.requestTimeout = 30;
 *   settings.networking.connectTimeout = 5;
 *   settings.networking.errorBackoffs = [1, 2, 5]; // three retries
 * });
 * ```
 */
export class NetworkingSettings {
  /** The longest a regular request (not a watch) may take; `null` for no limit. */
  requestTimeout: number | null = 300;
  /** The longest a connection may take to be established; `null` for no separate limit. */
  connectTimeout: number | null = null;
  /**
   * Pauses between attempts on network errors, 5xx and 429; a single number means one
   * retry; empty disables retries. About a minute in total by default.
   */
  errorBackoffs: Iterable<number> | number = [1, 1, 2, 3, 5, 8, 13, 21];
}

/**
 * Where and how the operator keeps its state on the objects.
 *
 * @example A finalizer and storages of the operator's own name
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.persistence.finalizer = "example.com/finalizer";
 *   settings.persistence.progressStorage = new kopf.AnnotationsProgressStorage({
 *     prefix: "example.com",
 *   });
 *   settings.persistence.diffbaseStorage = new kopf.AnnotationsDiffBaseStorage({
 *     prefix: "example.com",
 *   });
 * });
 * ```
 */
export class PersistenceSettings {
  /** The finalizer that blocks deletion while the operator still has work to do. */
  finalizer = "kopf.zalando.org/KopfFinalizerMarker";
  /** Where the handlers' progress is kept between handling cycles. */
  progressStorage: ProgressStorage = new SmartProgressStorage();
  /** Where the last handled essence of each object is kept. */
  diffbaseStorage: DiffBaseStorage = new AnnotationsDiffBaseStorage();
  /**
   * Fields whose values the diff-base keeps only as digests (so do the handlers' `old`,
   * `new` and `diff`, and log lines mask them): dotted paths like `"spec.password"`, or
   * arrays of keys where a key has dots (`["spec", "tls.crt"]`); a path to an object
   * covers every value under it. They apply to objects of every resource served. The
   * `data` and `stringData` of core v1 Secrets are sensitive without being listed.
   */
  sensitiveFields: FieldSpec[] = [];
  /** How long to wait for our own patch's resourceVersion to arrive before going on. */
  consistencyTimeout = 5.0;
}

/**
 * How daemons and timers are stopped.
 *
 * @example Check stopping daemons every 10 seconds rather than every minute
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.background.cancellationPolling = 10;
 * });
 * ```
 */
export class BackgroundSettings {
  /** How often to re-check a stopping daemon that has no cancellation timeout. */
  cancellationPolling = 60;
  /**
   * Kopf's time for a daemon to exit at once before the slower, persisted way is used.
   * Accepted for compatibility, with no effect (a warning says so when set): here the
   * processing of a deleted object waits for its daemons' exits itself.
   */
  instantExitTimeout: number | null = null;
  /** Kopf's zero-time event-loop turns for a daemon to exit at once; as above, no effect. */
  instantExitZeroTimeCycles: number | null = 10;
}

/**
 * Whether namespaces and CRDs are observed as they come and go.
 *
 * @example Serve only the resources and namespaces that exist when the operator starts
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.scanning.disabled = true;
 * });
 * ```
 */
export class ScanningSettings {
  /** Serve only what exists at startup: no namespace patterns, no CRDs added later. */
  disabled = false;
}

/**
 * A webhook server or tunnel, e.g. `new kopf.WebhookServer()`; the admission engine
 * defines what it calls on it.
 */
export type AdmissionServerLike = object;

/**
 * How admission requests reach the operator, and the bounds its webhook server holds every
 * client to: the server listens on the network before any client is known, so a client
 * that sends too much or too slowly is cut off rather than waited for.
 *
 * @example Serve the admission handlers and keep their webhook configurations up to date
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.admission.server = new kopf.WebhookAutoServer({ port: 9443 });
 *   settings.admission.managed = "example.com";
 * });
 * ```
 */
export class AdmissionSettings {
  /** The webhook server or tunnel; `null` serves no admission handlers. */
  server: AdmissionServerLike | null = null;
  /** The name of the webhook configurations the operator keeps up to date; `null` for none. */
  managed: string | null = null;
  /**
   * The largest review request body, in bytes; larger ones get 413, unread. 7 MiB, as
   * controller-runtime: an object and its old version at the API server's size limits,
   * with the review around them.
   */
  bodyLimit: number = 7 * 1024 * 1024;
  /**
   * The most bytes of request bodies held at once across all connections (the server's
   * memory for bodies); a request that would pass it gets 503. At least `bodyLimit`.
   */
  bufferLimit: number = 64 * 1024 * 1024;
  /**
   * Seconds from a connection's start (TLS handshake included) to its first request's
   * complete head; for a later request of a kept-alive connection, from its first byte.
   */
  headerTimeout = 10;
  /**
   * Seconds for a request's body to arrive after its head, and for the answer to be sent.
   * The API server waits 30 seconds at most for a webhook, so a slower request is moot.
   */
  bodyTimeout = 30;
  /** Seconds a kept-alive connection may wait for its next request. */
  idleTimeout = 30;
  /** The most connections open at once; more are closed as soon as they arrive. */
  connectionLimit = 256;
}

/**
 * How several operators of the same objects see each other.
 *
 * @example Deployments of one operator in a peering: the highest priority handles, others pause
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.peering.name = "example";
 *   settings.peering.priority = 100; // the standby deployment keeps the default, 0
 *   settings.peering.mandatory = true;
 * });
 * ```
 */
export class PeeringSettings {
  /** The peering object's name: operators in different peerings do not see each other. */
  name = "default";
  /** The priority: lower-priority operators pause while a higher one runs. */
  priority = 0;
  /** How long this operator's peering record stays valid without a refresh. */
  lifetime = 60;
  /** Fail (rather than run standalone) when the peering object is absent. */
  mandatory = false;
  /** Ignore peering entirely, even if a peering object exists. */
  standalone = false;
  /** Do not log the regular keep-alives (they are still sent). */
  stealth = false;
  /** Use the cluster-scoped peering rather than the namespaced one. */
  clusterwide = false;

  /** The inverse of `clusterwide`. */
  get namespaced(): boolean {
    return !this.clusterwide;
  }
  set namespaced(value: boolean) {
    this.clusterwide = !value;
  }
}

/**
 * How several replicas of the operator share the work through Leases
 * (`coordination.k8s.io/v1`), as client-go's leader election does: either one leader
 * handles everything while the others wait on standby (`leaderElection`), or the objects
 * are split into `shards`, each handled by the one replica that holds its Lease. The
 * timings are client-go's: a holder renews every `retryPeriod`, gives up if it could not
 * renew for `renewDeadline`, and others take over `leaseDuration` after its last renewal.
 *
 * @example Replicas of one Deployment: an elected leader handles, the others stand by
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.leadership.leaderElection = true;
 *   settings.leadership.name = "example-operator";
 *   settings.leadership.namespace = "operators";
 * });
 * ```
 */
export class LeadershipSettings {
  /** Elect one leader among the replicas; the others keep their watches warm on standby. */
  leaderElection = false;
  /** Split the objects into this many shards by their uid; 1 for no sharding. */
  shards = 1;
  /** The Lease's name (with sharding, the prefix of the shards' and members' Leases). */
  name = "kopf-operator";
  /** The Leases' namespace; `null`: the credentials' (a pod's own), else `default`. */
  namespace: string | null = null;
  /** Seconds a holder may go without renewing before another replica takes over. */
  leaseDuration = 15;
  /** Seconds a holder keeps trying to renew before it gives up handling. */
  renewDeadline = 10;
  /** Seconds between attempts to acquire or renew. */
  retryPeriod = 2;

  /** Whether the replicas coordinate through Leases at all. */
  get enabled(): boolean {
    return this.leaderElection || this.shards > 1;
  }
}

/**
 * How `kopf.apply()` writes the operator's objects with server-side apply — and, with
 * `outcomes`, how the framework writes its own fields on the objects it handles.
 *
 * The field manager is the name under which the server records which fields the operator
 * owns (`metadata.managedFields`): an apply removes the fields that its manager applied
 * before and omits now, and fails on fields that other managers own. So it is part of the
 * operator's identity on the cluster: give each operator a name of its own, and keep it —
 * the fields owned under an old name stay owned by it after a rename (and are no longer
 * removed when the operator stops applying them). It is not taken from
 * `posting.reportingComponent` for that reason: that name only labels Events, and may
 * change freely.
 *
 * @example An operator that owns its children's fields under its own name
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.applying.fieldManager = "example-operator";
 *   settings.applying.force = false; // fail on fields others own rather than take them
 * });
 * ```
 */
export class ApplyingSettings {
  /**
   * The field manager of `kopf.apply()`: `"kopf"` by default (the framework's User-Agent,
   * under which its other writes are recorded). At most 128 printable characters.
   */
  fieldManager = "kopf";
  /**
   * Take over fields that another manager owns with another value, rather than fail with
   * a 409 conflict. `true` by default: an operator is the authority on its children, and
   * a conflict it cannot resolve would only retry for ever (the API server's guidance for
   * controllers). `false` where other controllers or GitOps tools share the objects and
   * a conflict should stop the operator rather than overwrite them.
   */
  force = true;
  /**
   * Write the framework's own fields on the objects it handles — the handlers' results and
   * progress, the diff-base, our finalizer, the status conditions, the handlers' `patch` —
   * by server-side apply under `fieldManager` (always forced: those fields are ours by
   * name), instead of merge patches. `false` by default, which is what Kopf does. Turn it on
   * when several operators (or other controllers) write the same objects: each then owns
   * its own finalizer among theirs without guarded requests, and its own conditions in a
   * `status.conditions` list keyed by `type` (the CRD declares
   * `x-kubernetes-list-type: map`), rather than rewriting the whole list. Give each
   * operator its own `fieldManager` then. Daemons' and timers' patches stay merge patches
   * (they run beside the handling cycles, whose intent they cannot state), recorded under
   * `fieldManager`. The number of requests per cycle is the same (docs/writes.md).
   */
  outcomes = false;
}

/** The longest field manager name the API server accepts, in bytes of UTF-8. */
const FIELD_MANAGER_MAX_BYTES = 128;

/** Characters that Go's `unicode.IsPrint` refuses: controls and the like, spaces but " ". */
const UNPRINTABLE = /(?! )[\p{C}\p{Z}]/u;

/**
 * What is wrong with a field manager name, as the API server checks it (at most 128 bytes,
 * all printable), or `undefined` if nothing is.
 */
export function fieldManagerProblem(value: unknown): string | undefined {
  const expected = `a non-empty string of at most ${FIELD_MANAGER_MAX_BYTES} printable characters`;
  if (typeof value !== "string" || value === "" || UNPRINTABLE.test(value)) return expected;
  const bytes = new TextEncoder().encode(value).length;
  return bytes > FIELD_MANAGER_MAX_BYTES ? expected : undefined;
}

/**
 * The standard status conditions that the framework keeps on custom resources
 * (`status.conditions`, and `status.observedGeneration`), as Argo CD, Flux, `kubectl wait`
 * and kstatus read them: after each handling cycle, `Ready` says whether every handler of
 * the latest change succeeded, `Reconciling` whether some are still pending or retrying,
 * `Stalled` whether one failed for good. They ride in the cycle's own write, and only when
 * they change. Built-in resources never get them (their conditions belong to Kubernetes).
 * `enabled = false` keeps the status as Kopf writes it.
 *
 * @example Conditions of the operator's own names, or none at all
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.conditions.ready = "Available"; // the handlers set a "Ready" of their own
 *   // settings.conditions.enabled = false;  // or: Kopf's status only, no conditions
 * });
 * ```
 */
export class ConditionsSettings {
  /** Whether the framework writes the conditions and `status.observedGeneration` at all. */
  enabled = true;
  /** The type of the condition that is `True` when all handlers succeeded. */
  ready = "Ready";
  /** The type of the condition that is `True` while handlers are pending or retrying. */
  reconciling = "Reconciling";
  /** The type of the condition that is `True` when a handler failed for good. */
  stalled = "Stalled";
}

/** A partial copy of each section, for {@link OperatorSettings}'s constructor. */
export interface OperatorSettingsInit {
  /** Overrides of {@link PostingSettings}. */
  posting?: Partial<PostingSettings>;
  /** Overrides of {@link WatchingSettings}. */
  watching?: Partial<WatchingSettings>;
  /** Overrides of {@link BatchingSettings}. */
  batching?: Partial<BatchingSettings>;
  /** Overrides of {@link NetworkingSettings}. */
  networking?: Partial<NetworkingSettings>;
  /** Overrides of {@link PersistenceSettings}. */
  persistence?: Partial<PersistenceSettings>;
  /** Overrides of {@link BackgroundSettings}. */
  background?: Partial<BackgroundSettings>;
  /** Overrides of {@link ScanningSettings}. */
  scanning?: Partial<ScanningSettings>;
  /** Overrides of {@link AdmissionSettings}. */
  admission?: Partial<AdmissionSettings>;
  /** Overrides of {@link PeeringSettings}. */
  peering?: Partial<PeeringSettings>;
  /** Overrides of {@link LeadershipSettings}. */
  leadership?: Partial<Omit<LeadershipSettings, "enabled">>;
  /** Overrides of {@link ApplyingSettings}. */
  applying?: Partial<ApplyingSettings>;
  /** Overrides of {@link ConditionsSettings}. */
  conditions?: Partial<ConditionsSettings>;
}

type Check = (path: string, value: unknown) => string | undefined;

const seconds: Check = (_, v) =>
  typeof v === "number" && Number.isFinite(v) && v >= 0 ? undefined : "a number of seconds ≥ 0";
const optionalSeconds: Check = (p, v) =>
  v === null ? undefined : seconds(p, v) && "a number of seconds ≥ 0, or null for none";
const positiveSeconds: Check = (_, v) =>
  typeof v === "number" && Number.isFinite(v) && v > 0 ? undefined : "a number of seconds > 0";
const boolean: Check = (_, v) => typeof v === "boolean" ? undefined : "true or false";
const text: Check = (_, v) => typeof v === "string" && v !== "" ? undefined : "a non-empty string";
const optionalText: Check = (p, v) => v === null ? undefined : text(p, v) && "a string or null";
const integer: Check = (_, v) => Number.isSafeInteger(v) ? undefined : "an integer";
const count: Check = (_, v) =>
  Number.isSafeInteger(v) && (v as number) > 0 ? undefined : "a positive integer";
const bytes: Check = (_, v) =>
  Number.isSafeInteger(v) && (v as number) > 0 ? undefined : "a positive number of bytes";
const optionalCount: Check = (_, v) =>
  v === null || (Number.isSafeInteger(v) && (v as number) > 0)
    ? undefined
    : "a positive integer, or null for no limit";
const optionalCycles: Check = (_, v) =>
  v === null || (Number.isSafeInteger(v) && (v as number) >= 0)
    ? undefined
    : "an integer ≥ 0, or null";
const level: Check = (_, v) =>
  (typeof v === "number" && Number.isFinite(v)) || (typeof v === "string" && LEVEL_NAMES.has(v))
    ? undefined
    : '"debug", "info", "warning", "error", "critical", or a number like 20';
const delays: Check = (_, v) => {
  if (typeof v === "number") return seconds(_, v) && "seconds ≥ 0, or a list of them";
  if (Array.isArray(v)) {
    return v.every((d) => seconds(_, d) === undefined) ? undefined : "a list of seconds ≥ 0";
  }
  const iterable = typeof v === "object" && v !== null && Symbol.iterator in v;
  return iterable ? undefined : "a list (or iterable) of seconds ≥ 0";
};
const listOfDelays: Check = (p, v) =>
  typeof v === "number" ? "a list of seconds ≥ 0" : delays(p, v);
const instance = (cls: abstract new (...args: never[]) => object, name: string): Check => (_, v) =>
  v instanceof cls ? undefined : `an instance of ${name} (or of a subclass of it)`;
const showField = (field: unknown): string =>
  typeof field === "string"
    ? JSON.stringify(field)
    : Array.isArray(field)
    ? `[${field.map(showField).join(", ")}]`
    : String(field);
const fieldPaths: Check = (_, v) => {
  const expected = 'a list of field paths like "spec.password" or ["spec", "tls.crt"]';
  if (!Array.isArray(v)) return expected;
  for (const [index, field] of v.entries()) {
    try {
      parseField(field);
    } catch {
      return `${expected} (entry ${index}, ${showField(field)}, is not one)`;
    }
  }
  return undefined;
};
const conditionType: Check = (_, v) => conditionTypeProblem(v) && 'a condition type like "Ready"';
const objectOrNull: Check = (_, v) =>
  v === null || typeof v === "object" || typeof v === "function" ? undefined : "a server or null";

/** The checks of every field, by section. */
const RULES: Record<keyof OperatorSettingsInit, Record<string, Check>> = {
  posting: {
    enabled: boolean,
    level,
    reportingComponent: text,
    reportingInstance: text,
    eventNamePrefix: text,
  },
  watching: {
    serverTimeout: optionalSeconds,
    clientTimeout: optionalSeconds,
    connectTimeout: optionalSeconds,
    reconnectBackoff: seconds,
    inactivityTimeout: optionalSeconds,
    listMode: (_, v) =>
      v === "auto" || v === "stream" || v === "paginate"
        ? undefined
        : '"auto", "stream" or "paginate"',
    listPageSize: count,
    listPatience: seconds,
    selectByFilters: boolean,
    selectors: (_, v) => checkWatchSelectors(v),
  },
  batching: {
    workerLimit: optionalCount,
    idleTimeout: seconds,
    batchWindow: seconds,
    exitTimeout: seconds,
    errorDelays: listOfDelays,
  },
  networking: {
    requestTimeout: optionalSeconds,
    connectTimeout: optionalSeconds,
    errorBackoffs: delays,
  },
  persistence: {
    finalizer: text,
    progressStorage: instance(ProgressStorage, "ProgressStorage"),
    diffbaseStorage: instance(DiffBaseStorage, "DiffBaseStorage"),
    sensitiveFields: fieldPaths,
    consistencyTimeout: seconds,
  },
  background: {
    cancellationPolling: seconds,
    instantExitTimeout: optionalSeconds,
    instantExitZeroTimeCycles: optionalCycles,
  },
  scanning: { disabled: boolean },
  admission: {
    server: objectOrNull,
    managed: optionalText,
    bodyLimit: bytes,
    bufferLimit: bytes,
    headerTimeout: positiveSeconds,
    bodyTimeout: positiveSeconds,
    idleTimeout: positiveSeconds,
    connectionLimit: count,
  },
  peering: {
    name: text,
    priority: integer,
    lifetime: seconds,
    mandatory: boolean,
    standalone: boolean,
    stealth: boolean,
    clusterwide: boolean,
    namespaced: boolean,
  },
  leadership: {
    leaderElection: boolean,
    shards: (_, v) => Number.isSafeInteger(v) && (v as number) >= 1 ? undefined : "an integer ≥ 1",
    name: (_, v) =>
      typeof v === "string" && /^[a-z0-9]([-a-z0-9.]{0,200}[a-z0-9])?$/.test(v)
        ? undefined
        : "a Lease name: lowercase letters, digits, '-' and '.'",
    namespace: optionalText,
    leaseDuration: positiveSeconds,
    renewDeadline: positiveSeconds,
    retryPeriod: positiveSeconds,
  },
  applying: {
    fieldManager: (_, v) => fieldManagerProblem(v),
    force: boolean,
    outcomes: boolean,
  },
  conditions: {
    enabled: boolean,
    ready: conditionType,
    reconciling: conditionType,
    stalled: conditionType,
  },
};

/**
 * Kopf's sections that have no counterpart here, and what to do instead: read (as
 * `settings.execution.maxWorkers = 20` does) or given to the constructor, they fail with
 * this message rather than a `TypeError` about `undefined`.
 */
const SECTIONS_NOT_APPLICABLE: Readonly<Record<string, string>> = Object.freeze({
  execution: "settings.execution (Kopf's thread pool for synchronous handlers: executor, " +
    "max_workers) does not exist in TypeScript: there are no threads for handlers — " +
    "synchronous handlers run on the event loop like async ones, so keep them short or " +
    "await in them; move CPU-heavy work to a Worker or a child process of your own. " +
    "Remove the setting.",
  process: "settings.process (Kopf's ultimate_exiting_timeout, the time before a stopping " +
    "process kills itself) does not exist in TypeScript: the graceful stop is bounded by " +
    "settings.batching.exitTimeout and the daemons' cancellationTimeout, a second " +
    "SIGINT/SIGTERM exits at once, and a pod's terminationGracePeriodSeconds ends the rest. " +
    "Remove the setting.",
});

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "object" && value !== null) {
    return Array.isArray(value) ? "an array" : `a ${value.constructor?.name ?? "object"}`;
  }
  return String(value);
}

/**
 * All settings of one operator. Each operator has its own; change them in a startup
 * handler (`settings.watching.serverTimeout = 600`) or pass overrides to the constructor.
 * `validate()` names the first bad value and what it should be.
 *
 * @example Settings given to an embedded operator, with progress kept in the status
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * const settings = new kopf.OperatorSettings({
 *   posting: { level: "warning" },
 *   batching: { workerLimit: 50 },
 * });
 * settings.persistence.progressStorage = new kopf.StatusProgressStorage({ field: "status.op" });
 * await kopf.operator({ settings, clusterwide: true, signal: AbortSignal.timeout(60_000) });
 * ```
 */
export class OperatorSettings {
  /** Kubernetes Events from log records. */
  readonly posting: PostingSettings = new PostingSettings();
  /** Watch streams. */
  readonly watching: WatchingSettings = new WatchingSettings();
  /** Per-object queues and workers. */
  readonly batching: BatchingSettings = new BatchingSettings();
  /** Regular API requests. */
  readonly networking: NetworkingSettings = new NetworkingSettings();
  /** State kept on the objects: finalizer, progress, diff-base. */
  readonly persistence: PersistenceSettings = new PersistenceSettings();
  /** Daemons and timers. */
  readonly background: BackgroundSettings = new BackgroundSettings();
  /** Observation of namespaces and CRDs. */
  readonly scanning: ScanningSettings = new ScanningSettings();
  /** Admission webhooks. */
  readonly admission: AdmissionSettings = new AdmissionSettings();
  /** Peering of several operators. */
  readonly peering: PeeringSettings = new PeeringSettings();
  /** Leader election and sharding across replicas. */
  readonly leadership: LeadershipSettings = new LeadershipSettings();
  /** Server-side apply of the operator's objects (`kopf.apply()`). */
  readonly applying: ApplyingSettings = new ApplyingSettings();
  /** The standard status conditions of custom resources. */
  readonly conditions: ConditionsSettings = new ConditionsSettings();

  /**
   * Kopf's `settings.execution` (a thread pool for synchronous handlers) has no equivalent:
   * reading it throws a {@link ConfigurationError} that says what to do instead.
   *
   * @deprecated Not applicable in TypeScript: synchronous handlers run on the event loop;
   * move CPU-heavy work to a Worker. Remove the setting.
   */
  get execution(): never {
    throw new ConfigurationError(SECTIONS_NOT_APPLICABLE.execution);
  }

  /**
   * Kopf's `settings.process` (`ultimate_exiting_timeout`) has no equivalent: reading it
   * throws a {@link ConfigurationError} that says what to do instead.
   *
   * @deprecated Not applicable in TypeScript: the stop is bounded by
   * `settings.batching.exitTimeout`, and a second signal exits at once. Remove the setting.
   */
  get process(): never {
    throw new ConfigurationError(SECTIONS_NOT_APPLICABLE.process);
  }

  /** Settings with Kopf's defaults, overridden by `init` (validated). */
  constructor(init: OperatorSettingsInit = {}) {
    if (typeof init !== "object" || init === null) {
      throw new ConfigurationError(
        "OperatorSettings takes an object of sections, e.g. { posting: {...} }.",
      );
    }
    for (const [name, overrides] of Object.entries(init)) {
      const rules = RULES[name as keyof OperatorSettingsInit];
      if (Object.hasOwn(SECTIONS_NOT_APPLICABLE, name)) {
        throw new ConfigurationError(SECTIONS_NOT_APPLICABLE[name]);
      }
      if (!rules) {
        throw new ConfigurationError(
          `Unknown settings section ${JSON.stringify(name)}; known: ${
            Object.keys(RULES).join(", ")
          }.`,
        );
      }
      if (overrides === undefined) continue;
      if (typeof overrides !== "object" || overrides === null || Array.isArray(overrides)) {
        throw new ConfigurationError(
          `settings.${name} must be given as an object of fields, e.g. { ${name}: { ... } }.`,
        );
      }
      const section = this[name as keyof OperatorSettingsInit] as unknown as Record<
        string,
        unknown
      >;
      for (const [field, value] of Object.entries(overrides as Record<string, unknown>)) {
        if (!rules[field]) {
          throw new ConfigurationError(
            `Unknown setting settings.${name}.${field}; known: ${Object.keys(rules).join(", ")}.`,
          );
        }
        if (value !== undefined) section[field] = value;
      }
    }
    this.validate();
  }

  /** Throw an error naming the first invalid value and what it should be; else return. */
  validate(): void {
    for (const [name, rules] of Object.entries(RULES)) {
      const section = this[name as keyof OperatorSettingsInit] as unknown as Record<
        string,
        unknown
      >;
      for (const [field, check] of Object.entries(rules)) {
        const path = `settings.${name}.${field}`;
        const value = section[field];
        const expected = check(path, value);
        if (expected !== undefined) {
          throw new ConfigurationError(`${path} must be ${expected}; got ${describe(value)}.`);
        }
      }
    }
    if (this.admission.bufferLimit < this.admission.bodyLimit) {
      throw new ConfigurationError(
        `settings.admission.bufferLimit (${this.admission.bufferLimit} bytes) must be at least ` +
          `bodyLimit (${this.admission.bodyLimit} bytes), or no request of that size is served.`,
      );
    }
    const { ready, reconciling, stalled } = this.conditions;
    if (new Set([ready, reconciling, stalled]).size < 3) {
      throw new ConfigurationError(
        `settings.conditions: ready, reconciling and stalled must be three different types; ` +
          `got ${JSON.stringify([ready, reconciling, stalled])}.`,
      );
    }
    const leadership = this.leadership;
    if (leadership.leaderElection && leadership.shards > 1) {
      throw new ConfigurationError(
        "settings.leadership: use either leaderElection or shards > 1, not both (one shard " +
          "is what a leader holds).",
      );
    }
    // As client-go requires: a holder gives up before others may take over, and tries
    // more than once before it gives up.
    if (!(leadership.renewDeadline < leadership.leaseDuration)) {
      throw new ConfigurationError(
        `settings.leadership.renewDeadline (${leadership.renewDeadline}s) must be shorter than ` +
          `leaseDuration (${leadership.leaseDuration}s).`,
      );
    }
    if (!(leadership.retryPeriod * 1.2 < leadership.renewDeadline)) {
      throw new ConfigurationError(
        `settings.leadership.retryPeriod (${leadership.retryPeriod}s) must be shorter than ` +
          `renewDeadline / 1.2 (${leadership.renewDeadline}s / 1.2).`,
      );
    }
  }
}
