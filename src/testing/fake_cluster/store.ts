/**
 * The object store: every object by type, namespace and name, one global
 * resourceVersion counter (like etcd's revision), the change history, and the
 * listeners (watches) told of every change. Stored objects are never mutated in place:
 * each write stores a new object, so history entries and watchers can share them.
 *
 * Indexes kept up to date on every write serve the lifecycle controllers without
 * scanning everything: objects by uid, dependents by the uid their owner references
 * name, the uids named but held by no object (dangling references), and the objects
 * being deleted.
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import { type Change, History } from "./history.ts";

/** Called synchronously on every change. */
export type ChangeListener = (change: Change) => void;

/** A stored object with the key of its type, as the indexes hold it. */
export interface Stored {
  readonly typeKey: string;
  readonly object: JsonObject;
}

/** The slot of one object: the same slot holds each new version of it. */
interface Entry extends Stored {
  object: JsonObject;
}

/** The objects of one type: by namespace, then by name. */
interface Bucket {
  size: number;
  readonly namespaces: Map<string, Map<string, Entry>>;
}

function metaOfStored(object: JsonObject): JsonObject {
  return (object.metadata ?? {}) as JsonObject;
}

function nameOf(object: JsonObject): string {
  return String(metaOfStored(object).name);
}

function namespaceOf(object: JsonObject): string {
  const ns = metaOfStored(object).namespace;
  return typeof ns === "string" ? ns : "";
}

function uidOf(object: JsonObject): string {
  return String(metaOfStored(object).uid);
}

/** The uids the object's owner references name (references that are not objects skipped). */
function ownerUids(object: JsonObject): string[] {
  const refs = metaOfStored(object).ownerReferences;
  if (!Array.isArray(refs) || !refs.length) return [];
  const uids: string[] = [];
  for (const ref of refs) {
    if (ref !== null && typeof ref === "object" && !Array.isArray(ref)) {
      uids.push(String((ref as JsonObject).uid));
    }
  }
  return uids;
}

/**
 * Namespaces in the order of their objects' `namespace/name` keys, as etcd orders them:
 * a namespace's objects are contiguous in that order (names hold no `/`).
 */
function byKeyPrefix(a: string, b: string): number {
  const x = `${a}/`;
  const y = `${b}/`;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** All objects, the resourceVersion counter and the history. */
export class Store {
  readonly #buckets = new Map<string, Bucket>();
  readonly #listeners = new Set<ChangeListener>();
  /** Every object by its uid. */
  readonly #byUid = new Map<string, Entry>();
  /** The objects whose owner references name a uid, by that uid. */
  readonly #dependents = new Map<string, Set<Entry>>();
  /** The uids that owner references name but no object has. */
  readonly #dangling = new Set<string>();
  /** The objects with a `deletionTimestamp`. */
  readonly #terminating = new Set<Entry>();
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
    return this.#buckets.get(typeKey)?.namespaces.get(namespace)?.get(name)?.object;
  }

  /** The objects of a type (in one namespace, if given), sorted by namespace and name. */
  list(typeKey: string, namespace?: string): JsonObject[] {
    const bucket = this.#buckets.get(typeKey);
    if (!bucket) return [];
    if (namespace !== undefined) {
      const names = bucket.namespaces.get(namespace);
      return names ? sortedObjects(names) : [];
    }
    const out: JsonObject[] = [];
    for (const ns of [...bucket.namespaces.keys()].sort(byKeyPrefix)) {
      for (const object of sortedObjects(bucket.namespaces.get(ns)!)) out.push(object);
    }
    return out;
  }

  /**
   * The objects of a type with this name: the one in the namespace if given, else those
   * of every namespace (sorted by namespace).
   */
  named(typeKey: string, namespace: string | undefined, name: string): JsonObject[] {
    const bucket = this.#buckets.get(typeKey);
    if (!bucket) return [];
    if (namespace !== undefined) {
      const object = bucket.namespaces.get(namespace)?.get(name)?.object;
      return object ? [object] : [];
    }
    const out: JsonObject[] = [];
    for (const ns of [...bucket.namespaces.keys()].sort(byKeyPrefix)) {
      const object = bucket.namespaces.get(ns)!.get(name)?.object;
      if (object) out.push(object);
    }
    return out;
  }

  /** How many objects of the type exist (in the namespace, if given). */
  count(typeKey: string, namespace?: string): number {
    const bucket = this.#buckets.get(typeKey);
    if (!bucket) return 0;
    if (namespace === undefined) return bucket.size;
    return bucket.namespaces.get(namespace)?.size ?? 0;
  }

  /** The type keys that hold objects, in the order their first objects came. */
  typeKeys(): string[] {
    return [...this.#buckets.keys()].filter((k) => this.#buckets.get(k)!.size > 0);
  }

  /** The object with this uid, if any. */
  byUid(uid: string): Stored | undefined {
    return this.#byUid.get(uid);
  }

  /** The objects whose owner references name this uid (in no particular order). */
  dependents(uid: string): Stored[] {
    const set = this.#dependents.get(uid);
    return set ? [...set] : [];
  }

  /** The uids that owner references name but no object has (in no particular order). */
  danglingOwners(): string[] {
    return [...this.#dangling];
  }

  /** The objects with a `deletionTimestamp` (in no particular order). */
  terminating(): Stored[] {
    return [...this.#terminating];
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
    const old = this.#set(typeKey, object);
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
    const bucket = this.#buckets.get(typeKey);
    const namespace = namespaceOf(last);
    const names = bucket?.namespaces.get(namespace);
    const entry = names?.get(nameOf(last));
    if (!entry) return undefined;
    names!.delete(nameOf(last));
    if (!names!.size) bucket!.namespaces.delete(namespace);
    bucket!.size--;
    this.#unindex(entry);
    return this.#record({ rv: ++this.#rv, type: "DELETED", typeKey, namespace, object: last });
  }

  /** Forget every object of a type without events (its type is gone). */
  drop(typeKey: string): void {
    const bucket = this.#buckets.get(typeKey);
    if (!bucket) return;
    this.#buckets.delete(typeKey);
    for (const names of bucket.namespaces.values()) {
      for (const entry of names.values()) this.#unindex(entry);
    }
  }

  /** Load an object as it was saved, without events or a new resourceVersion. */
  restore(typeKey: string, object: JsonObject): void {
    this.#set(typeKey, object);
  }

  /** Put the object in its slot and keep the indexes; returns the previous version. */
  #set(typeKey: string, object: JsonObject): JsonObject | undefined {
    let bucket = this.#buckets.get(typeKey);
    if (!bucket) this.#buckets.set(typeKey, bucket = { size: 0, namespaces: new Map() });
    const namespace = namespaceOf(object);
    let names = bucket.namespaces.get(namespace);
    if (!names) bucket.namespaces.set(namespace, names = new Map());
    const name = nameOf(object);
    const entry = names.get(name);
    if (!entry) {
      const added: Entry = { typeKey, object };
      names.set(name, added);
      bucket.size++;
      this.#index(added);
      return undefined;
    }
    const old = entry.object;
    entry.object = object;
    this.#reindex(entry, old);
    return old;
  }

  #index(entry: Entry): void {
    this.#indexUid(entry, uidOf(entry.object));
    for (const owner of ownerUids(entry.object)) this.#addDependent(owner, entry);
    if (metaOfStored(entry.object).deletionTimestamp) this.#terminating.add(entry);
  }

  #unindex(entry: Entry): void {
    // The references go first: an object that names itself leaves no dangling uid.
    for (const owner of ownerUids(entry.object)) this.#removeDependent(owner, entry);
    this.#unindexUid(entry, uidOf(entry.object));
    this.#terminating.delete(entry);
  }

  /** The slot's object changed from `old` to `entry.object`. */
  #reindex(entry: Entry, old: JsonObject): void {
    const before = metaOfStored(old);
    const after = metaOfStored(entry.object);
    if (before.ownerReferences !== after.ownerReferences) {
      const oldOwners = ownerUids(old);
      const newOwners = ownerUids(entry.object);
      if (oldOwners.length || newOwners.length) {
        for (const owner of oldOwners) {
          if (!newOwners.includes(owner)) this.#removeDependent(owner, entry);
        }
        for (const owner of newOwners) this.#addDependent(owner, entry);
      }
    }
    if (before.uid !== after.uid) {
      this.#unindexUid(entry, String(before.uid));
      this.#indexUid(entry, String(after.uid));
    }
    if (after.deletionTimestamp) this.#terminating.add(entry);
    else this.#terminating.delete(entry);
  }

  #indexUid(entry: Entry, uid: string): void {
    this.#byUid.set(uid, entry);
    this.#dangling.delete(uid);
  }

  #unindexUid(entry: Entry, uid: string): void {
    if (this.#byUid.get(uid) !== entry) return;
    this.#byUid.delete(uid);
    if (this.#dependents.has(uid)) this.#dangling.add(uid);
  }

  #addDependent(owner: string, entry: Entry): void {
    let set = this.#dependents.get(owner);
    if (!set) this.#dependents.set(owner, set = new Set());
    set.add(entry);
    if (!this.#byUid.has(owner)) this.#dangling.add(owner);
  }

  #removeDependent(owner: string, entry: Entry): void {
    const set = this.#dependents.get(owner);
    if (!set?.delete(entry) || set.size) return;
    this.#dependents.delete(owner);
    this.#dangling.delete(owner);
  }

  #record(change: Change): Change {
    this.history.push(change);
    for (const listener of this.#listeners) listener(change);
    return change;
  }
}

/** The objects of one namespace, sorted by name. */
function sortedObjects(names: Map<string, Entry>): JsonObject[] {
  const keys = [...names.keys()].sort();
  return keys.map((k) => names.get(k)!.object);
}
