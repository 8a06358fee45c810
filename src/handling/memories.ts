/**
 * What the operator remembers about each object during its lifetime (never persisted):
 * the object's memo, whether it was first seen by a listing, whether it has been fully
 * handled once (after which resume handlers do not run again), and the version of our own
 * latest patch.
 *
 * One memory is kept per object for as long as the object exists, so it is kept small:
 * three fields (the flags in one number), in a map per resource keyed by the object's key
 * (its uid, a string the body already holds), and the memo copied only when first read.
 *
 * @module
 */

import type { RawBody } from "../structs/bodies.ts";
import { copyMemo } from "../structs/memos.ts";
import { objectKey } from "../structs/identities.ts";
import type { Resource } from "../structs/resources.ts";
import type { Patch } from "../structs/patches.ts";
import type { FinalizerChange } from "./application.ts";

const NOTICED_BY_LISTING = 1;
const FULLY_HANDLED_ONCE = 2;
const DELETION_HANDLED = 4;
const MEMO_COPIED = 8;

/** An outcome that could not be stored yet; see {@link ObjectMemory.unstored}. */
export interface UnstoredOutcome {
  /** The changes to store: results, progress, diff-base. */
  readonly patch: Patch;
  /** The finalizer change that went with them, if any. */
  readonly finalizerChange?: FinalizerChange;
  /** What to store instead if the finalizer change is refused as a conflict. */
  readonly fallback?: Patch;
  /** The ids of the handlers whose outcome it holds, for messages. */
  readonly handlers: readonly string[];
  /** How many times storing it has failed. */
  failures: number;
}

/**
 * The essence an object had when the cause being handled began (see
 * {@link ObjectMemory.causeBase}).
 */
export interface CauseBase {
  /** The cause's reason: a base of another cause is no base of this one. */
  readonly reason: string;
  /** The essence the cause began with. */
  readonly essence: RawBody;
}

/**
 * The bases of causes in progress over several cycles: few objects at a time, so kept aside
 * rather than in a field that every object's memory would carry.
 */
const causeBases = new WeakMap<ObjectMemory, CauseBase>();

/** The in-memory state of one object. */
export class ObjectMemory {
  /** The operator's memo until the object's own copy is made, then that copy. */
  #memo: unknown;
  #flags: number;
  /**
   * The newest `resourceVersion` of the object known here: of the latest state processed
   * (from the watch, or read afresh) or of our latest patch. A state older than it — the
   * echo of our patch is late, or the watch, resumed after a break, delivers a state that
   * a fresh read had already shown — is never processed as it is: the object is read
   * afresh instead, so that no handler runs again on a state that has moved on. Only the
   * version is kept, not the body.
   */
  newestVersion: string | undefined = undefined;

  /**
   * The outcome of handlers that could not be stored: refused by the API server (a 4xx
   * other than 404 and 409, or a size it would refuse) or failed after the client's own
   * retries (5xx, throttling, a lost connection). Kept to be stored again, so that
   * handlers that have succeeded are not run again meanwhile. Set only while that lasts.
   */
  unstored: UnstoredOutcome | undefined = undefined;

  /** A memory of an object just seen; `memo` is the operator's memo, not yet copied. */
  constructor(memo: unknown, noticedByListing: boolean) {
    this.#memo = memo;
    this.#flags = noticedByListing ? NOTICED_BY_LISTING : 0;
  }

  /**
   * The object's memo: its own copy of the operator's memo, made when a handler first needs
   * it (most objects' handlers never use it, and a copy per object would stay for its life).
   */
  get memo(): unknown {
    if ((this.#flags & MEMO_COPIED) === 0) {
      this.#memo = copyMemo(this.#memo);
      this.#flags |= MEMO_COPIED;
    }
    return this.#memo;
  }

  /** Whether the object was first seen in a listing (at start or after a lost watch). */
  get noticedByListing(): boolean {
    return (this.#flags & NOTICED_BY_LISTING) !== 0;
  }

  /** Whether a cycle has finished all its handlers (or had none) since first seen. */
  get fullyHandledOnce(): boolean {
    return (this.#flags & FULLY_HANDLED_ONCE) !== 0;
  }

  set fullyHandledOnce(value: boolean) {
    this.#set(FULLY_HANDLED_ONCE, value);
  }

  /** Whether optional delete handlers have run for an object without our finalizer. */
  get deletionHandled(): boolean {
    return (this.#flags & DELETION_HANDLED) !== 0;
  }

  set deletionHandled(value: boolean) {
    this.#set(DELETION_HANDLED, value);
  }

  /**
   * The essence the object had when the cause in progress began, while its handlers run
   * over several cycles: stored as the diff-base when the cause completes, so that a change
   * made between its cycles is handled afterwards as an update rather than lost. Never
   * persisted: after a restart in the middle of a cause, its current essence serves.
   */
  get causeBase(): CauseBase | undefined {
    return causeBases.get(this);
  }

  set causeBase(base: CauseBase | undefined) {
    if (base === undefined) causeBases.delete(this);
    else causeBases.set(this, base);
  }

  #set(flag: number, value: boolean): void {
    this.#flags = value ? this.#flags | flag : this.#flags & ~flag;
  }
}

/** The memories of all objects of one operator. */
export class ObjectMemories {
  /** By resource key, then by object key: no key strings are made per object. */
  readonly #memories = new Map<string, Map<string, ObjectMemory>>();
  /** The resource of each key, to tell the counts by resource. */
  readonly #resources = new Map<string, Resource>();
  readonly #memo: unknown;

  /** Memories whose memos are copies of the operator's `memo`. */
  constructor(memo: unknown) {
    this.#memo = memo;
  }

  /** How many objects are remembered. */
  get size(): number {
    let size = 0;
    for (const objects of this.#memories.values()) size += objects.size;
    return size;
  }

  /** How many objects are remembered, by resource. */
  sizes(): Map<Resource, number> {
    const sizes = new Map<Resource, number>();
    for (const [key, objects] of this.#memories) sizes.set(this.#resources.get(key)!, objects.size);
    return sizes;
  }

  /** The memory of an object, made on first sight. */
  recall(resource: Resource, body: RawBody, options: { noticedByListing: boolean }): ObjectMemory {
    const key = resource.key;
    let objects = this.#memories.get(key);
    if (objects === undefined) {
      this.#memories.set(key, objects = new Map());
      this.#resources.set(key, resource);
    }
    const object = objectKey(body);
    let memory = objects.get(object);
    if (memory === undefined) {
      memory = new ObjectMemory(this.#memo, options.noticedByListing);
      objects.set(object, memory);
    }
    return memory;
  }

  /** The memory of an object if it has been seen, without making one. */
  peek(resource: Resource, body: RawBody): ObjectMemory | undefined {
    return this.#memories.get(resource.key)?.get(objectKey(body));
  }

  /** Forget an object (it is gone from the cluster). */
  forget(resource: Resource, body: RawBody): void {
    const key = resource.key;
    const objects = this.#memories.get(key);
    if (objects === undefined) return;
    objects.delete(objectKey(body));
    if (objects.size === 0) {
      this.#memories.delete(key);
      this.#resources.delete(key);
    }
  }
}
