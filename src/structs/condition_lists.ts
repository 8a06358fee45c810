/**
 * Status conditions (`status.conditions`) as the Kubernetes API conventions define them
 * (`metav1.Condition`): what a valid one is, and how a list of them changes. The list is
 * written whole (a merge patch replaces arrays): conditions of other types -- other
 * controllers', the handlers' own -- keep their place and order; a condition of a type
 * already there is replaced where it is, a new one is appended. `lastTransitionTime`
 * changes only when the condition's status does.
 *
 * @module
 */

import type { JsonObject } from "./bodies.ts";
import { isMapping } from "./dicts.ts";
import { type Patch, patchContent, setInPatch } from "./patches.ts";
import { toPlainData } from "./views.ts";

/** What a condition says: its type, status, reason and message. */
export interface ConditionInit {
  /** The type, in CamelCase (or `example.com/CamelCase`), e.g. `DatabaseReady`. */
  readonly type: string;
  /** `"True"`, `"False"` or `"Unknown"`. */
  readonly status: "True" | "False" | "Unknown";
  /** Why, as one CamelCase word (letters, digits, `_`, `,` and `:`), e.g. `Provisioned`. */
  readonly reason: string;
  /** Details for people; may be empty. */
  readonly message: string;
}

/** The status of a condition, as the API spells it. */
export type ConditionStatus = ConditionInit["status"];

/**
 * The types of conditions (a type with an optional DNS-subdomain prefix), as the API's
 * schema of `metav1.Condition` checks them.
 */
const CONDITION_TYPE_PATTERN: RegExp =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$/;

/** The reasons of conditions, as the API's schema of `metav1.Condition` checks them. */
export const CONDITION_REASON_PATTERN: RegExp = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

/** The API's limits of a condition's fields, in characters. */
const TYPE_LIMIT = 316;
const REASON_LIMIT = 1024;
const MESSAGE_LIMIT = 32768;

const STATUSES: ReadonlySet<unknown> = new Set(["True", "False", "Unknown"]);

/** What is wrong with a condition's type (as the API would say it), or `undefined`. */
export function conditionTypeProblem(type: unknown): string | undefined {
  if (typeof type !== "string" || !CONDITION_TYPE_PATTERN.test(type)) {
    return `the type ${
      JSON.stringify(type)
    } is not a condition type (CamelCase letters, digits, '-', '_' ` +
      "and '.', optionally prefixed by a domain and '/', e.g. \"DatabaseReady\")";
  }
  if (type.length > TYPE_LIMIT) return `the type is longer than ${TYPE_LIMIT} characters`;
  return undefined;
}

/** What is wrong with a condition (as the API would refuse it), or `undefined`. */
export function conditionProblem(condition: ConditionInit): string | undefined {
  const typeProblem = conditionTypeProblem(condition.type);
  if (typeProblem !== undefined) return typeProblem;
  if (!STATUSES.has(condition.status)) {
    return `the status ${JSON.stringify(condition.status)} is not "True", "False" or "Unknown"`;
  }
  const reason: unknown = condition.reason;
  if (typeof reason !== "string" || !CONDITION_REASON_PATTERN.test(reason)) {
    return `the reason ${JSON.stringify(reason)} is not one CamelCase word (a letter, then ` +
      "letters, digits, '_', ',' or ':', not ending in ',' or ':'), e.g. \"Provisioned\"";
  }
  if (reason.length > REASON_LIMIT) return `the reason is longer than ${REASON_LIMIT} characters`;
  if (typeof condition.message !== "string") {
    return `the message must be a string, not ${typeof condition.message}`;
  }
  return undefined;
}

/** The message as the API takes it: cut to its limit (counted in UTF-16 units, as safe). */
export function conditionMessage(message: string): string {
  return message.length <= MESSAGE_LIMIT ? message : `${message.slice(0, MESSAGE_LIMIT - 1)}\u2026`;
}

/** The last second formatted, and its text: most cycles of a burst fall in the same second. */
let lastSecond = NaN;
let lastText = "";

/** A wall time (epoch milliseconds) as a condition's `lastTransitionTime`: RFC 3339 seconds. */
export function transitionTime(wallMs: number): string {
  const second = Math.floor(wallMs / 1000);
  if (second !== lastSecond) {
    lastText = `${new Date(second * 1000).toISOString().slice(0, 19)}Z`;
    lastSecond = second;
  }
  return lastText;
}

/** The conditions of a status (of an object, or of a view of one); none if it has none. */
export function conditionsOf(status: unknown): readonly unknown[] {
  if (!isMapping(status)) return NONE;
  const conditions = status.conditions;
  return Array.isArray(conditions) ? conditions : NONE;
}

/**
 * The conditions that the patch sets this cycle: the list it holds; an empty list if it
 * removes them; `undefined` if it does not touch them.
 */
export function conditionsInPatch(patch: Patch): readonly unknown[] | undefined {
  const status = patchContent(patch).status;
  if (!isMapping(status) || !Object.hasOwn(status, "conditions")) return undefined;
  const conditions = status.conditions;
  return Array.isArray(conditions) ? conditions : NONE;
}

/** What a change of a list of conditions starts from, and stamps its conditions with. */
export interface ConditionsChange {
  /** The object's conditions as they are: `lastTransitionTime` is kept from there. */
  readonly current: readonly unknown[];
  /** The list to change: the one the patch holds this cycle, else the current one. */
  readonly base: readonly unknown[];
  /** The `observedGeneration` of the changed conditions; none if `undefined`. */
  readonly generation: number | undefined;
  /** The `lastTransitionTime` of conditions whose status changes (see {@link transitionTime}). */
  readonly now: string;
}

/**
 * The list with the given conditions set: each replaces the first of its type where it is
 * (and drops later ones of that type), or is appended; all others stay as they are, in
 * their order. A condition keeps the `lastTransitionTime` of the current one of its type if
 * its status is the same (else of the base's, if that has the same status), else gets `now`.
 */
export function mergeConditions(
  updates: readonly ConditionInit[],
  { current, base, generation, now }: ConditionsChange,
): JsonObject[] {
  const merged: JsonObject[] = [];
  for (let i = 0; i < base.length; i++) {
    const entry = base[i];
    if (isMapping(entry)) merged.push(toPlainData(entry) as JsonObject);
  }
  for (let u = 0; u < updates.length; u++) {
    const update = updates[u];
    const at = merged.findIndex((entry) => entry.type === update.type);
    const since = keptTime(findType(current, update.type), update.status) ??
      keptTime(at < 0 ? undefined : merged[at], update.status) ?? now;
    const condition: JsonObject = { type: update.type, status: update.status };
    if (generation !== undefined) condition.observedGeneration = generation;
    condition.lastTransitionTime = since;
    condition.reason = update.reason;
    condition.message = conditionMessage(update.message);
    if (at < 0) {
      merged.push(condition);
      continue;
    }
    merged[at] = condition;
    for (let i = merged.length - 1; i > at; i--) {
      if (merged[i].type === update.type) merged.splice(i, 1);
    }
  }
  return merged;
}

/** The first condition of the type in the list, if any. */
export function findType(
  conditions: readonly unknown[],
  type: string,
): Readonly<Record<string, unknown>> | undefined {
  // Indexed, as in the others here: they run for every object's cycle.
  for (let i = 0; i < conditions.length; i++) {
    const entry = conditions[i];
    if (isMapping(entry) && entry.type === type) return entry;
  }
  return undefined;
}

function keptTime(
  previous: Readonly<Record<string, unknown>> | undefined,
  status: ConditionStatus,
): string | undefined {
  if (previous === undefined || previous.status !== status) return undefined;
  const time = previous.lastTransitionTime;
  return typeof time === "string" && time !== "" ? time : undefined;
}

/** The fields by which two lists of conditions are told apart (not the transition times). */
const COMPARED = ["type", "status", "reason", "message", "observedGeneration"] as const;

/**
 * Whether two lists say the same: the same conditions in the same order, with the same
 * type, status, reason, message and `observedGeneration` (transition times aside).
 */
export function sameConditions(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (!isMapping(x) || !isMapping(y)) return false;
    for (let f = 0; f < COMPARED.length; f++) if (x[COMPARED[f]] !== y[COMPARED[f]]) return false;
  }
  return true;
}

/**
 * Set the conditions in the patch: the whole list, from the one the patch already holds
 * this cycle (else the object's), as {@link mergeConditions} changes it.
 */
export function putConditions(
  patch: Patch,
  status: unknown,
  updates: readonly ConditionInit[],
  stamp: { readonly generation: number | undefined; readonly now: string },
): JsonObject[] {
  const current = conditionsOf(status);
  const base = conditionsInPatch(patch) ?? current;
  const merged = mergeConditions(updates, { current, base, ...stamp });
  setInPatch(patch, ["status", "conditions"], merged);
  return merged;
}

const NONE: readonly unknown[] = Object.freeze([]);
