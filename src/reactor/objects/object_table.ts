/**
 * The object table: the one place where the reactor keeps what it knows of each object, by
 * resource and object key ({@link ObjectEntry}). The watches write into it what they are told
 * (and read back which objects they know, to find the deletions missed in a gap); the
 * queueing finds an object's worker in it; the pipeline recalls an object's memory from it
 * and forgets it when the object is gone. A record lives while its watch knows the object,
 * the processing remembers it or the queueing has work for it, and no longer.
 *
 * @module
 */

import type { RawBody } from "../../structs/bodies.ts";
import { objectKey } from "../../structs/identities.ts";
import type { Resource } from "../../structs/resources.ts";
import type { ObjectMemories } from "../../handling/memories.ts";
import { ObjectEntry } from "./object_entries.ts";

/** The records of one resource in one namespace (or of a cluster-scoped resource). */
interface Bucket {
  /** The namespace's name: one copy, shared by the bucket's records. */
  readonly namespace: string | undefined;
  /** The records by object key. */
  readonly entries: Map<string, ObjectEntry>;
}

/** The records of all objects of one operator (or of one of its watchings); see the module docs. */
export class ObjectTable implements ObjectMemories {
  /**
   * By resource key, then by namespace (`""` for none), then by object key: no key strings
   * are made per object, and a watch of one namespace goes through its own records only.
   */
  readonly #buckets = new Map<string, Map<string, Bucket>>();
  /** How many records the processing remembers, by resource key. */
  readonly #remembered = new Map<string, { readonly resource: Resource; count: number }>();
  readonly #memo: unknown;

  /** A table whose records' memos are copies of the operator's `memo`. */
  constructor(memo: unknown) {
    this.#memo = memo;
  }

  /** How many objects the processing remembers. */
  get size(): number {
    let size = 0;
    for (const { count } of this.#remembered.values()) size += count;
    return size;
  }

  /** How many objects the processing remembers, by resource. */
  sizes(): Map<Resource, number> {
    const sizes = new Map<Resource, number>();
    for (const { resource, count } of this.#remembered.values()) sizes.set(resource, count);
    return sizes;
  }

  /** The record of an object, if there is one. */
  peek(resource: Resource, body: RawBody): ObjectEntry | undefined {
    return this.get(resource, body.metadata?.namespace, objectKey(body));
  }

  /** The record of an object by its namespace and key, if there is one. */
  get(resource: Resource, namespace: string | undefined, key: string): ObjectEntry | undefined {
    return this.#buckets.get(resource.key)?.get(namespace ?? "")?.entries.get(key);
  }

  /** The record of an object, made if there is none. */
  entry(resource: Resource, body: RawBody): ObjectEntry {
    const meta = body.metadata;
    let namespaces = this.#buckets.get(resource.key);
    if (namespaces === undefined) this.#buckets.set(resource.key, namespaces = new Map());
    const namespace = meta?.namespace;
    let bucket = namespaces.get(namespace ?? "");
    if (bucket === undefined) {
      namespaces.set(namespace ?? "", bucket = { namespace, entries: new Map() });
    }
    const key = objectKey(body);
    let entry = bucket.entries.get(key);
    if (entry === undefined) {
      entry = new ObjectEntry(resource, key, meta?.name, bucket.namespace, this.#memo);
      bucket.entries.set(key, entry);
    }
    return entry;
  }

  /**
   * The object's memory for its processing, made on first sight (first seen by a listing or
   * not, as `noticedByListing` says).
   */
  recall(resource: Resource, body: RawBody, options: { noticedByListing: boolean }): ObjectEntry {
    const entry = this.entry(resource, body);
    if (!entry.remembered) {
      entry.remember(options.noticedByListing);
      this.#count(resource, +1);
    }
    return entry;
  }

  /**
   * The processing forgets the object (it is gone, or out of sight): its record leaves the
   * table, though a processing that holds it goes on with it. If its watch still knows the
   * object (it came back meanwhile), a new record, with no memory, knows what the watch does.
   */
  forget(resource: Resource, body: RawBody): void {
    const entry = this.peek(resource, body);
    if (entry === undefined) return;
    const { watched, seen, last, work } = entry;
    if (entry.remembered) this.#count(resource, -1);
    entry.unwatch();
    entry.work = undefined;
    this.#drop(entry);
    if (!watched && work === undefined) return;
    const fresh = this.entry(resource, body);
    if (watched) {
      fresh.tell(seen);
      fresh.last = last;
    }
    if (work !== undefined) {
      // The object's worker goes on: its next states are the new record's.
      fresh.work = work;
      work.entry = fresh;
    }
  }

  /** A record whose work is over: it goes if nothing else keeps it. */
  release(entry: ObjectEntry): void {
    this.#release(entry);
  }

  /** The object's watch knows it no more (deleted); the record, if there was one. */
  unwatch(resource: Resource, namespace: string | undefined, key: string): ObjectEntry | undefined {
    const entry = this.get(resource, namespace, key);
    if (entry === undefined) return undefined;
    entry.unwatch();
    this.#release(entry);
    return entry;
  }

  /**
   * The objects a watch knows: of the resource, in the namespace (all namespaces if none).
   * A snapshot: the table may change while it is read.
   */
  watched(resource: Resource, namespace: string | undefined): ObjectEntry[] {
    const namespaces = this.#buckets.get(resource.key);
    if (namespaces === undefined) return [];
    const buckets = namespace === undefined ? namespaces.values() : [namespaces.get(namespace)];
    const found: ObjectEntry[] = [];
    for (const bucket of buckets) {
      for (const entry of bucket?.entries.values() ?? []) if (entry.watched) found.push(entry);
    }
    return found;
  }

  /**
   * A watch stops: it knows its objects no more, and its successor is told of them all
   * again. The records that the processing does not remember go.
   */
  unwatchAll(resource: Resource, namespace: string | undefined): void {
    for (const entry of this.watched(resource, namespace)) {
      entry.unwatch();
      this.#release(entry);
    }
  }

  /** Drop a record that neither a watch knows nor the processing remembers. */
  #release(entry: ObjectEntry): void {
    if (entry.watched || entry.remembered) return;
    if (entry.work === undefined && entry.children === undefined) this.#drop(entry);
  }

  /** Take a record out of the table. */
  #drop(entry: ObjectEntry): void {
    const namespaces = this.#buckets.get(entry.resource.key);
    const bucket = namespaces?.get(entry.namespace ?? "");
    if (namespaces === undefined || bucket?.entries.get(entry.key) !== entry) return;
    bucket.entries.delete(entry.key);
    if (bucket.entries.size > 0) return;
    namespaces.delete(entry.namespace ?? "");
    if (namespaces.size === 0) this.#buckets.delete(entry.resource.key);
  }

  /** Count a record the processing remembers (+1) or no longer does (-1). */
  #count(resource: Resource, delta: number): void {
    const counted = this.#remembered.get(resource.key);
    if (counted === undefined) {
      this.#remembered.set(resource.key, { resource, count: delta });
    } else if ((counted.count += delta) === 0) {
      this.#remembered.delete(resource.key);
    }
  }
}
