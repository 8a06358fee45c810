/**
 * Diffs between two states of an object, with Kopf's semantics: `null` means absent,
 * objects are compared key by key, anything else (lists included) is compared whole.
 *
 * @module
 */
import { type FieldPath, isMapping, jsonEqual, resolve } from "./dicts.ts";

/** What happened to a value at a path. */
export type DiffOperation = "add" | "change" | "remove";

/** One change: `[op, path, old, new]`; `old` is `null` for additions, `new` for removals. */
export type DiffItem = readonly [
  op: DiffOperation,
  path: readonly string[],
  old: unknown,
  new: unknown,
];

/** A list of changes between two states. */
export type Diff = readonly DiffItem[];

function item(op: DiffOperation, path: readonly string[], a: unknown, b: unknown): DiffItem {
  return Object.freeze([op, Object.freeze([...path]), a ?? null, b ?? null] as const);
}

function* diffIter(a: unknown, b: unknown, path: string[]): Generator<DiffItem> {
  if (jsonEqual(a, b)) return;
  if (a === undefined || a === null) {
    yield item("add", path, null, b);
  } else if (b === undefined || b === null) {
    yield item("remove", path, a, null);
  } else if (isMapping(a) && isMapping(b)) {
    for (const key of Object.keys(a)) {
      if (!(key in b)) yield* diffIter(a[key], undefined, [...path, key]);
    }
    for (const key of Object.keys(b)) {
      if (!(key in a)) yield* diffIter(undefined, b[key], [...path, key]);
    }
    for (const key of Object.keys(a)) {
      if (key in b) yield* diffIter(a[key], b[key], [...path, key]);
    }
  } else {
    yield item("change", path, a, b);
  }
}

/**
 * The changes from `a` to `b`: removed keys first, then added, then changed ones.
 * An absent or `null` side makes a single `add`/`remove` of the whole value.
 */
export function diff(a: unknown, b: unknown): Diff {
  return Object.freeze([...diffIter(a, b, [])]);
}

function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  if (path.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (path[i] !== prefix[i]) return false;
  return true;
}

/**
 * The part of a diff that concerns one field, with paths relative to that field.
 * A change of a whole parent (e.g. `spec` added) is narrowed down to the field.
 */
export function reduceDiff(d: Diff, field: FieldPath): Diff {
  if (field.length === 0) return d;
  const out: DiffItem[] = [];
  for (const [op, path, oldValue, newValue] of d) {
    if (startsWith(path, field)) {
      out.push(item(op, path.slice(field.length), oldValue, newValue));
    } else if (startsWith(field, path)) {
      const rest = field.slice(path.length);
      out.push(...diffIter(resolve(oldValue, rest), resolve(newValue, rest), []));
    }
  }
  return Object.freeze(out);
}
