/**
 * Field paths into JSON-like trees (bodies, essences, patches): the operations the storages
 * need with Kopf's semantics -- presence-aware lookup, ensuring parents, removal that also
 * drops the parents it empties.
 *
 * @module
 */

import type { RawBody } from "../structs/bodies.ts";
import { isMapping as isTree } from "../structs/dicts.ts";
import { StoredStateError } from "../structs/errors.ts";
import { Patch, patchContent, setInPatch } from "../structs/patches.ts";
import { type FieldPath, type FieldSpec, parseField } from "../structs/dicts.ts";

export { type FieldSpec, parseField };

/** Parse a field, substituting `{name}` in the string form (as Kopf's storages do). */
export function formatField(field: FieldSpec, name: string): FieldPath {
  return parseField(typeof field === "string" ? field.replaceAll("{name}", name) : field);
}

/** A nested mutable object, as bodies, essences and patches are. */
export type Tree = { [key: string]: unknown };

/** The tree a storage writes into: the framework's Patch (via its root) or a plain object. */
export function patchTree(patch: Patch | Tree): Tree {
  return patch instanceof Patch ? patch.root : patch;
}

/**
 * What the patch holds, for reading only: unlike {@link patchTree}, reading a Patch this
 * way makes none of the sections that its proxies make on access.
 */
export function patchContents(patch: Patch | Tree): Readonly<Tree> {
  return patch instanceof Patch ? patchContent(patch) : patch;
}

/** {@link ensure} on {@link patchTree}, without a Patch's proxies. */
export function ensureInPatch(patch: Patch | Tree, path: readonly string[], value: unknown): void {
  if (patch instanceof Patch) setInPatch(patch, path, value);
  else ensure(patch, path, value);
}

/** The value at `path`, or `fallback` when absent or when a parent is not an object. */
export function resolve<T>(root: unknown, path: readonly string[], fallback: T): unknown | T {
  let current: unknown = root;
  // Indexed: resolved for every object's cycle, an iterator would be garbage each time.
  for (let i = 0; i < path.length; i++) {
    const key = path[i];
    if (!isTree(current) || !Object.hasOwn(current, key)) return fallback;
    current = current[key];
  }
  return current;
}

/** Set the value at `path`, creating missing (or non-object) parents as `{}`. */
export function ensure(root: Tree, path: readonly string[], value: unknown): void {
  let current = root;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i];
    let next = current[key];
    if (!isTree(next)) {
      next = {};
      current[key] = next;
    }
    current = next as Tree;
  }
  current[path[path.length - 1]] = value;
}

/** Delete the value at `path` and every parent left empty by it (a no-op when absent). */
export function remove(root: Tree, path: readonly string[]): void {
  removeFrom(root, path, 0);
}

function removeFrom(root: Tree, path: readonly string[], depth: number): void {
  const key = path[depth];
  if (!Object.hasOwn(root, key)) return;
  if (depth === path.length - 1) {
    delete root[key];
    return;
  }
  const child = root[key];
  if (!isTree(child)) return;
  removeFrom(child, path, depth + 1);
  if (isEmpty(child)) delete root[key];
}

/** Whether the object has no own enumerable keys (without listing them). */
function isEmpty(tree: Tree): boolean {
  for (const key in tree) if (Object.hasOwn(tree, key)) return false;
  return true;
}

/**
 * `root` without the value at `path` and the parents its removal empties (as {@link remove}
 * does), leaving `root` untouched: only the objects along the path are copied, the rest is
 * shared with `root`. It is `root` itself when there is nothing at `path`.
 */
export function without(root: Tree, path: readonly string[]): Tree {
  return withoutFrom(root, path, 0);
}

function withoutFrom(root: Tree, path: readonly string[], depth: number): Tree {
  const key = path[depth];
  if (!Object.hasOwn(root, key)) return root;
  if (depth === path.length - 1) {
    const copy = { ...root };
    delete copy[key];
    return copy;
  }
  const child = root[key];
  if (!isTree(child)) return root;
  const reduced = withoutFrom(child, path, depth + 1);
  if (reduced === child) return root;
  const copy = { ...root };
  if (isEmpty(reduced)) delete copy[key];
  else copy[key] = reduced;
  return copy;
}

/**
 * Undo a deletion of a container above `path` (a `null` in the patch, as purging leaves
 * when it empties one) before writing there: a container deleted as a
 * whole becomes the deletion of each key the object holds in it, so that the write does
 * not revive the keys it was meant to delete.
 */
export function reopenDeleted(body: RawBody, tree: Tree, path: readonly string[]): void {
  let held: unknown = body;
  let current: Tree = tree;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i];
    held = isTree(held) ? held[key] : undefined;
    if (current[key] === null && isTree(held)) {
      current[key] = Object.fromEntries(Object.keys(held).map((k) => [k, null]));
    }
    const next = current[key];
    if (!isTree(next)) return;
    current = next;
  }
}

/** A deep copy of a JSON-like value (plain objects and arrays; other values as they are). */
export function deepCopy<T>(value: T): T {
  if (Array.isArray(value)) return value.map(deepCopy) as T;
  if (isTree(value)) {
    const copy: Tree = {};
    for (const [k, v] of Object.entries(value)) copy[k] = deepCopy(v);
    return copy as T;
  }
  return value;
}

/**
 * An object stored as JSON text on a body (an annotation, a status field), decoded:
 * `null` when nothing (or JSON `null`) is stored. Anything else that is not JSON of an
 * object raises a StoredStateError with the text `problem` gives for the object's
 * `namespace/name` and the `context` (passed on, so that `problem` needs no closure made
 * for each call).
 */
export function parseStoredObject<T extends object = Tree, C = undefined>(
  encoded: unknown,
  body: RawBody,
  problem: (object: string, context: C) => string,
  context?: C,
): T | null {
  if (encoded === undefined || encoded === null) return null;
  let decoded: unknown;
  try {
    decoded = typeof encoded === "string" ? JSON.parse(encoded) : undefined;
  } catch {
    decoded = undefined;
  }
  if (decoded === null) return null;
  if (!isTree(decoded)) {
    const name = [body.metadata?.namespace, body.metadata?.name].filter(Boolean).join("/");
    throw new StoredStateError(problem(name || "the object", context as C));
  }
  return decoded as T;
}

/** Whether Python would consider the value empty/false (`not value`). */
export function isFalsy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === "") {
    return true;
  }
  if (Array.isArray(value)) return value.length === 0;
  if (isTree(value)) return isEmpty(value);
  return false;
}

export { isTree };
