/**
 * What the operator knows of one object, in one record: which object it is, the versions
 * of it that its watch told of and that the operator knows to be the newest, its last full
 * state where deleted objects' bodies matter, and its memory (memo, flags, an outcome not
 * stored yet). The versions are compared here and nowhere else.
 *
 * A record is kept for every watched object, for as long as its watch knows it or the
 * processing remembers it, so it is kept small: a dozen fields, the flags in one number, the
 * memo copied only when first read, and the base of a cause in progress kept aside.
 *
 * @module
 */

import type { RawBody } from "../../structs/bodies.ts";
import { isNewerVersion } from "../../structs/identities.ts";
import { copyMemo } from "../../structs/memos.ts";
import type { Resource } from "../../structs/resources.ts";
import type { CauseBase, ObjectMemory, UnstoredOutcome } from "../../handling/memories.ts";
import type { HandlerState } from "../../handling/handler_progress.ts";
import type { ChildChange } from "../../engines/child_changes.ts";

/** The object's watch knows it (it was listed or told of, and not deleted since). */
const WATCHED = 1;
/** The processing remembers it: its memory was made and not forgotten. */
const REMEMBERED = 2;
const NOTICED_BY_LISTING = 4;
const FULLY_HANDLED_ONCE = 8;
const DELETION_HANDLED = 16;
const MEMO_COPIED = 32;

/**
 * The bases of causes in progress over several cycles: few objects at a time, so kept aside
 * rather than in a field that every object's record would carry.
 */
const causeBases = new WeakMap<ObjectEntry, CauseBase>();

/**
 * What the queueing keeps of an object while it has work for it (its worker): opaque here,
 * but for the record it belongs to, which changes when the record is replaced.
 */
export interface EntryWork {
  /** The record whose work this is. */
  entry: ObjectEntry;
}

/**
 * What waits for an object as the parent of children (`kopf.on.child`): the latest change
 * of each child by its uid, and the child handlers' retry states by handler and child.
 */
export interface ParentChildren {
  /** The latest change of each child not handled yet, by child uid. */
  readonly pending: Map<string, ChildChange>;
  /** The retry states of child handlers, by handler id and child uid. */
  readonly states: Map<string, HandlerState>;
}

/** What the operator knows of one object; see the module docs. */
export class ObjectEntry implements ObjectMemory {
  /** The object's resource. */
  readonly resource: Resource;
  /** The object's key within its resource: its uid, or `namespace/name` without one. */
  readonly key: string;
  /** The object's name. */
  readonly name: string | undefined;
  /** The object's namespace (one string shared by all records of the namespace). */
  readonly namespace: string | undefined;
  /**
   * The object's last full state as its watch told of it (without its managed fields), where
   * its watch keeps them: a deletion missed while the watch was broken is fed with it.
   */
  last: RawBody | undefined = undefined;
  /**
   * The outcome of handlers that could not be stored: refused by the API server (a 4xx
   * other than 404 and 409, or a size it would refuse) or failed after the client's own
   * retries (5xx, throttling, a lost connection). Kept to be stored again, so that
   * handlers that have succeeded are not run again meanwhile. Set only while that lasts.
   */
  unstored: UnstoredOutcome | undefined = undefined;
  /** The queueing's work for the object, while it has some. */
  work: EntryWork | undefined = undefined;
  /** Its children's changes waiting for it (`kopf.on.child`), while some do. */
  children: ParentChildren | undefined = undefined;
  /** The version its watch told of last. */
  #seen: string | undefined = undefined;
  /** The newest version known: processed, read afresh, or produced by our own write. */
  #newest: string | undefined = undefined;
  /** The operator's memo until the object's own copy is made, then that copy. */
  #memo: unknown;
  #flags = 0;

  /** A record of an object, knowing nothing of it yet; `memo` is the operator's. */
  constructor(
    resource: Resource,
    key: string,
    name: string | undefined,
    namespace: string | undefined,
    memo: unknown,
  ) {
    this.resource = resource;
    this.key = key;
    this.name = name;
    this.namespace = namespace;
    this.#memo = memo;
  }

  /**
   * Its watch tells of this version of the object: false if it told of this very version
   * (or a newer one) already -- a re-listing, or a live watch beside a listing -- and then
   * nothing changes; else the version is noted and true.
   */
  tell(version: string | undefined): boolean {
    if (this.told(version)) return false;
    this.#seen = version;
    this.#flags |= WATCHED;
    return true;
  }

  /** Whether its watch told of this very version of the object, or a newer one, already. */
  told(version: string | undefined): boolean {
    const seen = this.#seen;
    if (!this.watched || version === undefined || seen === undefined) return false;
    return version === seen || isNewerVersion(seen, version);
  }

  /** The version its watch told of last, while it knows the object. */
  get seen(): string | undefined {
    return this.#seen;
  }

  /** Whether its watch knows the object. */
  get watched(): boolean {
    return (this.#flags & WATCHED) !== 0;
  }

  /** Its watch knows the object no more (deleted, or the watch stopped). */
  unwatch(): void {
    this.#flags &= ~WATCHED;
    this.#seen = undefined;
    this.last = undefined;
  }

  /**
   * Whether a state of this version is older than the newest known: the echo of our own
   * write is late, or a resumed watch delivers a state that a fresh read had already shown.
   */
  isStale(version: string | undefined): boolean {
    const newest = this.#newest;
    return newest !== undefined && isNewerVersion(newest, version);
  }

  /** Note a version of the object being processed, read afresh or written: the newest? */
  know(version: string | undefined): void {
    const newest = this.#newest;
    if (version !== undefined && (newest === undefined || isNewerVersion(version, newest))) {
      this.#newest = version;
    }
  }

  /** The newest version known of the object. */
  get newest(): string | undefined {
    return this.#newest;
  }

  /** Our own write produced this version: the newest, unless a newer one is known. */
  wrote(version: string | undefined): void {
    if (version !== undefined && !isNewerVersion(this.#newest, version)) this.#newest = version;
  }

  /** Whether the processing remembers the object. */
  get remembered(): boolean {
    return (this.#flags & REMEMBERED) !== 0;
  }

  /**
   * The processing remembers the object from now on, if it did not: first seen by a listing
   * or not (resume handlers are for objects that existed before).
   */
  remember(noticedByListing: boolean): void {
    if ((this.#flags & REMEMBERED) !== 0) return;
    this.#flags |= REMEMBERED | (noticedByListing ? NOTICED_BY_LISTING : 0);
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

  /** See {@link ObjectMemory.causeBase}. */
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
