/**
 * Strategic merge patch, as the API server applies it to built-in kinds: maps merge,
 * `null` deletes, lists with a merge key (from the Go types' `patchMergeKey` tags, via
 * `builtin_messages.ts`) merge item by item, lists of scalars with the merge strategy
 * merge as sets, and every other list is replaced. The directives kubectl sends are
 * honoured: `$patch: replace|delete` (on a map or a list item), `$retainKeys`,
 * `$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>`.
 *
 * The order of merged lists follows Kubernetes' rules: `$setElementOrder` when given;
 * otherwise the patch's items keep the patch's order, the other items the live order,
 * and items new to the list come first.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import { type Message, type MessageField, messageNamed } from "./builtin_messages.ts";
import { ApiError } from "./errors.ts";
import { clone, isObject, jsonEqual } from "./patching.ts";

const DIRECTIVE = "$patch";
const RETAIN_KEYS = "$retainKeys";
const ORDER = "$setElementOrder/";
const DELETE_FROM = "$deleteFromPrimitiveList/";

/** How one field merges: its list merge key (`""` for a set) and its message, if known. */
interface FieldMeta {
  mergeKey?: string;
  message?: Message;
}

/** The patch metadata of a map: its message's fields, or none (every list replaced). */
type Schema = Message | undefined;

/** Kinds the tables do not describe still have metadata and webhooks merged by key. */
const GENERIC_FIELDS: Record<string, FieldMeta> = {
  metadata: { message: messageNamed("ObjectMeta") },
  webhooks: { mergeKey: "name" },
};

function fieldMeta(schema: Schema, name: string, root: boolean): FieldMeta {
  if (!schema) return root ? GENERIC_FIELDS[name] ?? {} : {};
  const field: MessageField | undefined = schema.byName.get(name);
  if (!field) return {};
  return {
    mergeKey: field.mergeKey,
    message: field.message ? messageNamed(field.type) : undefined,
  };
}

function invalid(message: string): ApiError {
  return new ApiError(400, `invalid strategic merge patch: ${message}`);
}

/** Drop the directives from a value that is copied as it is (Go drops them when decoding). */
function plain(value: JsonValue): JsonValue {
  if (Array.isArray(value)) {
    return value.filter((v) => !(isObject(v) && DIRECTIVE in v)).map(plain);
  }
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) if (!k.startsWith("$")) out[k] = plain(v);
  return out;
}

/**
 * Apply a strategic merge patch to an object of the kind `root` describes (`undefined`
 * for a built-in kind without a table: then only metadata and webhooks lists merge).
 */
export function strategicMergePatch(
  target: JsonValue | undefined,
  patch: JsonValue,
  root?: Message,
): JsonValue {
  if (!isObject(patch)) return clone(patch);
  return mergeMap(isObject(target) ? clone(target) : {}, clone(patch), root, true);
}

function mergeMap(original: JsonObject, patch: JsonObject, schema: Schema, root = false) {
  if (DIRECTIVE in patch) {
    const directive = patch[DIRECTIVE];
    if (directive === "replace") return plain(patch) as JsonObject;
    if (directive === "delete") return {};
    throw invalid(`unknown directive "$patch: ${directive}" in a map (use replace or delete)`);
  }
  applyRetainKeys(original, patch);
  applyElementOrders(original, patch, schema, root);
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith(DELETE_FROM)) {
      const field = key.slice(DELETE_FROM.length);
      const list = original[field];
      if (!Array.isArray(value)) throw invalid(`${key} must be a list`);
      if (Array.isArray(list)) {
        original[field] = list.filter((item) => !value.some((v) => jsonEqual(v, item)));
      }
      continue;
    }
    if (key.startsWith("$")) continue;
    if (value === null) {
      delete original[key];
      continue;
    }
    const meta = fieldMeta(schema, key, root);
    const old = original[key];
    if (isObject(value) && isObject(old)) {
      original[key] = mergeMap(old, value, meta.message);
    } else if (Array.isArray(value) && Array.isArray(old) && meta.mergeKey !== undefined) {
      original[key] = mergeList(old, value, meta, key);
    } else if (isObject(value)) {
      // Not in the object yet (or not a map there): the patch's map, its directives applied.
      original[key] = mergeMap({}, value, meta.message);
    } else if (Array.isArray(value) && meta.mergeKey !== undefined) {
      original[key] = mergeList([], value, meta, key);
    } else {
      original[key] = plain(value);
    }
  }
  return original;
}

/** `$retainKeys`: keys of the live map not listed are cleared; the patch may set only those. */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!(RETAIN_KEYS in patch)) return;
  const keys = patch[RETAIN_KEYS];
  if (!Array.isArray(keys) || keys.some((k) => typeof k !== "string")) {
    throw invalid("$retainKeys must be a list of field names");
  }
  const keep = new Set(keys as string[]);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith("$")) continue;
    if (!keep.has(k)) throw invalid(`the patch sets "${k}", which $retainKeys does not list`);
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

/** The identity of a list item: its merge key's value, or the item itself for scalars. */
function identity(item: JsonValue, key: string): JsonValue | undefined {
  return key ? (isObject(item) ? item[key] : undefined) : item;
}

function indexIn(list: JsonValue[], item: JsonValue, key: string): number {
  const id = identity(item, key);
  return list.findIndex((v) => jsonEqual(identity(v, key), id));
}

/** A stable sort by position in `order`, as Go's sort.SliceStable does it (insertion sort). */
function sortByOrder(items: JsonValue[], order: JsonValue[], key: string): JsonValue[] {
  const out = [...items];
  const less = (a: JsonValue, b: JsonValue) => {
    const ia = indexIn(order, a, key);
    const ib = indexIn(order, b, key);
    return ia < 0 || ib < 0 ? true : ia < ib;
  };
  for (let i = 1; i < out.length; i++) {
    for (let j = i; j > 0 && less(out[j], out[j - 1]); j--) {
      [out[j], out[j - 1]] = [out[j - 1], out[j]];
    }
  }
  return out;
}

/**
 * Put the patch's items in `patchOrder` and the others in `serverOrder`, then interleave
 * them by their live positions; an item new to the list goes before the remaining ones.
 */
function normalizeOrder(
  merged: JsonValue[],
  partitionBy: JsonValue[],
  patchOrder: JsonValue[],
  serverOrder: JsonValue[],
  key: string,
): JsonValue[] {
  const inPatch = merged.filter((v) => indexIn(partitionBy, v, key) >= 0);
  const serverOnly = merged.filter((v) => indexIn(partitionBy, v, key) < 0);
  const left = sortByOrder(serverOnly, serverOrder, key);
  const right = sortByOrder(inPatch, patchOrder, key);
  const out: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (j >= right.length) out.push(left[i++]);
    else if (i >= left.length) out.push(right[j++]);
    else {
      const li = indexIn(serverOrder, left[i], key);
      const ri = indexIn(serverOrder, right[j], key);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

function mergeList(
  original: JsonValue[],
  patch: JsonValue[],
  meta: FieldMeta,
  field: string,
): JsonValue[] {
  const key = meta.mergeKey ?? "";
  if (!key) {
    // A set of scalars: the union, without duplicates.
    const merged: JsonValue[] = [];
    for (const v of [...original, ...patch]) {
      if (!merged.some((m) => jsonEqual(m, v))) merged.push(v);
    }
    return normalizeOrder(merged, patch, patch, original, "");
  }
  let live = [...original];
  const items: JsonObject[] = [];
  let replace = false;
  for (const item of patch) {
    if (!isObject(item)) {
      throw invalid(
        `the list "${field}" holds objects merged by "${key}", not ${JSON.stringify(item)}`,
      );
    }
    if (!(DIRECTIVE in item)) {
      items.push(item);
      continue;
    }
    const directive = item[DIRECTIVE];
    if (directive === "replace") replace = true;
    else if (directive === "delete") {
      if (!(key in item)) throw invalid(`a "$patch: delete" item of "${field}" lacks "${key}"`);
      live = live.filter((v) => !(isObject(v) && jsonEqual(v[key], item[key])));
    } else {
      throw invalid(`unknown directive "$patch: ${directive}" in the list "${field}"`);
    }
  }
  if (replace) return items.map((item) => mergeMap({}, item, meta.message));
  const serverOrder = [...live];
  for (const item of items) {
    if (!(key in item)) {
      throw invalid(`an item of "${field}" lacks its merge key "${key}": ${JSON.stringify(item)}`);
    }
    const at = live.findIndex((v) => isObject(v) && jsonEqual(v[key], item[key]));
    if (at >= 0) live[at] = mergeMap(live[at] as JsonObject, item, meta.message);
    else live.push(mergeMap({}, item, meta.message));
  }
  return normalizeOrder(live, items, items, serverOrder, key);
}

/**
 * `$setElementOrder/<field>`: merge that list first, then order it as the directive says
 * (items it does not name keep their live order, interleaved).
 */
function applyElementOrders(
  original: JsonObject,
  patch: JsonObject,
  schema: Schema,
  root: boolean,
): void {
  for (const [directive, order] of Object.entries(patch)) {
    if (!directive.startsWith(ORDER)) continue;
    delete patch[directive];
    const field = directive.slice(ORDER.length);
    if (!Array.isArray(order)) throw invalid(`${directive} must be a list`);
    const meta = fieldMeta(schema, field, root);
    const key = meta.mergeKey ?? "";
    const live = Array.isArray(original[field]) ? original[field] as JsonValue[] : undefined;
    const given = Array.isArray(patch[field]) ? patch[field] as JsonValue[] : undefined;
    if (given) checkOrder(given, order, key, directive);
    let merged: JsonValue[];
    if (live && given) {
      merged = meta.mergeKey === undefined
        ? plain(given) as JsonValue[]
        : mergeList(live, given, meta, field);
    } else if (live) merged = live;
    else if (given) {
      merged = meta.mergeKey === undefined
        ? plain(given) as JsonValue[]
        : mergeList([], given, meta, field);
    } else continue;
    delete patch[field];
    original[field] = meta.mergeKey === undefined
      ? merged
      : normalizeOrder(merged, order, order, live ?? [], key);
  }
}

/** The patch's items must appear in `$setElementOrder` in the same relative order. */
function checkOrder(given: JsonValue[], order: JsonValue[], key: string, directive: string): void {
  const items = given.filter((v) => !(isObject(v) && DIRECTIVE in v));
  let at = 0;
  for (const item of order) {
    if (at < items.length && jsonEqual(identity(items[at], key), identity(item, key))) at++;
  }
  if (at < items.length) {
    throw invalid(
      `the order of the patch's "${directive.slice(ORDER.length)}" does not match ${directive}`,
    );
  }
}
