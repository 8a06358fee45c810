/**
 * The validation of one registration's options: each option accepted by its registration
 * and checked as it is read, each problem reported at once in one line naming the handler
 * and the option; the result is the normalised options the handler record is made of.
 *
 * Apart from the options' types (`handler_options.ts`) and the table of which registration
 * accepts which (`allowed_options.ts`).
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
import { ALLOWED_OPTIONS, rejection, SELECTOR_OPTIONS } from "./allowed_options.ts";
import type { Registrar } from "./handler_options.ts";

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
  /** All other options by name, validated (booleans, durations, ...). */
  readonly extra: Readonly<Record<string, unknown>>;
}

/** Reads one registration's options, each checked as it is read. */
interface OptionReader {
  /** The option's value; `undefined` if not given (or given as `undefined`). */
  get(key: string): unknown;
  /** A number of seconds (`null` if not given): `> 0` if `positive`, else `>= 0`. */
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
          `option "${key}" must be a number of seconds ${positive ? "> 0" : "\u2265 0"}, got ${
            show(v)
          }`,
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
  for (const key of SELECTOR_OPTIONS) {
    if (read.get(key) !== undefined) keywords[key] = read.get(key);
  }
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
    fail(`option "retries" must be a whole number \u2265 0, got ${show(retries)}`);
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
      "anyOwner",
      "unlabelled",
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
  if (allowed.includes("childLabels")) {
    extra.childLabels = metaFilter("childLabels", get("childLabels"), fail);
    const childWhen = get("childWhen");
    if (childWhen !== undefined && typeof childWhen !== "function") {
      fail(
        `option "childWhen" must be a function of the child's arguments, got ${show(childWhen)}`,
      );
    }
    extra.childWhen = childWhen;
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
      `option "${option}" must be an object of key \u2192 value, kopf.PRESENT, kopf.ABSENT or a callback`,
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
