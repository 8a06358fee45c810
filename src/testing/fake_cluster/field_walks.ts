/**
 * The walks of server-side apply over JSON values of a known shape (`field_shapes.ts`):
 * the set of fields a value sets (what an applier comes to own), the fields two values
 * differ in (added, modified, removed: what an update comes to own, and what it takes
 * from others), merging an applied configuration into a live object, and removing a set
 * of fields from a value. Pure functions; the inputs are never changed.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import { fieldElement, keyElement, valueElement } from "../../structs/owned_fields.ts";
import { emptySet, type FieldSet, insertPath } from "./field_sets.ts";
import { DEDUCED, LEAF, resolveShape, type Shape } from "./field_shapes.ts";
import { ApiError } from "./errors.ts";
import { clone, isObject, jsonEqual } from "./patching.ts";

type ListShape = Extract<Shape, { kind: "set" | "keyed" }>;

/** The element of a list item; a 422 for an item a keyed list or a set cannot hold. */
export function itemElement(shape: ListShape, item: JsonValue): string {
  if (shape.kind === "set") {
    if (isObject(item) || Array.isArray(item) || item === null) {
      throw new ApiError(422, "a list of scalars (a set) may hold only scalars");
    }
    return valueElement(item);
  }
  if (!isObject(item)) {
    throw new ApiError(
      422,
      `an item of a list keyed by ${shape.keys.join(", ")} must be an object`,
    );
  }
  const keys: [string, JsonValue][] = [];
  for (const key of shape.keys) {
    const value = Object.hasOwn(item, key) ? item[key] : shape.defaults[key];
    if (value !== undefined) keys.push([key, value]);
  }
  if (!keys.length) {
    throw new ApiError(
      422,
      `an item of a list keyed by ${shape.keys.join(", ")} omits all its key fields`,
    );
  }
  return keyElement(keys);
}

/** The child shape of a map's key. */
function childShape(shape: Extract<Shape, { kind: "map" }>, key: string): [Shape, boolean] {
  const named = shape.field(key);
  return named ? [named, true] : [shape.entries, false];
}

// --- the fields a value sets ---

/** The fields a value sets: what applying it makes the applier own. */
export function fieldSetOf(value: JsonValue, shape: Shape): FieldSet {
  const set = emptySet();
  collect(value, shape, [], set);
  return set;
}

function collect(value: JsonValue, given: Shape, path: string[], set: FieldSet): void {
  const shape = resolveShape(given, value);
  switch (shape.kind) {
    case "map": {
      if (!isObject(value)) {
        insertPath(set, path);
        return;
      }
      for (const [key, child] of Object.entries(value)) {
        const [sub, named] = childShape(shape, key);
        path.push(fieldElement(key));
        collect(child, sub, path, set);
        const empty = child === null || (isObject(child) && !Object.keys(child).length);
        if (empty || !named) insertPath(set, path);
        path.pop();
      }
      return;
    }
    case "set":
    case "keyed": {
      if (!Array.isArray(value)) return;
      const seen = new Set<string>();
      for (const item of value) {
        const element = itemElement(shape, item);
        if (seen.has(element)) continue;
        seen.add(element);
        path.push(element);
        if (shape.kind === "keyed") collect(item, shape.item, path, set);
        insertPath(set, path);
        path.pop();
      }
      return;
    }
    default:
      insertPath(set, path);
  }
}

// --- comparing two values ---

/** How two values differ, as sets of fields. */
export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** The fields `after` adds, modifies and removes relative to `before`. */
export function compareValues(
  before: JsonValue | undefined,
  after: JsonValue | undefined,
  shape: Shape,
): Comparison {
  const out = { added: emptySet(), modified: emptySet(), removed: emptySet() };
  compareAt(before, after, shape, [], out);
  return out;
}

function isEmptyValue(value: JsonValue | undefined): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return !value.length;
  return isObject(value) && !Object.keys(value).length;
}

function compareLeaf(
  before: JsonValue | undefined,
  after: JsonValue | undefined,
  path: string[],
  out: Comparison,
): void {
  if (before === undefined) insertPath(out.added, path);
  else if (after === undefined) insertPath(out.removed, path);
  else if (!jsonEqual(before, after)) insertPath(out.modified, path);
}

function compareAt(
  before: JsonValue | undefined,
  after: JsonValue | undefined,
  given: Shape,
  path: string[],
  out: Comparison,
): void {
  const shape = resolveShape(given, after !== undefined ? after : before);
  const mismatched = before !== undefined && after !== undefined &&
    resolveShape(given, before).kind !== shape.kind;
  // Both empty: a leaf, which keeps the empty and null distinction.
  const bothEmpty = isEmptyValue(before) && isEmptyValue(after);
  if (shape.kind === "leaf" || mismatched || bothEmpty) {
    compareLeaf(before, after, path, out);
    return;
  }
  if (shape.kind === "map") {
    const b = isObject(before) ? before : {};
    const a = isObject(after) ? after : {};
    for (const key of new Set([...Object.keys(b), ...Object.keys(a)])) {
      const bv = Object.hasOwn(b, key) ? b[key] : undefined;
      const av = Object.hasOwn(a, key) ? a[key] : undefined;
      // Equal values add nothing to the comparison: skip their walk.
      if (bv !== undefined && av !== undefined && (bv === av || jsonEqual(bv, av))) continue;
      const [sub] = childShape(shape, key);
      path.push(fieldElement(key));
      compareAt(bv, av, sub, path, out);
      path.pop();
    }
  } else if (shape.kind === "set" || shape.kind === "keyed") {
    const b = itemsByElement(shape, before);
    const a = itemsByElement(shape, after);
    const item = shape.kind === "keyed" ? shape.item : LEAF;
    for (const element of new Set([...b.keys(), ...a.keys()])) {
      const bv = b.get(element);
      const av = a.get(element);
      if (bv !== undefined && av !== undefined && jsonEqual(bv, av)) continue;
      path.push(element);
      compareAt(bv, av, item, path, out);
      path.pop();
    }
  }
  if (path.length && before === undefined) insertPath(out.added, path);
  else if (path.length && after === undefined) insertPath(out.removed, path);
}

/** A list's items by element (the first of duplicates). */
function itemsByElement(shape: ListShape, list: JsonValue | undefined): Map<string, JsonValue> {
  const items = new Map<string, JsonValue>();
  if (!Array.isArray(list)) return items;
  for (const item of list) {
    const element = itemElement(shape, item);
    if (!items.has(element)) items.set(element, item);
  }
  return items;
}

// --- merging an applied configuration ---

/** The live value with the applied configuration merged in: the configuration wins. */
export function mergeApplied(
  live: JsonValue | undefined,
  config: JsonValue,
  given: Shape,
): JsonValue {
  const shape = resolveShape(given, config);
  if (shape.kind === "map" && isObject(config)) {
    const out: JsonObject = isObject(live) ? { ...live } : {};
    for (const [key, value] of Object.entries(config)) {
      // An explicit null owns the field and leaves it unset.
      if (value === null) {
        delete out[key];
        continue;
      }
      const [sub] = childShape(shape, key);
      out[key] = mergeApplied(Object.hasOwn(out, key) ? out[key] : undefined, value, sub);
    }
    return out;
  }
  if ((shape.kind === "set" || shape.kind === "keyed") && Array.isArray(config)) {
    return mergeLists(Array.isArray(live) ? live : [], config, shape);
  }
  return clone(config);
}

/**
 * Lists merge item by item: items only the live list has keep their places, the
 * configuration's items come in its order, each merged with its live counterpart.
 */
function mergeLists(live: JsonValue[], config: JsonValue[], shape: ListShape): JsonValue[] {
  const item = shape.kind === "keyed" ? shape.item : LEAF;
  const liveItems = itemsByElement(shape, live);
  const configElements = config.map((v) => itemElement(shape, v));
  const inConfig = new Set(configElements);
  const done = new Set<string>();
  const out: JsonValue[] = [];
  let l = 0;
  let r = 0;
  while (l < live.length || r < config.length) {
    if (l < live.length) {
      const element = itemElement(shape, live[l]);
      if (!inConfig.has(element)) {
        if (!done.has(element)) out.push(clone(live[l]));
        done.add(element);
        l++;
        continue;
      }
      if (done.has(element)) {
        l++;
        continue;
      }
    }
    if (r < config.length) {
      const element = configElements[r];
      if (!done.has(element)) {
        out.push(mergeApplied(liveItems.get(element), config[r], item));
        done.add(element);
      }
      r++;
    } else l++;
  }
  return out;
}

// --- removing fields ---

/** The value without the members of the set (a member's whole subtree goes with it). */
export function removeFields(value: JsonValue, set: FieldSet, given: Shape): JsonValue {
  const shape = resolveShape(given, value);
  if (shape.kind === "map" && isObject(value)) {
    const out: JsonObject = {};
    for (const [key, child] of Object.entries(value)) {
      const node = set.children.get(fieldElement(key));
      if (node?.self) continue;
      if (!node) {
        out[key] = child;
        continue;
      }
      const [sub] = childShape(shape, key);
      const kept = removeFields(child, node, sub);
      // A map or list emptied by the removal goes too, as the API server drops it.
      if (isEmptyValue(kept) && !isEmptyValue(child)) continue;
      out[key] = kept;
    }
    return out;
  }
  if ((shape.kind === "set" || shape.kind === "keyed") && Array.isArray(value)) {
    const item = shape.kind === "keyed" ? shape.item : DEDUCED;
    const out: JsonValue[] = [];
    for (const child of value) {
      const node = set.children.get(itemElement(shape, child));
      if (node?.self) continue;
      out.push(node ? removeFields(child, node, item) : child);
    }
    return out;
  }
  return value;
}
