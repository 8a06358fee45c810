/**
 * Progress storages: where each handler's state (started, retries, success, ...) is kept
 * between handling cycles -- in annotations, in the status, in both, or anywhere a custom
 * storage puts it. Records are per handler and independent, so several operators with
 * different handler ids can share one object. Formats match Python Kopf byte for byte.
 *
 * This module holds the contract: the record, the arguments, the base class every storage
 * extends, and how several storages are called in turn (`callEach`, `firstFound`, shared
 * with the diff-base storages). The built-in storages are in `object_progress_storages.ts`
 * (annotations, status) and `multi_progress_storages.ts` (several at once, the default).
 *
 * @module
 */

import type { RawBody } from "../structs/bodies.ts";
import type { Patch } from "../structs/patches.ts";
import { isThenable } from "../structs/thenables.ts";
import { deepCopy } from "./field_paths.ts";

/** A value, or a promise of it: storages may be synchronous or asynchronous. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * The persisted state of one handler. Times are ISO-8601 UTC strings with microseconds
 * (`2020-12-31T23:59:59.123456+00:00`); absent or `null` fields are unknown.
 */
export type ProgressRecord = {
  /** When the handler was first attempted. */
  started?: string | null;
  /** When the handler succeeded or failed for good. */
  stopped?: string | null;
  /** When the handler should be attempted again. */
  delayed?: string | null;
  /** The reason (create, update, delete, resume) the handler runs for. */
  purpose?: string | null;
  /** How many attempts were made so far. */
  retries?: number | null;
  /** Whether the handler has succeeded for good. */
  success?: boolean | null;
  /** Whether the handler has failed for good. */
  failure?: boolean | null;
  /** The message of the last error, if any. */
  message?: string | null;
  /** The ids of the sub-handlers, at all depths, for purging them together. */
  subrefs?: string[] | null;
};

/** Where storages write their changes: the framework's {@link Patch} or a plain merge-patch object. */
export type StoragePatch = Patch | { [key: string]: unknown };

/** The arguments of {@link ProgressStorage.fetch}. */
export interface ProgressFetchArgs {
  /** The handler id. */
  key: string;
  /** The object as last seen. */
  body: RawBody;
}

/** The arguments of {@link ProgressStorage.store}. */
export interface ProgressStoreArgs extends ProgressFetchArgs {
  /** The record, in Kopf's field order, with `null` for unknown fields. */
  record: ProgressRecord;
  /** The patch to fill. */
  patch: StoragePatch;
}

/** The arguments of {@link ProgressStorage.purge}. */
export interface ProgressPurgeArgs extends ProgressFetchArgs {
  /** The patch to fill. */
  patch: StoragePatch;
}

/** The arguments of {@link ProgressStorage.touch}. */
export interface ProgressTouchArgs {
  /** The object as last seen. */
  body: RawBody;
  /** The patch to fill. */
  patch: StoragePatch;
  /** The touch value; `null` removes the touch mark. */
  value: string | null;
}

/**
 * The base of all progress storages. Subclass it for a custom storage (e.g. a database):
 * implement `fetch`, `store`, `purge` (sync or async) and `touch`; override `clear` if
 * the storage keeps its data inside the object, and `flush` to write batched records.
 *
 * @example Keep the progress in memory only (e.g. for a short-lived operator in tests)
 * ```ts
 * import {
 *   kopf,
 *   type ProgressFetchArgs,
 *   type ProgressPurgeArgs,
 *   type ProgressRecord,
 *   type ProgressStoreArgs,
 * } from "@kopf/kopf";
 *
 * class MemoryProgressStorage extends kopf.ProgressStorage {
 *   readonly #records = new Map<string, ProgressRecord>();
 *   fetch({ key, body }: ProgressFetchArgs): ProgressRecord | null {
 *     return this.#records.get(`${body.metadata?.uid}/${key}`) ?? null;
 *   }
 *   store({ key, body, record }: ProgressStoreArgs): void {
 *     this.#records.set(`${body.metadata?.uid}/${key}`, record);
 *   }
 *   purge({ key, body }: ProgressPurgeArgs): void {
 *     this.#records.delete(`${body.metadata?.uid}/${key}`);
 *   }
 *   touch(): void {}
 * }
 * kopf.on.startup(({ settings }) => {
 *   settings.persistence.progressStorage = new MemoryProgressStorage();
 * });
 * ```
 */
export abstract class ProgressStorage {
  /** The record of one handler, or `null` when there is none. */
  abstract fetch(args: ProgressFetchArgs): ProgressRecord | null | Promise<ProgressRecord | null>;

  /** Put the handler's record into the patch (or elsewhere). */
  abstract store(args: ProgressStoreArgs): void | Promise<void>;

  /** Remove the handler's record (from the patch, or elsewhere). */
  abstract purge(args: ProgressPurgeArgs): void | Promise<void>;

  /**
   * Put (or with `null`, remove) a dummy mark into the patch, only if it changes the object:
   * a change that makes the API server send a new watch event, to wake the operator.
   */
  abstract touch(args: ProgressTouchArgs): void;

  /** The essence without this storage's own fields (a copy; the input is untouched). */
  clear(essence: RawBody): RawBody {
    return deepCopy(essence);
  }

  /** Write whatever was batched in `store`/`purge`; nothing to do for in-object storages. */
  flush(): void | Promise<void> {}

  /**
   * Whether the records are read from the object's status alone: a watch of metadata only
   * does not deliver the status, so such a storage rules those watches out. False unless a
   * storage says so.
   */
  get readsStatusOnly(): boolean {
    return false;
  }
}

type Method<S, R> = {
  [M in keyof S]: S[M] extends (args: never) => MaybePromise<R> ? M : never;
}[keyof S];

/**
 * Call the method of each storage in turn with the same arguments, waiting for those
 * that are asynchronous. Not an async function: when all are sync (the built-in ones),
 * it answers at once, with no promise and no turn, as storages may (`MaybePromise`).
 */
export function callEach<S, A>(
  storages: readonly S[],
  method: Method<S, void>,
  args: A,
): void | Promise<void> {
  for (let i = 0; i < storages.length; i++) {
    const result = (storages[i][method] as (args: A) => MaybePromise<void>).call(
      storages[i],
      args,
    );
    if (isThenable(result)) return callRest(storages, method, args, i + 1, result);
  }
}

async function callRest<S, A>(
  storages: readonly S[],
  method: Method<S, void>,
  args: A,
  from: number,
  pending: Promise<void>,
): Promise<void> {
  await pending;
  for (let i = from; i < storages.length; i++) {
    const result = (storages[i][method] as (args: A) => MaybePromise<void>).call(storages[i], args);
    if (isThenable(result)) await result;
  }
}

/**
 * The first result other than `null`/`undefined` of the method of the storages, in their
 * order (from the `from`th on), or `null`; as {@link callEach}, waiting only for the
 * asynchronous ones.
 */
export function firstFound<S, A, R>(
  storages: readonly S[],
  method: Method<S, R | null>,
  args: A,
  from = 0,
): R | null | Promise<R | null> {
  for (let i = from; i < storages.length; i++) {
    const found = (storages[i][method] as (args: A) => MaybePromise<R | null>).call(
      storages[i],
      args,
    );
    if (isThenable(found)) return findRest(storages, method, args, i + 1, found);
    if (found !== null && found !== undefined) return found;
  }
  return null;
}

async function findRest<S, A, R>(
  storages: readonly S[],
  method: Method<S, R | null>,
  args: A,
  from: number,
  pending: Promise<R | null>,
): Promise<R | null> {
  const first = await pending;
  if (first !== null && first !== undefined) return first;
  for (let i = from; i < storages.length; i++) {
    const fetched = (storages[i][method] as (args: A) => MaybePromise<R | null>).call(
      storages[i],
      args,
    );
    const found = isThenable(fetched) ? await fetched : fetched;
    if (found !== null && found !== undefined) return found;
  }
  return null;
}
