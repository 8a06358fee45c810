/**
 * The bounded history of changes that watches replay from: a ring buffer of the most
 * recent events, oldest first. Older changes are compacted away, and watching from a
 * resourceVersion before the compaction point yields 410 Gone, as with etcd.
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";

/** One change of one object. */
export interface Change {
  /** The resourceVersion the change produced. */
  readonly rv: number;
  readonly type: "ADDED" | "MODIFIED" | "DELETED";
  /** `group/plural` of the object's type. */
  readonly typeKey: string;
  /** The object's namespace, `""` for cluster-scoped objects. */
  readonly namespace: string;
  /** The object after the change (before it, for deletions: the last state). */
  readonly object: JsonObject;
  /** The object before the change, for modifications. */
  readonly old?: JsonObject;
  /** The serialised watch line, cached per apiVersion (shared by all watchers). */
  lines?: Map<string, Uint8Array>;
}

/** A ring of the last `capacity` changes. */
export class History {
  readonly #ring: (Change | undefined)[];
  #start = 0;
  #size = 0;
  /** Changes at or below this resourceVersion are forgotten. */
  #compactedRv = 0;

  constructor(readonly capacity: number) {
    this.#ring = new Array(Math.max(1, capacity));
  }

  /** The resourceVersion up to which history is forgotten. */
  get compactedRv(): number {
    return this.#compactedRv;
  }

  /** Record a change, forgetting the oldest one when full. */
  push(change: Change): void {
    const cap = this.#ring.length;
    if (this.#size === cap) {
      const dropped = this.#ring[this.#start]!;
      this.#compactedRv = dropped.rv;
      this.#ring[this.#start] = change;
      this.#start = (this.#start + 1) % cap;
    } else {
      this.#ring[(this.#start + this.#size) % cap] = change;
      this.#size++;
    }
  }

  /** Forget everything up to and including `rv`. */
  compact(rv: number): void {
    while (this.#size && this.#ring[this.#start]!.rv <= rv) {
      this.#ring[this.#start] = undefined;
      this.#start = (this.#start + 1) % this.#ring.length;
      this.#size--;
    }
    this.#compactedRv = Math.max(this.#compactedRv, rv);
  }

  /**
   * The changes after `rv`, oldest first; `undefined` when some of them are forgotten
   * (the caller answers 410 Gone then).
   */
  since(rv: number): Change[] | undefined {
    if (rv < this.#compactedRv) return undefined;
    const cap = this.#ring.length;
    // Binary search for the first change newer than rv.
    let lo = 0;
    let hi = this.#size;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.#ring[(this.#start + mid) % cap]!.rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    const out: Change[] = [];
    for (let i = lo; i < this.#size; i++) out.push(this.#ring[(this.#start + i) % cap]!);
    return out;
  }
}
