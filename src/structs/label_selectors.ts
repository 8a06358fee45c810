/**
 * Label and field selectors as the API server takes them (`?labelSelector=`,
 * `?fieldSelector=`): requirements as data, their text in the server's syntax, parsed back
 * from a user's text, and checked against an object here -- so that the operator can tell an
 * object that left a selected watch from one that was deleted.
 *
 * The syntax is Kubernetes': label requirements `key=value` (or `==`), `key!=value`,
 * `key in (a,b)`, `key notin (a,b)`, `key` (exists), `!key` (does not exist); field
 * requirements `path=value` (or `==`) and `path!=value`. All joined by commas: all must hold.
 *
 * @module
 */

import type { RawBody } from "./bodies.ts";
import { resolve } from "./dicts.ts";

/** One requirement on a label. `in` with one value is written `key=value`. */
export type LabelRequirement =
  | { readonly key: string; readonly op: "in" | "notin"; readonly values: readonly string[] }
  | { readonly key: string; readonly op: "exists" | "absent" };

/** One requirement on a field, compared as the field's text (a missing field is `""`). */
export interface FieldRequirement {
  /** The dotted path, e.g. `status.phase`. */
  readonly field: string;
  /** Equal, or not equal. */
  readonly op: "=" | "!=";
  /** The text the field is compared with. */
  readonly value: string;
}

/** A selector's text does not parse; the message says where and what is expected. */
export class SelectorSyntaxError extends Error {
  /** The error class name. */
  override name = "SelectorSyntaxError";
}

/** A label name: 63 characters at most, alphanumeric at both ends, `-_.` inside. */
const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
/** A key's prefix: a DNS subdomain of 253 characters at most. */
const PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Whether the text is a valid label key (`[prefix/]name`). */
export function isLabelKey(key: string): boolean {
  const slash = key.indexOf("/");
  if (slash < 0) return NAME.test(key);
  const prefix = key.slice(0, slash);
  return prefix.length <= 253 && PREFIX.test(prefix) && NAME.test(key.slice(slash + 1));
}

/** Whether the text is a valid label value: empty, or a label name. */
export function isLabelValue(value: string): boolean {
  return value === "" || NAME.test(value);
}

/** The requirements as the `labelSelector` parameter's text; `""` for none. */
export function formatLabelSelector(requirements: readonly LabelRequirement[]): string {
  return requirements.map((r) => {
    switch (r.op) {
      case "exists":
        return r.key;
      case "absent":
        return `!${r.key}`;
      case "in":
        return r.values.length === 1 ? `${r.key}=${r.values[0]}` : `${r.key} in (${r.values})`;
      case "notin":
        return r.values.length === 1 ? `${r.key}!=${r.values[0]}` : `${r.key} notin (${r.values})`;
    }
  }).join(",");
}

/** The requirements as the `fieldSelector` parameter's text; `""` for none. */
export function formatFieldSelector(requirements: readonly FieldRequirement[]): string {
  return requirements.map((r) => `${r.field}${r.op}${escapeFieldValue(r.value)}`).join(",");
}

/** Field values escape `\`, `,` and `=` with a backslash, as the API server reads them. */
function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** Whether the labels meet every requirement. */
export function matchesLabels(
  requirements: readonly LabelRequirement[],
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  for (const r of requirements) {
    const value = labels?.[r.key];
    const present = value !== undefined;
    switch (r.op) {
      case "exists":
        if (!present) return false;
        break;
      case "absent":
        if (present) return false;
        break;
      case "in":
        if (!present || !r.values.includes(value)) return false;
        break;
      case "notin":
        if (present && r.values.includes(value)) return false;
        break;
    }
  }
  return true;
}

/** Whether the object's fields meet every requirement (as the API server compares them). */
export function matchesFields(requirements: readonly FieldRequirement[], body: RawBody): boolean {
  for (const r of requirements) {
    if ((fieldText(body, r.field) === r.value) !== (r.op === "=")) return false;
  }
  return true;
}

/** A field's value as text: strings as they are, numbers and booleans printed, else `""`. */
function fieldText(body: RawBody, path: string): string {
  const current = resolve(body, path.split("."));
  if (typeof current === "string") return current;
  if (typeof current === "number" || typeof current === "boolean") return String(current);
  return "";
}

/**
 * Parse a label selector's text; throws a {@link SelectorSyntaxError} naming the term that
 * does not parse. `""` is no requirement at all.
 */
export function parseLabelSelector(text: string): LabelRequirement[] {
  const requirements: LabelRequirement[] = [];
  for (const term of splitTerms(text)) {
    const requirement = parseLabelTerm(term);
    if (requirement === undefined) {
      throw new SelectorSyntaxError(
        `the label selector ${JSON.stringify(text)} has a term that does not parse: ` +
          `${JSON.stringify(term)}; expected key=value, key!=value, key in (a,b), ` +
          "key notin (a,b), key, or !key, with valid label keys and values",
      );
    }
    requirements.push(requirement);
  }
  return requirements;
}

function parseLabelTerm(term: string): LabelRequirement | undefined {
  let m = /^!\s*(\S+)$/.exec(term);
  if (m) return isLabelKey(m[1]) ? { key: m[1], op: "absent" } : undefined;
  m = /^(\S+?)\s+(in|notin)\s*\(([^()]*)\)$/.exec(term);
  if (m) {
    const values = m[3].split(",").map((v) => v.trim());
    if (!isLabelKey(m[1]) || !values.every(isLabelValue)) return undefined;
    return { key: m[1], op: m[2] as "in" | "notin", values };
  }
  m = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term);
  if (m) {
    if (!isLabelKey(m[1]) || !isLabelValue(m[3])) return undefined;
    return { key: m[1], op: m[2] === "!=" ? "notin" : "in", values: [m[3]] };
  }
  return isLabelKey(term) ? { key: term, op: "exists" } : undefined;
}

/**
 * Parse a field selector's text; throws a {@link SelectorSyntaxError} naming the term that
 * does not parse. Which fields a resource supports is the API server's to say (a 400).
 */
export function parseFieldSelector(text: string): FieldRequirement[] {
  const requirements: FieldRequirement[] = [];
  for (const term of splitTerms(text, true)) {
    const m = /^([A-Za-z0-9_.-]+)\s*(==|=|!=)(.*)$/s.exec(term);
    if (!m) {
      throw new SelectorSyntaxError(
        `the field selector ${JSON.stringify(text)} has a term that does not parse: ` +
          `${JSON.stringify(term)}; expected path=value or path!=value`,
      );
    }
    const value = m[3].replace(/\\(.)/g, "$1");
    requirements.push({ field: m[1], op: m[2] === "!=" ? "!=" : "=", value });
  }
  return requirements;
}

/**
 * The comma-separated terms, trimmed; commas inside `( )` belong to a term (label sets), and
 * with `escapes`, a backslash keeps the next character in the term (field values).
 */
function splitTerms(text: string, escapes = false): string[] {
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (escapes && c === "\\") i++;
    else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "," && depth === 0) {
      terms.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  terms.push(text.slice(start).trim());
  if (terms.length === 1 && terms[0] === "") return [];
  for (const term of terms) {
    if (term === "") {
      throw new SelectorSyntaxError(`the selector ${JSON.stringify(text)} has an empty term`);
    }
  }
  return terms;
}
