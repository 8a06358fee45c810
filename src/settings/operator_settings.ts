/**
 * `OperatorSettings`: every tunable of one operator, grouped in sections as in Kopf, in
 * camelCase, with Kopf's defaults. All durations are in seconds; `null` means "none".
 * Usually changed in a startup handler: `settings.posting.level = "warning"`.
 *
 * This module gathers the sections and checks their values; the sections themselves are
 * in `api_settings.ts`, `processing_settings.ts`, `queueing_settings.ts`,
 * `output_settings.ts` and `cluster_settings.ts`, by what they tune.
 *
 * @module
 */
import { conditionTypeProblem } from "../structs/condition_lists.ts";
import { ConfigurationError } from "../structs/errors.ts";
import { NetworkingSettings, ScanningSettings, WatchingSettings } from "./api_settings.ts";
import {
  AdmissionSettings,
  EndpointSettings,
  LeadershipSettings,
  PeeringSettings,
} from "./cluster_settings.ts";
import { DiffBaseStorage } from "./diffbase_storages.ts";
import { parseField } from "./field_paths.ts";
import {
  ApplyingSettings,
  ConditionsSettings,
  fieldManagerProblem,
  PostingSettings,
} from "./output_settings.ts";
import {
  BackgroundSettings,
  BatchingSettings,
  PersistenceSettings,
} from "./processing_settings.ts";
import { ProgressStorage } from "./progress_storages.ts";
import { fairnessProblem, QueueingSettings } from "./queueing_settings.ts";
import { checkWatchSelectors } from "./watch_selectors.ts";

const LEVEL_NAMES: ReadonlySet<string> = new Set([
  "trace",
  "debug",
  "info",
  "warning",
  "error",
  "fatal",
  "critical",
]);

/** A partial copy of each section, for {@link OperatorSettings}'s constructor. */
export interface OperatorSettingsInit {
  /** Overrides of {@link PostingSettings}. */
  posting?: Partial<PostingSettings>;
  /** Overrides of {@link WatchingSettings}. */
  watching?: Partial<WatchingSettings>;
  /** Overrides of {@link BatchingSettings}. */
  batching?: Partial<BatchingSettings>;
  /** Overrides of {@link QueueingSettings}. */
  queueing?: Partial<QueueingSettings>;
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
  /** Overrides of {@link EndpointSettings}. */
  endpoints?: Partial<EndpointSettings>;
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
  typeof v === "number" && Number.isFinite(v) && v >= 0
    ? undefined
    : "a number of seconds \u2265 0";
const optionalSeconds: Check = (p, v) =>
  v === null ? undefined : seconds(p, v) && "a number of seconds \u2265 0, or null for none";
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
    : "an integer \u2265 0, or null";
const level: Check = (_, v) =>
  (typeof v === "number" && Number.isFinite(v)) || (typeof v === "string" && LEVEL_NAMES.has(v))
    ? undefined
    : '"debug", "info", "warning", "error", "critical", or a number like 20';
const delays: Check = (_, v) => {
  if (typeof v === "number") return seconds(_, v) && "seconds \u2265 0, or a list of them";
  if (Array.isArray(v)) {
    return v.every((d) => seconds(_, d) === undefined) ? undefined : "a list of seconds \u2265 0";
  }
  const iterable = typeof v === "object" && v !== null && Symbol.iterator in v;
  return iterable ? undefined : "a list (or iterable) of seconds \u2265 0";
};
const listOfDelays: Check = (p, v) =>
  typeof v === "number" ? "a list of seconds \u2265 0" : delays(p, v);
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
  queueing: {
    fairness: (_, v) => fairnessProblem(v),
    burstLimit: count,
  },
  networking: {
    requestTimeout: optionalSeconds,
    connectTimeout: optionalSeconds,
    errorBackoffs: delays,
    adaptiveConcurrency: boolean,
    initialConcurrency: count,
    minConcurrency: count,
    maxConcurrency: count,
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
    clientConnectionLimit: count,
    connectionLimit: count,
  },
  endpoints: {
    headerTimeout: positiveSeconds,
    bodyTimeout: positiveSeconds,
    idleTimeout: positiveSeconds,
    clientConnectionLimit: count,
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
    shards: (_, v) =>
      Number.isSafeInteger(v) && (v as number) >= 1 ? undefined : "an integer \u2265 1",
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
    "max_workers) does not exist in TypeScript: there are no threads for handlers \u2014 " +
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
  /** Fair queues: whose objects take turns, how big a burst is taken in. */
  readonly queueing: QueueingSettings = new QueueingSettings();
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
  /** The servers of the probes and the metrics. */
  readonly endpoints: EndpointSettings = new EndpointSettings();
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
    const { minConcurrency, initialConcurrency, maxConcurrency } = this.networking;
    if (!(minConcurrency <= initialConcurrency && initialConcurrency <= maxConcurrency)) {
      throw new ConfigurationError(
        `settings.networking: minConcurrency (${minConcurrency}) \u2264 initialConcurrency ` +
          `(${initialConcurrency}) \u2264 maxConcurrency (${maxConcurrency}) must hold; set them in ` +
          "that order (all three equal for a fixed limit).",
      );
    }
    for (const name of ["admission", "endpoints"] as const) {
      const { clientConnectionLimit, connectionLimit } = this[name];
      if (clientConnectionLimit > connectionLimit) {
        throw new ConfigurationError(
          `settings.${name}.clientConnectionLimit (${clientConnectionLimit}) must be at most ` +
            `connectionLimit (${connectionLimit}): one client's share of the connections, ` +
            `not more than all of them.`,
        );
      }
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
