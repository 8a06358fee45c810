/**
 * Reading who owns what from an object's `metadata.managedFields`, as server-side apply
 * records it in the API server's `FieldsV1` format: a tree of path elements -- `f:<field>`,
 * `k:<keys as JSON>` (an item of a list keyed by fields), `v:<value as JSON>` (an item of a
 * set of scalars), `i:<index>` -- where `{}` is a field owned whole and `.` marks a field
 * owned itself besides some of its children.
 *
 * An applier's configuration is its whole intent: what it applied before and omits now is
 * removed. So a writer that applies only what changed must first know what it owns, and
 * re-state it: {@link ownedPart} cuts that part out of the object.
 *
 * @module
 */

import type { JsonObject, JsonValue, RawBody } from "./bodies.ts";
import { isMapping, jsonEqual } from "./dicts.ts";

/** A manager's fields in the `FieldsV1` format: `{"f:metadata": {"f:labels": {"f:app": {}}}}`. */
export type FieldsV1 = Readonly<Record<string, unknown>>;

/** One entry of `metadata.managedFields`, as far as it is read here. */
export interface ManagedFieldsEntry {
  /** The field manager's name. */
  readonly manager: string;
  /** `Apply` or `Update`. */
  readonly operation: string;
  /** The subresource written (`status`), or none for the object itself. */
  readonly subresource?: string;
  /** The fields owned. */
  readonly fields: FieldsV1;
}

/** How much of a path a set of fields covers. */
export type Coverage = "all" | "some" | "none";

/** The managed-fields entries of an object (those in another format are skipped). */
export function managedEntries(body: RawBody): ManagedFieldsEntry[] {
  const raw = body.metadata?.managedFields;
  if (!Array.isArray(raw)) return [];
  const entries: ManagedFieldsEntry[] = [];
  for (const entry of raw) {
    if (!isMapping(entry) || !isMapping(entry.fieldsV1)) continue;
    if (entry.fieldsType !== undefined && entry.fieldsType !== "FieldsV1") continue;
    entries.push({
      manager: String(entry.manager ?? ""),
      operation: String(entry.operation ?? ""),
      subresource: typeof entry.subresource === "string" && entry.subresource
        ? entry.subresource
        : undefined,
      fields: entry.fieldsV1,
    });
  }
  return entries;
}

/** Whether the entry is the applies of this manager to this subresource (none: the object). */
export function isAppliedBy(
  entry: ManagedFieldsEntry,
  manager: string,
  subresource?: string,
): boolean {
  return entry.manager === manager && entry.operation === "Apply" &&
    entry.subresource === subresource;
}

/** The path element of a map's field. */
export function fieldElement(name: string): string {
  return `f:${name}`;
}

/** The path element of an item of a list keyed by fields: its key fields, sorted by name. */
export function keyElement(keys: ReadonlyArray<readonly [string, JsonValue]>): string {
  const sorted = [...keys].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `k:{${sorted.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`;
}

/** The path element of an item of a set of scalars. */
export function valueElement(value: JsonValue): string {
  return `v:${JSON.stringify(value)}`;
}

/** Whether the node is owned whole: no children but (at most) the `.` of itself. */
function isWhole(node: FieldsV1): boolean {
  for (const key in node) if (key !== ".") return false;
  return true;
}

function childOf(node: FieldsV1, element: string): FieldsV1 | undefined {
  const child = node[element];
  return isMapping(child) ? child : undefined;
}

/**
 * The part of `value` (an object, or a part of one at the fields' root) that the fields
 * cover, in its shape -- maps with only the owned keys, lists with only the owned items, in
 * their order -- or `undefined` if they cover none of it. A field owned whole comes whole.
 */
export function ownedPart(value: unknown, fields: FieldsV1): JsonValue | undefined {
  // The root is never owned itself: an empty set there owns nothing.
  return isWhole(fields) ? undefined : partOf(value, fields);
}

function partOf(value: unknown, fields: FieldsV1): JsonValue | undefined {
  if (isWhole(fields)) return value as JsonValue;
  const itself = Object.hasOwn(fields, ".");
  if (Array.isArray(value)) {
    const items: JsonValue[] = [];
    value.forEach((item, index) => {
      const part = ownedItem(item, index, fields);
      if (part !== undefined) items.push(part);
    });
    return items.length > 0 || itself ? items : undefined;
  }
  if (!isMapping(value)) return itself ? value as JsonValue : undefined;
  const out: JsonObject = {};
  let any = false;
  for (const element in fields) {
    if (!element.startsWith("f:")) continue;
    const name = element.slice(2);
    if (!Object.hasOwn(value, name)) continue;
    const part = partOf(value[name], fields[element] as FieldsV1);
    if (part !== undefined) {
      out[name] = part;
      any = true;
    }
  }
  return any || itself ? out : undefined;
}

/** The owned part of a list's item, by its key fields, its value, or its index. */
function ownedItem(item: unknown, index: number, fields: FieldsV1): JsonValue | undefined {
  const byIndex = childOf(fields, `i:${index}`);
  if (byIndex !== undefined) return partOf(item, byIndex);
  if (!isMapping(item)) {
    return childOf(fields, valueElement(item as JsonValue)) === undefined
      ? undefined
      : item as JsonValue;
  }
  for (const element in fields) {
    if (!element.startsWith("k:")) continue;
    const keys = parseKeys(element);
    if (keys === undefined || !matchesKeys(item, keys)) continue;
    const part = partOf(item, fields[element] as FieldsV1);
    // The keys identify the item in an applied list: they are always stated.
    return isMapping(part) ? { ...keys, ...part } : part;
  }
  return undefined;
}

function parseKeys(element: string): JsonObject | undefined {
  try {
    const keys = JSON.parse(element.slice(2));
    return isMapping(keys) ? keys as JsonObject : undefined;
  } catch {
    return undefined;
  }
}

function matchesKeys(item: Record<string, unknown>, keys: JsonObject): boolean {
  for (const key in keys) if (!jsonEqual(item[key], keys[key])) return false;
  return true;
}

/**
 * How much of the path (its elements, e.g. `["f:metadata", "f:annotations", "f:x"]`) the
 * fields cover: `all` when they own it whole (or an ancestor whole), `some` when they own
 * only parts of it, `none` when nothing of it.
 */
export function coverage(fields: FieldsV1, path: readonly string[]): Coverage {
  const node = nodeAt(fields, path);
  if (node === undefined) return "none";
  return isWhole(node) ? "all" : "some";
}

/**
 * Whether the fields own all of `value`, which is at the path: the path (or an ancestor)
 * whole, or each of its parts that is there now.
 */
export function ownsAllOf(fields: FieldsV1, path: readonly string[], value: unknown): boolean {
  const node = nodeAt(fields, path);
  if (node === undefined) return false;
  return isWhole(node) || jsonEqual(partOf(value, node), value);
}

/**
 * The fields' node at the path, or the first ancestor's owned whole (not the root's, which
 * is never owned itself); `undefined` when the fields cover nothing of the path.
 */
function nodeAt(fields: FieldsV1, path: readonly string[]): FieldsV1 | undefined {
  let node = fields;
  for (const element of path) {
    if (isWhole(node) && node !== fields) return node;
    const child = childOf(node, element);
    if (child === undefined) return undefined;
    node = child;
  }
  return node;
}

/** Whether the list's items are tracked by key fields (`k:` elements) in any entry. */
export function isKeyedList(
  entries: readonly ManagedFieldsEntry[],
  path: readonly string[],
): boolean {
  for (const entry of entries) {
    let node: FieldsV1 | undefined = entry.fields;
    for (const element of path) {
      node = node === undefined ? undefined : childOf(node, element);
    }
    if (node === undefined) continue;
    for (const element in node) if (element.startsWith("k:")) return true;
  }
  return false;
}
