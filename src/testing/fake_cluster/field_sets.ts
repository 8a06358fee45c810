/**
 * Sets of field paths, as server-side apply tracks who owns what: a trie whose nodes are
 * the path elements of the API server's `FieldsV1` format -- `f:<field>`, `k:<keys as
 * JSON>` (an item of a list keyed by fields), `v:<value as JSON>` (an item of a set of
 * scalars), `i:<index>` -- each node either a member of the set itself or only the parent
 * of members. Converted to and from `FieldsV1` (`.` marks a member that also has
 * children), combined (union, difference, intersection), and printed as the API server
 * prints a path in a conflict (`.spec.containers[name="app"].image`).
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import { isObject } from "./patching.ts";

/** One node of a field set: whether its path is a member, and its children by element. */
export interface FieldSet {
  /** Whether the path of this node is in the set (never true at the root). */
  self: boolean;
  /** The nodes below, by serialized path element (`f:name`, `k:{"name":"x"}`, ...). */
  readonly children: Map<string, FieldSet>;
}

/** An empty field set. */
export function emptySet(): FieldSet {
  return { self: false, children: new Map() };
}

/** Whether the set has no member. */
export function isEmptySet(set: FieldSet): boolean {
  if (set.self) return false;
  for (const child of set.children.values()) if (!isEmptySet(child)) return false;
  return true;
}

/** Add a path (its serialized elements) to the set. */
export function insertPath(set: FieldSet, path: readonly string[]): void {
  let node = set;
  for (const element of path) {
    let next = node.children.get(element);
    if (!next) {
      next = emptySet();
      node.children.set(element, next);
    }
    node = next;
  }
  if (path.length) node.self = true;
}

/** Whether the path is a member of the set. */
export function hasPath(set: FieldSet, path: readonly string[]): boolean {
  let node: FieldSet | undefined = set;
  for (const element of path) {
    node = node.children.get(element);
    if (!node) return false;
  }
  return path.length > 0 && node.self;
}

/**
 * The members of either set. Sets are values: the results of these operations share
 * subtrees with their inputs, so a set is never changed once it is made.
 */
export function union(a: FieldSet, b: FieldSet): FieldSet {
  if (!b.children.size && (!b.self || a.self)) return a;
  if (!a.children.size && !a.self) return b;
  const out: FieldSet = { self: a.self || b.self, children: new Map(a.children) };
  for (const [element, child] of b.children) {
    const mine = out.children.get(element);
    out.children.set(element, mine ? union(mine, child) : child);
  }
  return out;
}

/** The members of `a` that are not members of `b` (their children are kept). */
export function difference(a: FieldSet, b: FieldSet): FieldSet {
  if (!b.children.size && (!b.self || !a.self)) return a;
  const out: FieldSet = { self: a.self && !b.self, children: new Map() };
  for (const [element, child] of a.children) {
    const other = b.children.get(element);
    const kept = other ? difference(child, other) : child;
    if (kept === child || !isEmptySet(kept)) out.children.set(element, kept);
  }
  return out;
}

/** The members of both sets. */
export function intersection(a: FieldSet, b: FieldSet): FieldSet {
  const out: FieldSet = { self: a.self && b.self, children: new Map() };
  for (const [element, child] of a.children) {
    const other = b.children.get(element);
    if (!other) continue;
    const both = intersection(child, other);
    if (!isEmptySet(both)) out.children.set(element, both);
  }
  return out;
}

/** Every member path of the set, in the API server's order. */
export function memberPaths(set: FieldSet): string[][] {
  const out: string[][] = [];
  const walk = (node: FieldSet, path: string[]) => {
    if (node.self) out.push(path);
    for (const element of sortedElements(node.children.keys())) {
      walk(node.children.get(element)!, [...path, element]);
    }
  };
  walk(set, []);
  return out;
}

// --- path elements (`fieldElement`, `keyElement`, `valueElement`: `structs/owned_fields.ts`) ---

const KIND_ORDER: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

/** The scalar order of the API server's values: numbers, strings, booleans, then the rest. */
function valueRank(v: JsonValue): number {
  if (typeof v === "number") return 0;
  if (typeof v === "string") return 1;
  if (typeof v === "boolean") return 2;
  if (Array.isArray(v)) return 3;
  if (isObject(v)) return 4;
  return 5;
}

function compareValues(a: JsonValue, b: JsonValue): number {
  const ra = valueRank(a);
  const rb = valueRank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  const sa = JSON.stringify(a);
  const sb = JSON.stringify(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

function compareElements(a: string, b: string): number {
  const ka = KIND_ORDER[a[0]] ?? 4;
  const kb = KIND_ORDER[b[0]] ?? 4;
  if (ka !== kb) return ka - kb;
  const ra = a.slice(2);
  const rb = b.slice(2);
  switch (a[0]) {
    case "f":
      return ra < rb ? -1 : ra > rb ? 1 : 0;
    case "i":
      return Number(ra) - Number(rb);
    case "v":
      return compareValues(JSON.parse(ra), JSON.parse(rb));
    default: {
      // Keys: field by field, names first, then values.
      const ea = Object.entries(JSON.parse(ra) as JsonObject);
      const eb = Object.entries(JSON.parse(rb) as JsonObject);
      for (let i = 0; i < Math.max(ea.length, eb.length); i++) {
        if (i >= ea.length) return -1;
        if (i >= eb.length) return 1;
        if (ea[i][0] !== eb[i][0]) return ea[i][0] < eb[i][0] ? -1 : 1;
        const c = compareValues(ea[i][1], eb[i][1]);
        if (c !== 0) return c;
      }
      return 0;
    }
  }
}

/** Path elements in the API server's order: fields by name, then keys, values, indexes. */
export function sortedElements(elements: Iterable<string>): string[] {
  const list = [...elements];
  // Fields alone (the usual case) sort as plain strings: they share their `f:` prefix.
  if (list.every((e) => e.startsWith("f:"))) return list.sort();
  return list.sort(compareElements);
}

function scalarText(value: JsonValue): string {
  if (value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** A path as the API server prints it in a conflict: `.spec.ports[port=80,protocol="TCP"]`. */
export function pathText(path: readonly string[]): string {
  return path.map((element) => {
    const rest = element.slice(2);
    switch (element[0]) {
      case "f":
        return `.${rest}`;
      case "i":
        return `[${rest}]`;
      case "v":
        return `[=${scalarText(JSON.parse(rest))}]`;
      default: {
        const keys = Object.entries(JSON.parse(rest) as JsonObject);
        return `[${keys.map(([k, v]) => `${k}=${scalarText(v)}`).join(",")}]`;
      }
    }
  }).join("");
}

// --- FieldsV1 ---

/** The set as `FieldsV1`: `{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`. */
export function toFieldsV1(set: FieldSet): JsonObject {
  const out: JsonObject = {};
  for (const element of sortedElements(set.children.keys())) {
    const child = set.children.get(element)!;
    if (isEmptySet(child)) continue;
    const inner = toFieldsV1(child);
    out[element] = child.self && Object.keys(inner).length ? { ".": {}, ...inner } : inner;
  }
  return out;
}

/** A set from `FieldsV1`; `undefined` when the value is not in that format. */
export function fromFieldsV1(fields: JsonValue | undefined): FieldSet | undefined {
  if (fields === undefined || fields === null) return emptySet();
  if (!isObject(fields)) return undefined;
  const set = emptySet();
  for (const [element, value] of Object.entries(fields)) {
    if (!isObject(value)) return undefined;
    if (element === ".") continue;
    if (!/^[fkvi]:/.test(element)) return undefined;
    const child = fromFieldsV1(value);
    if (!child) return undefined;
    // A leaf (`{}`) or a node marked with `.` is a member.
    child.self = Object.keys(value).length === 0 || Object.hasOwn(value, ".");
    set.children.set(element, child);
  }
  return set;
}
