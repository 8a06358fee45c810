/**
 * Dotted field paths (`"spec.field"`) and lookups along them in JSON-like objects.
 *
 * @module
 */

/** A field path: a dotted string (`"spec.field"`) or its parts (`["metadata", "labels"]`). */
export type FieldSpec = string | readonly string[];

/** A parsed field path. */
export type FieldPath = readonly string[];

/**
 * Parse a field path into its parts. Use the array form for keys that contain dots,
 * e.g. `["metadata", "labels", "example.com/app"]`.
 */
export function parseField(field: FieldSpec): FieldPath {
  const parts = typeof field === "string" ? field.split(".") : [...field];
  if (parts.length === 0 || parts.some((part) => typeof part !== "string" || part === "")) {
    throw new TypeError(
      `Invalid field path ${
        JSON.stringify(field)
      }: use a dotted string like "spec.field" or an array of non-empty keys.`,
    );
  }
  // The same field always gives the same frozen array, so that it can key caches.
  const key = JSON.stringify(parts);
  let path = interned.get(key);
  if (path === undefined) interned.set(key, path = Object.freeze(parts));
  return path;
}

const interned = new Map<string, FieldPath>();

/** Whether the value is a plain (non-array, non-null) object. */
export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The value at the path, or `undefined` when any step is missing or not an object.
 * An empty path returns the object itself.
 */
export function resolve(obj: unknown, path: FieldPath): unknown {
  let current: unknown = obj;
  for (const key of path) {
    if (!isMapping(current)) return undefined;
    current = current[key];
  }
  return current;
}

/** Whether the path exists in the object with a non-null value (null counts as absent). */
export function hasPath(obj: unknown, path: FieldPath): boolean {
  const value = resolve(obj, path);
  return value !== undefined && value !== null;
}

/** Deep equality of JSON-like values, where `null` and `undefined` are the same (absent). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || a === null) return b === undefined || b === null;
  if (b === undefined || b === null) return false;
  if (typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  for (const key in ao) {
    if (!jsonEqual(ao[key], bo[key])) return false;
  }
  for (const key in bo) {
    if (!(key in ao) && bo[key] !== undefined && bo[key] !== null) return false;
  }
  return true;
}
