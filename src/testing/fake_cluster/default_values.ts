/**
 * The small tools of built-in defaulting: set a field the client left out, as Go's
 * defaulting functions test a field for its zero value (`""`, a nil pointer, a nil map).
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import { isObject } from "./patching.ts";

/** Whether a field counts as unset: absent, null, or an empty string. */
export function unset(value: JsonValue | undefined): boolean {
  return value === undefined || value === null || value === "";
}

/** Set each field that is unset to its default. */
export function fill(object: JsonObject, defaults: JsonObject): JsonObject {
  for (const [key, value] of Object.entries(defaults)) {
    if (unset(object[key])) object[key] = structuredClone(value);
  }
  return object;
}

/** The object under a key, made an empty one when missing (a Go struct that always serialises). */
export function child(object: JsonObject, key: string): JsonObject {
  const value = object[key];
  if (isObject(value)) return value;
  const made: JsonObject = {};
  object[key] = made;
  return made;
}

/** The objects of a list under a key (nothing when there is no list). */
export function items(object: JsonObject, key: string): JsonObject[] {
  const value = object[key];
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/** The object at a path of keys, if all of it is there. */
export function at(object: JsonObject, ...path: string[]): JsonObject | undefined {
  let current: JsonValue | undefined = object;
  for (const key of path) current = isObject(current) ? current[key] : undefined;
  return isObject(current) ? current : undefined;
}

/**
 * `metadata.creationTimestamp: null` in an embedded ObjectMeta (a pod template's): the
 * Go struct's time field has no `omitempty` that a struct heeds, so 1.32 writes it.
 */
export function templateMeta(template: JsonObject): void {
  const meta = child(template, "metadata");
  if (meta.creationTimestamp === undefined) meta.creationTimestamp = null;
}
