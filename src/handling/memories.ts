/**
 * What the operator remembers about each object during its lifetime (never persisted):
 * the object's memo, whether it was first seen by a listing, whether it has been fully
 * handled once (after which resume handlers do not run again), and the newest state
 * known from our own patches.
 *
 * @module
 */

import type { RawBody } from "../structs/bodies.ts";
import { copyMemo } from "../structs/memos.ts";
import { objectKey } from "../structs/identities.ts";
import type { Resource } from "../structs/resources.ts";

/** The in-memory state of one object. */
export interface ObjectMemory {
  /** The object's memo: a copy of the operator's memo, made when first seen. */
  readonly memo: unknown;
  /** Whether the object was first seen in a listing (at start or after a lost watch). */
  readonly noticedByListing: boolean;
  /** Whether a cycle has finished all its handlers (or had none) since first seen. */
  fullyHandledOnce: boolean;
  /** Whether optional delete handlers have run for an object without our finalizer. */
  deletionHandled: boolean;
  /** The object as returned by our latest patch, if newer than what the watch said. */
  patched: RawBody | undefined;
}

/** The key of an object among all resources: the resource's key and the object's. */
export function memoryKey(resource: Resource, body: RawBody): string {
  return `${resource.key}\u0000${objectKey(body)}`;
}

/** The memories of all objects of one operator. */
export class ObjectMemories {
  readonly #memories = new Map<string, ObjectMemory>();
  readonly #memo: unknown;

  /** Memories whose memos are copies of the operator's `memo`. */
  constructor(memo: unknown) {
    this.#memo = memo;
  }

  /** How many objects are remembered. */
  get size(): number {
    return this.#memories.size;
  }

  /** The memory of an object, made on first sight. */
  recall(resource: Resource, body: RawBody, options: { noticedByListing: boolean }): ObjectMemory {
    const key = memoryKey(resource, body);
    let memory = this.#memories.get(key);
    if (memory === undefined) {
      memory = {
        memo: copyMemo(this.#memo),
        noticedByListing: options.noticedByListing,
        fullyHandledOnce: false,
        deletionHandled: false,
        patched: undefined,
      };
      this.#memories.set(key, memory);
    }
    return memory;
  }

  /** Forget an object (it is gone from the cluster). */
  forget(resource: Resource, body: RawBody): void {
    this.#memories.delete(memoryKey(resource, body));
  }
}
