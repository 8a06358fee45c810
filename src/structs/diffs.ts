/**
 * Diffs between two states of an object, with Kopf's semantics: `null` means absent,
 * objects are compared key by key, anything else (lists included) is compared whole.
 *
 * @module
 */
import { type FieldPath, isMapping, jsonEqual, resolve } from "./dicts.ts";

/**
 * A list of changes between two states, each `[op, path, old, new]`: `op` is what happened
 * to the value at `path`; `old` is `null` for additions, `new` for removals.
 */
export type Diff = readonly (readonly [
  op: "add" | "change" | "remove",
  path: readonly string[],
  old: unknown,
  new: unknown,
])[];

/** One change of a {@link Diff}. */
type DiffItem = Diff[number];

/** What a change does: `add`, `change` or `remove`. */
export type DiffOperation = DiffItem[0];

function item(op: DiffOperation, path: readonly string[], a: unknown, b: unknown): DiffItem {
  return Object.freeze([op, Object.freeze([...path]), a ?? null, b ?? null] as const);
}

/**
 * Push the changes from `a` to `b` at `path` (a stack: keys are pushed and popped around
 * the recursion; items copy it) onto `out`. A loop rather than a generator: no iterator
 * objects and no path copies per level.
 */
function diffInto(a: unknown, b: unknown, path: string[], out: DiffItem[]): void {
  if (jsonEqual(a, b)) return;
  if (a === undefined || a === null) {
    out.push(item("add", path, null, b));
  } else if (b === undefined || b === null) {
    out.push(item("remove", path, a, null));
  } else if (isMapping(a) && isMapping(b)) {
    for (const key of Object.keys(a)) {
      if (!(key in b)) diffAt(a[key], undefined, path, key, out);
    }
    for (const key of Object.keys(b)) {
      if (!(key in a)) diffAt(undefined, b[key], path, key, out);
    }
    for (const key of Object.keys(a)) {
      if (key in b) diffAt(a[key], b[key], path, key, out);
    }
  } else {
    out.push(item("change", path, a, b));
  }
}

function diffAt(a: unknown, b: unknown, path: string[], key: string, out: DiffItem[]): void {
  path.push(key);
  diffInto(a, b, path, out);
  path.pop();
}

const NO_CHANGES: Diff = Object.freeze([]);

/**
 * The changes from `a` to `b`: removed keys first, then added, then changed ones.
 * An absent or `null` side makes a single `add`/`remove` of the whole value.
 */
export function diff(a: unknown, b: unknown): Diff {
  // Equal states (most events) share one frozen empty diff.
  if (jsonEqual(a, b)) return NO_CHANGES;
  const out: DiffItem[] = [];
  diffInto(a, b, [], out);
  return Object.freeze(out);
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
      diffInto(resolve(oldValue, rest), resolve(newValue, rest), [], out);
    }
  }
  return Object.freeze(out);
}
