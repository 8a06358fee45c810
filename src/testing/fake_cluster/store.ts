/**
 * The object store: every object by type, namespace and name, one global
 * resourceVersion counter (like etcd's revision), the change history, and the
 * listeners (watches) told of every change. Stored objects are never mutated in place:
 * each write stores a new object, so history entries and watchers can share them.
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import { type Change, History } from "./history.ts";

/** Called synchronously on every change. */
export type ChangeListener = (change: Change) => void;

function nameOf(object: JsonObject): string {
  return String((object.metadata as JsonObject).name);
}

function namespaceOf(object: JsonObject): string {
  const ns = (object.metadata as JsonObject).namespace;
  return typeof ns === "string" ? ns : "";
}

/** The objects of one type, by `namespace/name`. */
type Bucket = Map<string, JsonObject>;

/** All objects, the resourceVersion counter and the history. */
export class Store {
  readonly #buckets = new Map<string, Bucket>();
  readonly #listeners = new Set<ChangeListener>();
  /** The change history that watches replay from. */
  readonly history: History;
  #rv: number;

  constructor(options: { historySize: number; resourceVersion?: number }) {
    this.history = new History(options.historySize);
    this.#rv = options.resourceVersion ?? 1;
    this.history.compact(this.#rv);
  }

  /** The latest resourceVersion. */
  get resourceVersion(): number {
    return this.#rv;
  }

  /** Subscribe to changes; returns the unsubscribe function. */
  listen(listener: ChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The object, if it exists. */
  get(typeKey: string, namespace: string, name: string): JsonObject | undefined {
    return this.#buckets.get(typeKey)?.get(`${namespace}/${name}`);
  }

  /** The objects of a type (in one namespace, if given), sorted by namespace and name. */
  list(typeKey: string, namespace?: string): JsonObject[] {
    const bucket = this.#buckets.get(typeKey);
    if (!bucket) return [];
    const keys = [...bucket.keys()];
    const prefix = namespace === undefined ? undefined : `${namespace}/`;
    const chosen = prefix === undefined ? keys : keys.filter((k) => k.startsWith(prefix));
    chosen.sort();
    return chosen.map((k) => bucket.get(k)!);
  }

  /** How many objects of the type exist (in the namespace, if given). */
  count(typeKey: string, namespace?: string): number {
    const bucket = this.#buckets.get(typeKey);
    if (!bucket) return 0;
    if (namespace === undefined) return bucket.size;
    let n = 0;
    for (const key of bucket.keys()) if (key.startsWith(`${namespace}/`)) n++;
    return n;
  }

  /** The type keys that hold objects. */
  typeKeys(): string[] {
    return [...this.#buckets.keys()].filter((k) => this.#buckets.get(k)!.size > 0);
  }

  /** The next resourceVersion, to stamp an object with before it is written. */
  nextResourceVersion(): number {
    return this.#rv + 1;
  }

  /**
   * Store a new or changed object (already stamped with `nextResourceVersion()`),
   * record the change and tell the listeners.
   */
  put(typeKey: string, object: JsonObject): Change {
    const key = `${namespaceOf(object)}/${nameOf(object)}`;
    let bucket = this.#buckets.get(typeKey);
    if (!bucket) this.#buckets.set(typeKey, bucket = new Map());
    const old = bucket.get(key);
    bucket.set(key, object);
    return this.#record({
      rv: ++this.#rv,
      type: old ? "MODIFIED" : "ADDED",
      typeKey,
      namespace: namespaceOf(object),
      object,
      old,
    });
  }

  /** Remove an object for good; `last` is its final state, stamped with the next rv. */
  remove(typeKey: string, last: JsonObject): Change | undefined {
    const key = `${namespaceOf(last)}/${nameOf(last)}`;
    const bucket = this.#buckets.get(typeKey);
    if (!bucket?.delete(key)) return undefined;
    return this.#record({
      rv: ++this.#rv,
      type: "DELETED",
      typeKey,
      namespace: namespaceOf(last),
      object: last,
    });
  }

  /** Forget every object of a type without events (its type is gone). */
  drop(typeKey: string): void {
    this.#buckets.delete(typeKey);
  }

  /** Load an object as it was saved, without events or a new resourceVersion. */
  restore(typeKey: string, object: JsonObject): void {
    let bucket = this.#buckets.get(typeKey);
    if (!bucket) this.#buckets.set(typeKey, bucket = new Map());
    bucket.set(`${namespaceOf(object)}/${nameOf(object)}`, object);
  }

  #record(change: Change): Change {
    this.history.push(change);
    for (const listener of this.#listeners) listener(change);
    return change;
  }
}
