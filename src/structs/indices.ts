/**
 * In-memory indices: values from indexing functions, grouped by key, one entry per
 * object. Handlers see them read-only as {@link Index} and {@link Store}.
 *
 * @module
 */
import { isMapping } from "./dicts.ts";

/** A primitive usable as (a part of) an index key. */
export type IndexKeyPart = string | number | boolean | null;

/** An index key: a primitive or an array of primitives, compared by value. */
export type IndexKey =
  | string
  | number
  | boolean
  | null
  | readonly (string | number | boolean | null)[];

/** The values of one key of an index, one per indexed object. Never empty. */
export interface Store<V = unknown> extends Iterable<V> {
  /** How many values there are. */
  readonly size: number;
  /** The values, in the order their objects were first indexed. */
  values(): IterableIterator<V>;
}

/** A read-only index: keys lead to stores of values. */
export interface Index<K extends IndexKey = IndexKey, V = unknown> extends Iterable<[K, Store<V>]> {
  /** The store under the key (keys compare by value), or `undefined`. */
  get(key: K): Store<V> | undefined;
  /** Whether the key has values. */
  has(key: K): boolean;
  /** How many keys there are. */
  readonly size: number;
  /** The keys. */
  keys(): IterableIterator<K>;
  /** The `[key, store]` pairs. */
  entries(): IterableIterator<[K, Store<V>]>;
}

function isKeyPart(value: unknown): value is IndexKeyPart {
  return value === null || typeof value === "string" || typeof value === "boolean" ||
    (typeof value === "number" && !Number.isNaN(value));
}

/** A string that equals for equal keys (`"a"` and `["a"]` differ; so do `1` and `"1"`). */
function canonical(key: unknown): string {
  if (typeof key === "string") return `s${key}`;
  if (isKeyPart(key)) return `p${String(key)}`;
  if (Array.isArray(key) && key.every(isKeyPart)) return `a${JSON.stringify(key)}`;
  throw new TypeError(
    `An index key must be a string, number, boolean, null or an array of those; got ${
      typeof key === "object" ? JSON.stringify(key) : String(key)
    }.`,
  );
}

class StoreImpl<V> implements Store<V> {
  readonly byRef: Map<string, V> = new Map();
  get size(): number {
    return this.byRef.size;
  }
  values(): IterableIterator<V> {
    return this.byRef.values();
  }
  [Symbol.iterator](): IterableIterator<V> {
    return this.byRef.values();
  }
}

interface Slot<K, V> {
  key: K;
  store: StoreImpl<V>;
}

/**
 * An index that indexing engines fill: {@link OperatorIndex.replace} records one
 * object's result, {@link OperatorIndex.discard} forgets the object.
 */
export class OperatorIndex<K extends IndexKey = IndexKey, V = unknown> implements Index<K, V> {
  readonly #slots: Map<string, Slot<K, V>> = new Map();
  readonly #refs: Map<string, string[]> = new Map();

  /**
   * Index one object's result, replacing what it had before. A `Map` or plain object
   * gives key -> value pairs; any other value is stored under the key `null`;
   * `undefined` leaves the object's previous values as they are (returns `false`).
   */
  replace(ref: string, result: unknown): boolean {
    if (result === undefined) return false;
    const pairs: [unknown, V][] = result instanceof Map
      ? [...result.entries()]
      : isMapping(result) &&
          [Object.prototype, null].includes(Object.getPrototypeOf(result))
      ? Object.entries(result) as [string, V][]
      : [[null, result as V]];
    const canonicals = pairs.map(([key]) => canonical(key)); // validate before changing
    this.discard(ref);
    pairs.forEach(([key, value], i) => {
      const c = canonicals[i];
      let slot = this.#slots.get(c);
      if (slot === undefined) {
        slot = { key: key as K, store: new StoreImpl<V>() };
        this.#slots.set(c, slot);
      }
      slot.store.byRef.set(ref, value);
    });
    this.#refs.set(ref, canonicals);
    return true;
  }

  /** Forget everything one object contributed; empty keys disappear. */
  discard(ref: string): void {
    const canonicals = this.#refs.get(ref);
    if (canonicals === undefined) return;
    this.#refs.delete(ref);
    for (const c of canonicals) {
      const slot = this.#slots.get(c);
      if (slot === undefined) continue;
      slot.store.byRef.delete(ref);
      if (slot.store.size === 0) this.#slots.delete(c);
    }
  }

  /** Whether the object has values in the index. */
  holds(ref: string): boolean {
    return this.#refs.has(ref);
  }

  get(key: K): Store<V> | undefined {
    return this.#slots.get(canonical(key))?.store;
  }

  has(key: K): boolean {
    return this.#slots.has(canonical(key));
  }

  get size(): number {
    return this.#slots.size;
  }

  *keys(): IterableIterator<K> {
    for (const slot of this.#slots.values()) yield slot.key;
  }

  *entries(): IterableIterator<[K, Store<V>]> {
    for (const slot of this.#slots.values()) yield [slot.key, slot.store];
  }

  [Symbol.iterator](): IterableIterator<[K, Store<V>]> {
    return this.entries();
  }
}
