/**
 * Filters of handlers (labels, annotations, field/value, old/new, when) and how they
 * are checked against an object.
 *
 * @module
 */
import type { JsonValue, RawBody } from "../structs/bodies.ts";
import type { Diff } from "../structs/diffs.ts";
import { type FieldPath, jsonEqual, resolve } from "../structs/dicts.ts";
import { ABSENT, type Marker, PRESENT } from "../structs/markers.ts";
import type { Reason } from "./reasons.ts";

/**
 * A per-value callback: gets the value (`null` when absent) and the handler's
 * arguments; returns whether it matches. Must be synchronous.
 */
export type ValueCallback<K = never> = {
  // A method signature, so that callbacks declaring a narrower value type fit.
  bivariant(value: unknown, kwargs: K): boolean;
}["bivariant"];

/** A whole-object callback: gets the handler's arguments. Must be synchronous. */
export type WhenCallback<K = never> = {
  bivariant(kwargs: K): boolean;
}["bivariant"];

/** Criteria for labels or annotations, by key; all must match. */
export type MetaFilter<K = never> = Readonly<
  Record<string, string | Marker<"present" | "absent"> | ValueCallback<K>>
>;

/** A criterion for one label or annotation. */
export type MetaFilterValue<K = never> = MetaFilter<K>[string];

/** A criterion for a field's value: a literal (compared deeply), a marker, a callback. */
export type FieldFilterValue<K = never> =
  | Exclude<JsonValue, null>
  | Marker<"present" | "absent">
  | ValueCallback<K>;

/** The normalised filters of a handler. */
export interface HandlerFilters {
  /** Label criteria, if any. */
  readonly labels: MetaFilter<unknown> | undefined;
  /** Annotation criteria, if any. */
  readonly annotations: MetaFilter<unknown> | undefined;
  /** The field the handler is about, if any. */
  readonly field: FieldPath | undefined;
  /** The criterion for the field's value (either side of a change, for updates). */
  readonly value: FieldFilterValue<unknown> | undefined;
  /** The criterion for the field's old value (update and field handlers). */
  readonly old: FieldFilterValue<unknown> | undefined;
  /** The criterion for the field's new value (update and field handlers). */
  readonly new: FieldFilterValue<unknown> | undefined;
  /** The whole-object callback, if any. */
  readonly when: WhenCallback<unknown> | undefined;
  /** Whether the field must differ between old and new (update and field handlers). */
  readonly fieldNeedsChange: boolean;
  /** Whether any criterion is a callback (so arguments must be built to check). */
  readonly hasCallbacks: boolean;
  /** Whether there are any criteria at all. */
  readonly hasFilters: boolean;
}

/**
 * What an object looks like to the filters. Plain data: the handling layer fills it
 * from a watch event or a detected cause.
 */
export interface MatchData {
  /** The object's current body. */
  readonly body: RawBody;
  /** The cause's reason, for resource-changing handlers. */
  readonly reason?: Reason;
  /** The old essence (or `null` if none), for changing causes. */
  readonly old?: unknown;
  /** The new essence, for changing causes. */
  readonly new?: unknown;
  /** The diff from old to new, for changing causes. */
  readonly diff?: Diff;
  /**
   * The arguments that callbacks receive: an object, or a function making it (called
   * at most once, and only if some handler has callbacks).
   */
  readonly kwargs?: object | (() => object);
}

/** A filter callback broke the rules (e.g. returned a Promise). */
export class FilterCallbackError extends TypeError {
  /** The error class name. */
  override name = "FilterCallbackError";
}

/**
 * What one match round computes at most once, however many handlers need it: the
 * callbacks' arguments, and the old/new values of each field.
 */
export class KwargsCache {
  #value: object | undefined;
  #fields: Map<FieldPath, FieldChange> | undefined;
  readonly #data: MatchData;

  /** A cache over the data's `kwargs` (or a minimal default made from the data). */
  constructor(data: MatchData) {
    this.#data = data;
  }

  /** The arguments for callbacks. */
  get(): object {
    if (this.#value === undefined) {
      const k = this.#data.kwargs;
      this.#value = typeof k === "function" ? k() : k ?? defaultKwargs(this.#data);
    }
    return this.#value as object;
  }

  /** The field's old and new values in this round, and whether they differ. */
  fieldChange(field: FieldPath): FieldChange {
    let change = this.#fields?.get(field);
    if (change === undefined) {
      const oldValue = resolve(this.#data.old, field);
      const newValue = resolve(this.#data.new, field);
      change = { oldValue, newValue, changed: !jsonEqual(oldValue, newValue) };
      (this.#fields ??= new Map()).set(field, change);
    }
    return change;
  }
}

/** A field's values on both sides of a change. */
interface FieldChange {
  readonly oldValue: unknown;
  readonly newValue: unknown;
  readonly changed: boolean;
}

function defaultKwargs(data: MatchData): object {
  const meta = data.body.metadata ?? {};
  return {
    body: data.body,
    spec: data.body.spec ?? {},
    status: data.body.status ?? {},
    meta,
    labels: meta.labels ?? {},
    annotations: meta.annotations ?? {},
    name: meta.name,
    namespace: meta.namespace,
    uid: meta.uid,
    reason: data.reason,
    old: data.old,
    new: data.new,
    diff: data.diff,
  };
}

function call(result: unknown, what: string): boolean {
  if (typeof result === "boolean") return result;
  if (typeof (result as { then?: unknown } | null)?.then === "function") {
    throw new FilterCallbackError(
      `The ${what} filter callback returned a Promise; filter callbacks must be synchronous.`,
    );
  }
  return Boolean(result);
}

function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** Whether one value meets one criterion (markers, callbacks, or deep equality). */
export function matchesValue(
  criterion: FieldFilterValue<unknown> | MetaFilterValue<unknown>,
  value: unknown,
  kwargs: KwargsCache,
  what: string,
): boolean {
  if (criterion === PRESENT) return isPresent(value);
  if (criterion === ABSENT) return !isPresent(value);
  if (typeof criterion === "function") return call(criterion(value ?? null, kwargs.get()), what);
  return isPresent(value) && jsonEqual(criterion, value);
}

function matchesMeta(
  filter: MetaFilter<unknown>,
  values: Readonly<Record<string, string>> | undefined,
  kwargs: KwargsCache,
  what: string,
): boolean {
  for (const key in filter) {
    const criterion = filter[key];
    const value = values === undefined ? undefined : values[key];
    if (typeof criterion === "string") {
      if (value !== criterion) return false;
    } else if (!matchesValue(criterion, value, kwargs, `${what} ${JSON.stringify(key)}`)) {
      return false;
    }
  }
  return true;
}

/**
 * Whether the object passes the handler's filters. For update and field handlers
 * (`fieldNeedsChange`) the field must differ between `data.old` and `data.new`, `value`
 * may match either side, `old`/`new` their own side; other handlers check the field in
 * the current body (`value` defaults to "present").
 */
export function matchesFilters(
  filters: HandlerFilters,
  data: MatchData,
  kwargs: KwargsCache = new KwargsCache(data),
): boolean {
  if (!filters.hasFilters) return true;
  const meta = data.body.metadata;
  if (filters.labels !== undefined) {
    if (!matchesMeta(filters.labels, meta?.labels, kwargs, "label")) return false;
  }
  if (filters.annotations !== undefined) {
    if (!matchesMeta(filters.annotations, meta?.annotations, kwargs, "annotation")) return false;
  }
  const field = filters.field;
  if (field !== undefined) {
    if (filters.fieldNeedsChange) {
      const { oldValue, newValue, changed } = kwargs.fieldChange(field);
      if (!changed) return false;
      if (
        filters.value !== undefined &&
        !matchesValue(filters.value, oldValue, kwargs, "value") &&
        !matchesValue(filters.value, newValue, kwargs, "value")
      ) return false;
      if (filters.old !== undefined && !matchesValue(filters.old, oldValue, kwargs, "old")) {
        return false;
      }
      if (filters.new !== undefined && !matchesValue(filters.new, newValue, kwargs, "new")) {
        return false;
      }
    } else {
      const value = resolve(data.body, field);
      if (!matchesValue(filters.value ?? PRESENT, value, kwargs, "value")) return false;
    }
  }
  if (filters.when !== undefined) {
    if (!call(filters.when(kwargs.get()), "when")) return false;
  }
  return true;
}
