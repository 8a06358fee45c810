/**
 * Registration options of every kind of handler, and their validation: each problem is
 * reported at once, in one line naming the handler and the option.
 *
 * @module
 */
import { ErrorsMode } from "../structs/errors.ts";
import { type FieldSpec, isMapping, parseField } from "../structs/dicts.ts";
import { ABSENT, PRESENT } from "../structs/markers.ts";
import type { SelectorKeywords } from "../structs/resource_selectors.ts";
import type {
  FieldFilterValue,
  HandlerFilters,
  MetaFilter,
  MetaFilterValue,
  WhenCallback,
} from "./filters.ts";
import type { RetryPolicy } from "./handlers.ts";
import type { AdmissionOperation } from "../structs/admission_reviews.ts";
import { OperatorRegistry } from "./registry.ts";
import { parseDeclaredRule, RULE_EXAMPLE } from "../structs/rbac_rules.ts";

/** Options of every registration. */
export interface CommonOptions {
  /** The handler id; by default the function's name. */
  id?: string;
  /** Any value, passed to the handler as `param`. */
  param?: unknown;
  /** The registry to add the handler to; the default registry otherwise. */
  registry?: OperatorRegistry;
  /**
   * What the handler's own API calls need beyond what the framework does with the objects
   * it serves, as `RESOURCE:VERBS` — e.g. `["pods:create,delete", "deployments.apps:get"]`
   * — for the RBAC that `kopf manifests` generates.
   */
  rbac?: readonly string[];
}

/** Error handling of retried handlers (all durations in seconds). */
export interface RetryOptions {
  /** What to do with arbitrary errors: retry (default), fail, or ignore. */
  errors?: ErrorsMode;
  /** Fail for good this many seconds after the first attempt. */
  timeout?: number | null;
  /** Fail for good after this many retries. */
  retries?: number | null;
  /** Seconds before retrying after an arbitrary error (default 60). */
  backoff?: number | null;
}

/** Filters of resource handlers; all given criteria must match. */
export interface FilterOptions<K> {
  /** Criteria for labels: a value, `PRESENT`, `ABSENT`, or a callback. */
  labels?: MetaFilter<K>;
  /** Criteria for annotations: a value, `PRESENT`, `ABSENT`, or a callback. */
  annotations?: MetaFilter<K>;
  /** A field (`"spec.field"` or `["spec", "field"]`) that must be present (or match `value`). */
  field?: FieldSpec;
  /** A criterion for the field's value. */
  value?: FieldFilterValue<K>;
  /** A callback on the whole object's arguments. */
  when?: WhenCallback<K>;
}

/** Options of the handlers that get their objects from the resource's watch. */
export interface WatchedOptions {
  /**
   * The handler needs the objects' metadata only. When every handler, daemon, timer and
   * index of a resource says so, its objects are watched and listed as metadata only
   * (`PartialObjectMetadata`): `body` then has `apiVersion`, `kind` and `metadata`, `spec`
   * and `status` are empty, and the kwarg `fetchBody()` reads the whole object when the
   * handler needs it. Filters may look at `metadata` only.
   */
  metadataOnly?: boolean;
}

/** Filters of the old and new values of a field (update and field handlers). */
export interface ChangeFilterOptions<K> {
  /** A criterion for the field's value before the change. */
  old?: FieldFilterValue<K>;
  /** A criterion for the field's value after the change. */
  new?: FieldFilterValue<K>;
}

/** Options of `on.event`. */
export interface EventHandlerOptions<K>
  extends CommonOptions, SelectorKeywords, FilterOptions<K>, WatchedOptions {}

/** Options of `on.create`. */
export interface CreateOptions<K>
  extends CommonOptions, SelectorKeywords, RetryOptions, FilterOptions<K>, WatchedOptions {}

/** Options of `on.update`. */
export interface UpdateOptions<K> extends CreateOptions<K>, ChangeFilterOptions<K> {}

/** Options of `on.delete`. */
export interface DeleteOptions<K> extends CreateOptions<K> {
  /** Do not block the deletion with a finalizer: run only if the operator sees it. */
  optional?: boolean;
}

/** Options of `on.resume`. */
export interface ResumeOptions<K> extends CreateOptions<K> {
  /** Also resume objects already marked for deletion. */
  deleted?: boolean;
}

/** Options of `on.field`: `field` is required. */
export interface FieldOptions<K> extends UpdateOptions<K> {
  /** The field to watch. */
  field: FieldSpec;
}

/** Options of `daemon`. */
export interface DaemonOptions<K>
  extends CommonOptions, SelectorKeywords, RetryOptions, FilterOptions<K>, WatchedOptions {
  /** Seconds to wait before starting the daemon. */
  initialDelay?: number | null;
  /** Seconds between the stop-flag and cancellation. */
  cancellationBackoff?: number | null;
  /** Seconds to wait for a cancelled daemon before abandoning it. */
  cancellationTimeout?: number | null;
  /** Seconds between checks whether a stopping daemon has exited. */
  cancellationPolling?: number | null;
}

/** Options of `timer`: `interval` or `idle` (or both) is required. */
export interface TimerOptions<K>
  extends CommonOptions, SelectorKeywords, RetryOptions, FilterOptions<K>, WatchedOptions {
  /** Seconds between invocations. */
  interval?: number | null;
  /** Seconds the object must stay unchanged before invocations. */
  idle?: number | null;
  /** Keep the schedule regardless of how long each run takes. */
  sharp?: boolean;
  /** Seconds to wait before the first invocation. */
  initialDelay?: number | null;
}

/** Options of `index`. */
export interface IndexOptions<K>
  extends CommonOptions, SelectorKeywords, RetryOptions, FilterOptions<K>, WatchedOptions {}

/** Options of `on.validate` and `on.mutate`. */
export interface WebhookOptions<K> extends CommonOptions, SelectorKeywords, FilterOptions<K> {
  /** Only these operations (one or several); all by default. */
  operation?: AdmissionOperation | "*" | readonly AdmissionOperation[];
  /** Only this subresource (`"*"` for all); the main body only by default. */
  subresource?: string | null;
  /** Keep the webhook configured when the operator exits. */
  persistent?: boolean;
  /** The handler has side effects outside the object. */
  sideEffects?: boolean;
  /** Admit requests when the webhook fails or is unreachable. */
  ignoreFailures?: boolean;
}

/** Options of `on.startup/cleanup/login/probe`. */
export interface ActivityOptions extends CommonOptions, RetryOptions {}

/** Options of `subhandler` and `register`. */
export interface SubhandlerOptions<K>
  extends CommonOptions, RetryOptions, FilterOptions<K>, ChangeFilterOptions<K> {}

/** The registration functions, as named in messages. */
export type Registrar =
  | "on.event"
  | "on.create"
  | "on.update"
  | "on.delete"
  | "on.resume"
  | "on.field"
  | "daemon"
  | "timer"
  | "index"
  | "on.validate"
  | "on.mutate"
  | "on.startup"
  | "on.cleanup"
  | "on.login"
  | "on.probe"
  | "subhandler"
  | "register";

const COMMON = ["id", "param", "registry"];
/** Options of the top-level registrations only (sub-handlers run in their parent's calls). */
const TOP = [...COMMON, "rbac"];
const SELECTOR = ["group", "version", "kind", "plural", "singular", "shortcut", "category"];
const RETRY = ["errors", "timeout", "retries", "backoff"];
const FILTERS = ["labels", "annotations", "field", "value", "when"];
const CHANGE = ["old", "new"];
const WEBHOOK = ["operation", "subresource", "persistent", "sideEffects", "ignoreFailures"];
const DAEMON = [
  "initialDelay",
  "cancellationBackoff",
  "cancellationTimeout",
  "cancellationPolling",
];
const TIMER = ["interval", "idle", "sharp", "initialDelay"];
const WATCHED = ["metadataOnly"];
const CHANGING = [...TOP, ...SELECTOR, ...RETRY, ...FILTERS, ...WATCHED];
const ACTIVITY = [...TOP, ...RETRY];

/** The options each registration function accepts. */
export const ALLOWED_OPTIONS: Readonly<Record<Registrar, readonly string[]>> = {
  "on.event": [...TOP, ...SELECTOR, ...FILTERS, ...WATCHED],
  "on.create": CHANGING,
  "on.update": [...CHANGING, ...CHANGE],
  "on.delete": [...CHANGING, "optional"],
  "on.resume": [...CHANGING, "deleted"],
  "on.field": [...CHANGING, ...CHANGE],
  "daemon": [...CHANGING, ...DAEMON],
  "timer": [...CHANGING, ...TIMER],
  "index": CHANGING,
  "on.validate": [...TOP, ...SELECTOR, ...FILTERS, ...WEBHOOK],
  "on.mutate": [...TOP, ...SELECTOR, ...FILTERS, ...WEBHOOK],
  "on.startup": ACTIVITY,
  "on.cleanup": ACTIVITY,
  "on.login": ACTIVITY,
  "on.probe": ACTIVITY,
  "subhandler": [...COMMON, ...RETRY, ...FILTERS, ...CHANGE],
  "register": [...COMMON, ...RETRY, ...FILTERS, ...CHANGE],
};

/** The names of the selector keywords inside options. */
export const SELECTOR_OPTIONS: readonly string[] = SELECTOR;

/**
 * A registration problem; the message names the handler, the option and the fix.
 *
 * @example In a test: a timer without an interval is refused when it is registered
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * Deno.test("a timer needs an interval", () => {
 *   const registry = new kopf.OperatorRegistry();
 *   try {
 *     kopf.timer("kopfexamples", { registry } as never, () => {});
 *     throw new Error("registered");
 *   } catch (error) {
 *     if (!(error instanceof kopf.RegistrationError)) throw error;
 *   }
 * });
 * ```
 */
export class RegistrationError extends TypeError {
  /** The error class name. */
  override name = "RegistrationError";
}

const ADMISSION_ONLY = new Set(WEBHOOK);
const RETRY_SET = new Set(RETRY);

function whoAccepts(option: string): Registrar[] {
  return (Object.keys(ALLOWED_OPTIONS) as Registrar[]).filter((r) =>
    ALLOWED_OPTIONS[r].includes(option)
  );
}

/** Explains why an option is not accepted by a registrar. */
function rejection(registrar: Registrar, option: string): string {
  const allowed = ALLOWED_OPTIONS[registrar];
  if (RETRY_SET.has(option) && (registrar === "on.validate" || registrar === "on.mutate")) {
    return `option "${option}" is not accepted: admission handlers are never retried ` +
      "(raise kopf.AdmissionError to reject a request with a message and code)";
  }
  if (RETRY_SET.has(option) && registrar === "on.event") {
    return `option "${option}" is not accepted: event handlers are never retried ` +
      "(use kopf.on.create/update/delete/resume for retried handlers)";
  }
  if (option === "rbac" && (registrar === "subhandler" || registrar === "register")) {
    return 'option "rbac" is not accepted for sub-handlers, which run inside their parent: ' +
      "declare the rules on the parent handler";
  }
  if (SELECTOR.includes(option)) {
    return `option "${option}" selects resources, but kopf.${registrar} handlers serve none; ` +
      "remove it";
  }
  if (ADMISSION_ONLY.has(option)) {
    return `option "${option}" is only for admission handlers (kopf.on.validate/mutate)`;
  }
  const elsewhere = whoAccepts(option);
  if (elsewhere.length > 0) {
    return `option "${option}" is not accepted here, only by ${
      elsewhere.map((r) => `kopf.${r}`).join(", ")
    }`;
  }
  return `unknown option "${option}"; valid options are: ${allowed.join(", ")}`;
}

/** The validated, normalised options; the registry turns them into handler records. */
export interface NormalizedOptions extends HandlerFilters, RetryPolicy {
  /** The explicit id, if any. */
  readonly id: string | undefined;
  /** The `param` option. */
  readonly param: unknown;
  /** The explicit registry, if any. */
  readonly registry: OperatorRegistry | undefined;
  /** The `rbac` option: the rules the handler's own API calls need. */
  readonly rbac: readonly string[];
  /** The selector keywords found among the options. */
  readonly keywords: SelectorKeywords;
  /** All other options by name, validated (booleans, durations, …). */
  readonly extra: Readonly<Record<string, unknown>>;
}

/** Reads one registration's options, each checked as it is read. */
interface OptionReader {
  /** The option's value; `undefined` if not given (or given as `undefined`). */
  get(key: string): unknown;
  /** A number of seconds (`null` if not given): `> 0` if `positive`, else `≥ 0`. */
  duration(key: string, positive?: boolean): number | null;
  /** A boolean (`false` if not given). */
  flag(key: string): boolean;
  /** Throw a {@link RegistrationError} naming the handler. */
  fail(problem: string): never;
}

function optionReader(
  options: Record<string, unknown>,
  fail: (problem: string) => never,
): OptionReader {
  const get = (key: string): unknown => options[key] ?? undefined;
  return {
    get,
    fail,
    duration(key, positive = false) {
      const v = get(key);
      if (v === undefined || v === null) return null;
      if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || (positive && v === 0)) {
        fail(
          `option "${key}" must be a number of seconds ${positive ? "> 0" : "≥ 0"}, got ${show(v)}`,
        );
      }
      return v;
    },
    flag(key) {
      const v = get(key);
      if (v === undefined || v === null) return false;
      if (typeof v !== "boolean") fail(`option "${key}" must be true or false, got ${show(v)}`);
      return v;
    },
  };
}

/** Validates the options of one registration; `fail` throws with the handler named. */
export function normalizeOptions(
  registrar: Registrar,
  options: Record<string, unknown>,
  fail: (problem: string) => never,
): NormalizedOptions {
  if (!isMapping(options)) fail("options must be a plain object");
  const allowed = ALLOWED_OPTIONS[registrar];
  for (const key of Object.keys(options)) {
    if (options[key] !== undefined && !allowed.includes(key)) fail(rejection(registrar, key));
  }
  const read = optionReader(options, fail);
  // In this order, so that of several wrong options the same one is reported first.
  const common = commonOptions(read);
  const retry = retryOptions(registrar, read);
  const filters = filterOptions(registrar, read);
  const extra = extraOptions(registrar, read);
  if (
    extra.metadataOnly === true && filters.field !== undefined && filters.field[0] !== "metadata"
  ) {
    fail(
      `option "field" filters ${filters.field.join(".")}, which a metadata-only watch ` +
        '(option "metadataOnly") does not carry; filter on metadata.* or drop metadataOnly',
    );
  }
  const keywords: Record<string, unknown> = {};
  for (const key of SELECTOR) if (read.get(key) !== undefined) keywords[key] = read.get(key);
  return { ...common, keywords: keywords as SelectorKeywords, extra, ...retry, ...filters };
}

/** The options of every registration: id, param, registry, rbac. */
function commonOptions(
  read: OptionReader,
): Pick<NormalizedOptions, "id" | "param" | "registry" | "rbac"> {
  const { get } = read;
  const fail: (problem: string) => never = read.fail;
  const id = get("id");
  if (id !== undefined && (typeof id !== "string" || id === "")) {
    fail(`option "id" must be a non-empty string, got ${show(id)}`);
  }
  const registry = get("registry");
  if (registry !== undefined && !(registry instanceof OperatorRegistry)) {
    fail(`option "registry" must be a kopf.OperatorRegistry, got ${show(registry)}`);
  }
  const rbac = get("rbac") ?? [];
  if (!Array.isArray(rbac)) {
    fail(
      `option "rbac" must be a list like ["${RULE_EXAMPLE.split(" or ")[0]}"], got ${show(rbac)}`,
    );
  }
  for (const rule of rbac) {
    if (typeof rule !== "string" || parseDeclaredRule(rule) === undefined) {
      fail(`option "rbac": ${show(rule)} is not RESOURCE:VERBS; use e.g. ${RULE_EXAMPLE}`);
    }
  }
  return {
    id: id as string | undefined,
    param: get("param"),
    registry: registry as OperatorRegistry | undefined,
    rbac: Object.freeze([...rbac as string[]]),
  };
}

/** The retry options: errors, timeout, retries, backoff (indexing ignores errors by default). */
function retryOptions(registrar: Registrar, read: OptionReader): RetryPolicy {
  const { get } = read;
  const fail: (problem: string) => never = read.fail;
  const errors = get("errors") ?? (registrar === "index" ? "ignored" : "temporary");
  if (!Object.values(ErrorsMode).includes(errors as ErrorsMode)) {
    fail(
      `option "errors" must be one of ${
        Object.values(ErrorsMode).map((m) => `"${m}"`).join(", ")
      } (kopf.ErrorsMode), got ${show(errors)}`,
    );
  }
  const retries = get("retries");
  if (
    retries !== undefined && retries !== null &&
    (typeof retries !== "number" || !Number.isInteger(retries) || retries < 0)
  ) {
    fail(`option "retries" must be a whole number ≥ 0, got ${show(retries)}`);
  }
  return {
    errors: errors as ErrorsMode,
    timeout: read.duration("timeout"),
    retries: (retries ?? null) as number | null,
    backoff: read.duration("backoff") ?? 60,
  };
}

/** The filters: labels, annotations, a field with its value (or old/new values), `when`. */
function filterOptions(registrar: Registrar, read: OptionReader): HandlerFilters {
  const { get } = read;
  const fail: (problem: string) => never = read.fail;
  const labels = metaFilter("labels", get("labels"), fail);
  const annotations = metaFilter("annotations", get("annotations"), fail);
  const rawField = get("field");
  let field;
  if (rawField !== undefined && rawField !== null) {
    try {
      field = parseField(rawField as FieldSpec);
    } catch (e) {
      fail(`option "field": ${(e as Error).message.replace(/\.$/, "")}`);
    }
  }
  const value = fieldFilter("value", get("value"), fail);
  const old = fieldFilter("old", get("old"), fail);
  const neu = fieldFilter("new", get("new"), fail);
  const when = get("when");
  if (when !== undefined && typeof when !== "function") {
    fail(`option "when" must be a function of the handler's arguments, got ${show(when)}`);
  }
  if (value !== undefined && (old !== undefined || neu !== undefined)) {
    fail('options "value" and "old"/"new" cannot be combined; use either "value" or "old"/"new"');
  }
  if (field === undefined && (value !== undefined || old !== undefined || neu !== undefined)) {
    const which = value !== undefined ? "value" : old !== undefined ? "old" : "new";
    fail(`option "${which}" filters a field's value; give the "field" option too`);
  }
  if (registrar === "on.field" && field === undefined) {
    fail('option "field" is required for kopf.on.field (e.g. { field: "spec.size" })');
  }
  const hasCallbacks = typeof when === "function" ||
    [value, old, neu].some((v) => typeof v === "function") ||
    [labels, annotations].some((f) =>
      f !== undefined && Object.values(f).some((v) => typeof v === "function")
    );
  const fieldNeedsChange = registrar === "on.update" || registrar === "on.field" ||
    registrar === "subhandler" || registrar === "register";
  return {
    labels,
    annotations,
    field,
    value,
    old,
    new: neu,
    when: when as WhenCallback<unknown> | undefined,
    fieldNeedsChange,
    hasCallbacks,
    hasFilters: labels !== undefined || annotations !== undefined || field !== undefined ||
      when !== undefined,
  };
}

/** The options of some registrars only (flags, durations, admission's), by name. */
function extraOptions(registrar: Registrar, read: OptionReader): Record<string, unknown> {
  const allowed = ALLOWED_OPTIONS[registrar];
  const { get } = read;
  const fail: (problem: string) => never = read.fail;
  const extra: Record<string, unknown> = {};
  for (
    const key of [
      "optional",
      "deleted",
      "persistent",
      "sideEffects",
      "ignoreFailures",
      "sharp",
      "metadataOnly",
    ]
  ) {
    if (allowed.includes(key)) extra[key] = read.flag(key);
  }
  for (const key of ["initialDelay", "cancellationBackoff", "cancellationTimeout", "idle"]) {
    if (allowed.includes(key)) extra[key] = read.duration(key);
  }
  if (allowed.includes("cancellationPolling")) {
    extra.cancellationPolling = read.duration("cancellationPolling", true);
  }
  if (allowed.includes("interval")) {
    extra.interval = read.duration("interval", true);
    if (extra.interval === null && extra.idle === null) {
      fail('a timer needs option "interval" or "idle" (or both), in seconds');
    }
  }
  if (allowed.includes("operation")) extra.operations = operations(get("operation"), fail);
  if (allowed.includes("subresource")) {
    const sub = get("subresource");
    if (sub !== undefined && sub !== null && (typeof sub !== "string" || sub === "")) {
      fail(`option "subresource" must be a subresource name, "*" or null, got ${show(sub)}`);
    }
    extra.subresource = sub ?? null;
  }
  return extra;
}

const OPERATIONS: readonly string[] = ["CREATE", "UPDATE", "DELETE", "CONNECT"];

function operations(
  raw: unknown,
  fail: (problem: string) => never,
): readonly AdmissionOperation[] | null {
  if (raw === undefined || raw === null || raw === "*") return null;
  const list = Array.isArray(raw) ? raw : [raw];
  for (const op of list) {
    if (!OPERATIONS.includes(op as string)) {
      fail(
        `option "operation" must be one of ${
          OPERATIONS.map((o) => `"${o}"`).join(", ")
        } or "*" (or an array of them), got ${show(op)}`,
      );
    }
  }
  if (list.length === 0) fail('option "operation" must not be an empty array');
  return Object.freeze([...new Set(list)]) as readonly AdmissionOperation[];
}

function metaFilter(
  option: string,
  raw: unknown,
  fail: (problem: string) => never,
): MetaFilter<unknown> | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isMapping(raw)) {
    fail(
      `option "${option}" must be an object of key → value, kopf.PRESENT, kopf.ABSENT or a callback`,
    );
  }
  const out: Record<string, MetaFilterValue<unknown>> = {};
  for (const [key, v] of Object.entries(raw)) {
    if (typeof v !== "string" && v !== PRESENT && v !== ABSENT && typeof v !== "function") {
      fail(
        `option "${option}" key ${JSON.stringify(key)} must be a string, kopf.PRESENT, ` +
          `kopf.ABSENT or a callback, got ${show(v)}`,
      );
    }
    out[key] = v as MetaFilterValue<unknown>;
  }
  return Object.freeze(out);
}

function fieldFilter(
  option: string,
  raw: unknown,
  fail: (problem: string) => never,
): FieldFilterValue<unknown> | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === "symbol" && raw !== PRESENT && raw !== ABSENT) {
    fail(
      `option "${option}" accepts only kopf.PRESENT or kopf.ABSENT as markers, got ${show(raw)}`,
    );
  }
  if (typeof raw === "bigint" || (typeof raw === "number" && !Number.isFinite(raw))) {
    fail(`option "${option}" must be a JSON value, a marker or a callback, got ${show(raw)}`);
  }
  return raw as FieldFilterValue<unknown>;
}

/** A short description of a value for messages. */
export function show(value: unknown): string {
  if (typeof value === "symbol") return value.toString();
  if (typeof value === "function") return `a function ${value.name || "(anonymous)"}`;
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "bigint") return `${value}n`;
  if (value === null || typeof value !== "object") return String(value);
  const proto = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) {
    return `a ${proto?.constructor?.name ?? "object"}`;
  }
  try {
    const text = JSON.stringify(value);
    return text.length <= 60 ? text : Array.isArray(value) ? "an array" : "an object";
  } catch {
    return Array.isArray(value) ? "an array" : "an object";
  }
}
