/**
 * Label and field selectors, as in `?labelSelector=` and `?fieldSelector=`: parsed once
 * per request into predicates over objects.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import { resolve } from "../../structs/dicts.ts";
import type { ResourceType } from "../../catalog/resource_types.ts";
import { badRequest } from "./errors.ts";
import { LABEL_VALUE, qualifiedNameErrors } from "./metadata.ts";

/** A parsed selector: tells whether an object matches. */
export type Selector = (object: JsonObject) => boolean;

/** Matches everything. */
export const EVERYTHING: Selector = () => true;

/** The name and namespace a field selector requires (`metadata.name=x`), if it does. */
export interface Pinned {
  name?: string;
  namespace?: string;
}

/** What the parsed field selectors pin, so that lists can look objects up directly. */
const PINNED = new WeakMap<Selector, Pinned>();

/**
 * The name and namespace the selector requires, as parsed by {@link parseFieldSelector}
 * or {@link withName}: only objects with them can match (nothing is known of other
 * selectors).
 */
export function pinnedBy(selector: Selector): Pinned {
  return PINNED.get(selector) ?? {};
}

/** The selector, and the object's name must be `name` (a watch of one object's URL). */
export function withName(selector: Selector, name: string): Selector {
  const named: Selector = (object) =>
    (object.metadata as JsonObject | undefined)?.name === name && selector(object);
  PINNED.set(named, { ...pinnedBy(selector), name });
  return named;
}

type LabelRequirement =
  | { op: "=" | "!="; key: string; value: string }
  | { op: "in" | "notin"; key: string; values: string[] }
  | { op: "exists" | "!exists"; key: string };

/** Split on commas that are not inside parentheses. */
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "(") depth++;
    else if (ch === ")") depth--;
    else if (ch === "," && depth === 0) {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms.map((t) => t.trim()).filter((t) => t !== "");
}

function checkKey(key: string, selector: string): string {
  // As labels.Parse: a key is a qualified name (validation.IsQualifiedName).
  if (qualifiedNameErrors(key).length) {
    throw badRequest(`unable to parse requirement: invalid label key "${key}" in "${selector}"`);
  }
  return key;
}

function checkValue(value: string, selector: string): string {
  if (!LABEL_VALUE.test(value) || value.length > 63) {
    throw badRequest(
      `unable to parse requirement: invalid label value "${value}" in "${selector}"`,
    );
  }
  return value;
}

function parseLabelTerm(term: string, selector: string): LabelRequirement {
  let m = /^(\S+?)\s+(in|notin)\s*\(([^)]*)\)$/.exec(term);
  if (m) {
    const values = m[3].split(",").map((v) => checkValue(v.trim(), selector));
    return { op: m[2] as "in" | "notin", key: checkKey(m[1], selector), values };
  }
  m = /^(\S+?)\s*(==|!=|=)\s*(\S*)$/.exec(term);
  if (m) {
    return {
      op: m[2] === "!=" ? "!=" : "=",
      key: checkKey(m[1], selector),
      value: checkValue(m[3], selector),
    };
  }
  m = /^(!?)\s*(\S+)$/.exec(term);
  if (m) return { op: m[1] ? "!exists" : "exists", key: checkKey(m[2], selector) };
  throw badRequest(`unable to parse requirement: "${term}" in label selector "${selector}"`);
}

function labelsOf(object: JsonObject): Record<string, JsonValue> {
  const meta = object.metadata as JsonObject | undefined;
  return (meta?.labels as Record<string, JsonValue> | undefined) ?? {};
}

/** Parse a label selector (`a=b,c!=d,e in (f,g),!h`); an empty one matches everything. */
export function parseLabelSelector(selector: string | null | undefined): Selector {
  if (!selector || !selector.trim()) return EVERYTHING;
  const reqs = splitTerms(selector).map((t) => parseLabelTerm(t, selector));
  return (object) => {
    const labels = labelsOf(object);
    return reqs.every((r) => {
      const has = Object.hasOwn(labels, r.key);
      const value = labels[r.key];
      switch (r.op) {
        case "=":
          return has && value === r.value;
        case "!=":
          return !has || value !== r.value;
        case "in":
          return has && r.values.includes(String(value));
        case "notin":
          return !has || !r.values.includes(String(value));
        case "exists":
          return has;
        case "!exists":
          return !has;
      }
    });
  };
}

/** The value at a (split) dotted path, as a field selector sees it (strings; absent = ""). */
function fieldValue(object: JsonObject, path: readonly string[]): string {
  const value = resolve(object, path);
  if (value === undefined || value === null) return "";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/**
 * Parse a field selector (`metadata.name=x,status.phase!=Running`). Only the fields in
 * `supported` (plus `metadata.name` and `metadata.namespace`) may be used, as on a real
 * server; others are a 400. A cluster-scoped custom resource has no `metadata.namespace` to
 * select by (`crConverter.ConvertFieldLabel` in apiextensions-apiserver's
 * `pkg/apiserver/conversion/converter.go`).
 */
export function parseFieldSelector(
  selector: string | null | undefined,
  supported: readonly string[],
  type: Pick<ResourceType, "kind" | "builtin" | "namespaced">,
): Selector {
  if (!selector || !selector.trim()) return EVERYTHING;
  const kind = type.kind;
  const meta = type.builtin || type.namespaced
    ? ["metadata.name", "metadata.namespace"]
    : ["metadata.name"];
  const reqs = splitTerms(selector).map((term) => {
    const m = /^([^=!\s]+)\s*(==|!=|=)\s*(.*)$/.exec(term);
    if (!m) throw badRequest(`invalid field selector: "${term}" in "${selector}"`);
    const [, field, op, value] = m;
    if (!meta.includes(field) && !supported.includes(field)) {
      throw badRequest(
        `field label not supported: ${field} (${kind} supports ${
          [...meta, ...supported].join(", ")
        })`,
      );
    }
    return { field, path: field.split("."), negate: op === "!=", value: value.trim() };
  });
  const parsed: Selector = (object) =>
    reqs.every((r) => (fieldValue(object, r.path) === r.value) !== r.negate);
  const pinned: Pinned = {};
  for (const r of reqs) {
    if (r.negate) continue;
    if (r.field === "metadata.name") pinned.name ??= r.value;
    if (r.field === "metadata.namespace") pinned.namespace ??= r.value;
  }
  if (pinned.name !== undefined || pinned.namespace !== undefined) PINNED.set(parsed, pinned);
  return parsed;
}
