/**
 * The generic patch formats of the Kubernetes API: JSON merge patch (RFC 7386) and JSON
 * patch (RFC 6902), with the JSON helpers every patch format uses. Strategic merge patch,
 * which needs the built-in kinds' merge keys, is in `strategic_merge_patch.ts`. All are
 * pure functions over JSON values that never change their inputs.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import { ApiError } from "./errors.ts";

/** Whether a value is a JSON object (not an array, not null). */
export function isObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A deep copy of a JSON value. */
export function clone<T extends JsonValue>(value: T): T {
  return structuredClone(value);
}

/**
 * A JSON value with the members of every object in the order Go's `encoding/json` writes a
 * map's: sorted by key (compared as UTF-16 here, as bytes there: the same for the keys objects
 * have). A copy where anything moves; arrays keep their order.
 */
export function goMapOrder(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(goMapOrder);
  if (!isObject(value)) return value;
  const sorted: JsonObject = {};
  for (const key of Object.keys(value).sort()) sorted[key] = goMapOrder(value[key]);
  return sorted;
}

/** Deep equality of JSON values. */
export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  }
  const ao = a as JsonObject;
  const bo = b as JsonObject;
  const ka = Object.keys(ao);
  if (ka.length !== Object.keys(bo).length) return false;
  return ka.every((k) => Object.hasOwn(bo, k) && jsonEqual(ao[k], bo[k]));
}

/** RFC 7386: objects merge recursively, `null` deletes, anything else replaces. */
export function mergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isObject(patch)) return clone(patch);
  const result: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

function patchError(message: string): ApiError {
  return new ApiError(422, message);
}

function parsePointer(pointer: unknown): string[] {
  if (typeof pointer !== "string" || (pointer !== "" && !pointer.startsWith("/"))) {
    throw patchError(`invalid JSON pointer ${JSON.stringify(pointer)} in the JSON patch`);
  }
  return pointer === ""
    ? []
    : pointer.slice(1).split("/").map((p) => p.replaceAll("~1", "/").replaceAll("~0", "~"));
}

function getAt(doc: JsonValue, path: string[]): JsonValue | undefined {
  let cur: JsonValue | undefined = doc;
  for (const key of path) {
    if (Array.isArray(cur)) cur = /^\d+$/.test(key) ? cur[Number(key)] : undefined;
    else if (isObject(cur)) cur = Object.hasOwn(cur, key) ? cur[key] : undefined;
    else return undefined;
  }
  return cur;
}

/** The container of the last path element, or an error naming the missing part. */
function parentOf(doc: JsonValue, path: string[], op: string): JsonObject | JsonValue[] {
  const parent = getAt(doc, path.slice(0, -1));
  if (!isObject(parent) && !Array.isArray(parent)) {
    throw patchError(`JSON patch ${op}: the path /${path.join("/")} does not exist`);
  }
  return parent;
}

function arrayIndex(list: JsonValue[], key: string, forInsert: boolean, op: string): number {
  if (forInsert && key === "-") return list.length;
  const index = /^(0|[1-9]\d*)$/.test(key) ? Number(key) : NaN;
  const max = forInsert ? list.length : list.length - 1;
  if (!(index >= 0 && index <= max)) {
    throw patchError(`JSON patch ${op}: array index ${key} is out of bounds`);
  }
  return index;
}

function addAt(doc: JsonValue, path: string[], value: JsonValue, op: string): JsonValue {
  if (!path.length) return value;
  const parent = parentOf(doc, path, op);
  const key = path[path.length - 1];
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, true, op), 0, value);
  else parent[key] = value;
  return doc;
}

function removeAt(doc: JsonValue, path: string[], op: string): JsonValue | undefined {
  if (!path.length) throw patchError(`JSON patch ${op}: cannot remove the whole document`);
  const parent = parentOf(doc, path, op);
  const key = path[path.length - 1];
  if (Array.isArray(parent)) return parent.splice(arrayIndex(parent, key, false, op), 1)[0];
  if (!Object.hasOwn(parent, key)) {
    throw patchError(`JSON patch ${op}: the path /${path.join("/")} does not exist`);
  }
  const old = parent[key];
  delete parent[key];
  return old;
}

/** RFC 6902. A failing `test` or a bad path is a 422, like on a real API server. */
export function jsonPatch(target: JsonValue, operations: JsonValue): JsonValue {
  if (!Array.isArray(operations)) {
    throw new ApiError(400, "a JSON patch must be an array of operations");
  }
  let doc = clone(target);
  for (const raw of operations) {
    if (!isObject(raw) || typeof raw.op !== "string") {
      throw new ApiError(400, `invalid JSON patch operation: ${JSON.stringify(raw)}`);
    }
    const op = raw.op;
    const path = parsePointer(raw.path);
    switch (op) {
      case "add":
        doc = addAt(doc, path, clone(raw.value ?? null), op);
        break;
      case "remove":
        removeAt(doc, path, op);
        break;
      case "replace":
        if (!path.length) doc = clone(raw.value ?? null);
        else {
          removeAt(doc, path, op);
          doc = addAt(doc, path, clone(raw.value ?? null), op);
        }
        break;
      case "move":
      case "copy": {
        const from = parsePointer(raw.from);
        const value = getAt(doc, from);
        if (value === undefined) {
          throw patchError(`JSON patch ${op}: the path /${from.join("/")} does not exist`);
        }
        if (op === "move") removeAt(doc, from, op);
        doc = addAt(doc, path, clone(value), op);
        break;
      }
      case "test":
        if (!jsonEqual(getAt(doc, path), raw.value ?? null)) {
          throw patchError(
            `JSON patch test failed: the value at /${path.join("/")} is not ${
              JSON.stringify(raw.value)
            }`,
          );
        }
        break;
      default:
        throw new ApiError(400, `unknown JSON patch operation "${op}"`);
    }
  }
  return doc;
}
