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

/** The records of all objects of one operator (or of one of its watchings); see the module docs. */
export class ObjectTable implements ObjectMemories {
  /** By resource key, then by object key: no key strings are made per object. */
  readonly #entries = new Map<string, Map<string, ObjectEntry>>();
  /** One copy of each namespace name, shared by its records, with how many share it. */
  readonly #namespaces = new Map<string, { readonly name: string; count: number }>();
  readonly #memo: unknown;

  /** A table whose records' memos are copies of the operator's `memo`. */
  constructor(memo: unknown) {
    this.#memo = memo;
  }

  /** How many objects the processing remembers. */
  get size(): number {
    let size = 0;
    for (const objects of this.#entries.values()) {
      for (const entry of objects.values()) if (entry.remembered) size++;
    }
    return size;
  }

  /** How many objects the processing remembers, by resource. */
  sizes(): Map<Resource, number> {
    const sizes = new Map<Resource, number>();
    for (const objects of this.#entries.values()) {
      for (const entry of objects.values()) {
        if (entry.remembered) sizes.set(entry.resource, (sizes.get(entry.resource) ?? 0) + 1);
      }
    }
    return sizes;
  }

  /** The record of an object, if there is one. */
  peek(resource: Resource, body: RawBody): ObjectEntry | undefined {
    return this.#entries.get(resource.key)?.get(objectKey(body));
  }

  /** The record of an object by its key, if there is one. */
  get(resource: Resource, key: string): ObjectEntry | undefined {
    return this.#entries.get(resource.key)?.get(key);
  }

  /** The record of an object, made if there is none. */
  entry(resource: Resource, body: RawBody): ObjectEntry {
    let objects = this.#entries.get(resource.key);
    if (objects === undefined) this.#entries.set(resource.key, objects = new Map());
    const key = objectKey(body);
    let entry = objects.get(key);
    if (entry === undefined) {
      const meta = body.metadata;
      const namespace = this.#share(meta?.namespace);
      entry = new ObjectEntry(resource, key, meta?.name, namespace, this.#memo);
      objects.set(key, entry);
    }
    return entry;
  }

  /**
   * The object's memory for its processing, made on first sight (first seen by a listing or
   * not, as `noticedByListing` says).
   */
  recall(resource: Resource, body: RawBody, options: { noticedByListing: boolean }): ObjectEntry {
    const entry = this.entry(resource, body);
    entry.remember(options.noticedByListing);
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
  unwatch(resource: Resource, key: string): ObjectEntry | undefined {
    const entry = this.get(resource, key);
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
    const found: ObjectEntry[] = [];
    for (const entry of this.#entries.get(resource.key)?.values() ?? []) {
      if (entry.watched && (namespace === undefined || entry.namespace === namespace)) {
        found.push(entry);
      }
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
    const objects = this.#entries.get(entry.resource.key);
    if (objects?.get(entry.key) !== entry) return;
    objects.delete(entry.key);
    if (objects.size === 0) this.#entries.delete(entry.resource.key);
    const namespace = entry.namespace;
    if (namespace === undefined) return;
    const shared = this.#namespaces.get(namespace);
    if (shared !== undefined && --shared.count === 0) this.#namespaces.delete(namespace);
  }

  /** The one copy of a namespace's name that records share. */
  #share(namespace: string | undefined): string | undefined {
    if (namespace === undefined) return undefined;
    const shared = this.#namespaces.get(namespace);
    if (shared === undefined) {
      this.#namespaces.set(namespace, { name: namespace, count: 1 });
      return namespace;
    }
    shared.count++;
    return shared.name;
  }
}
