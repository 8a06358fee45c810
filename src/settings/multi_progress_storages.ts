/**
 * The progress storages over several others: {@link MultiProgressStorage}, which keeps them
 * in sync, and the default {@link SmartProgressStorage} (annotations and status at once);
 * and whether a storage's records stored and purged again leave no trace
 * ({@link storingIsUndoneByPurging}).
 *
 * Apart from the contract (`progress_storages.ts`) and the storages inside the object
 * (`object_progress_storages.ts`), which these combine.
 *
 * @module
 */

import type { RawBody } from "../structs/bodies.ts";
import { isThenable } from "../structs/thenables.ts";
import { checkedStorages } from "./conventions.ts";
import type { StorageOptions } from "./storage_options.ts";
import { AnnotationsProgressStorage, StatusProgressStorage } from "./object_progress_storages.ts";
import {
  callEach,
  firstFound,
  type MaybePromise,
  type ProgressFetchArgs,
  type ProgressPurgeArgs,
  type ProgressRecord,
  ProgressStorage,
  type ProgressStoreArgs,
  type ProgressTouchArgs,
} from "./progress_storages.ts";

/**
 * Several storages kept in sync: all are written and purged; the first one holding a
 * record wins on reading. Use it to move from one storage to another without losing state.
 *
 * @example Move from the status to annotations: read both, write both for a while
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.persistence.progressStorage = new kopf.MultiProgressStorage([
 *     new kopf.AnnotationsProgressStorage({ prefix: "example.com" }),
 *     new kopf.StatusProgressStorage({ name: "example" }),
 *   ]);
 * });
 * ```
 */
export class MultiProgressStorage extends ProgressStorage {
  /** The storages, in the order of precedence for reading. */
  readonly storages: readonly ProgressStorage[];

  /** A storage over the given ones (at least one). */
  constructor(storages: readonly ProgressStorage[]) {
    super();
    this.storages = checkedStorages(storages, ProgressStorage, "MultiProgressStorage", "progress");
  }

  /** Whether every one of its storages reads the status alone. */
  override get readsStatusOnly(): boolean {
    return this.storages.every((storage) => storage.readsStatusOnly);
  }

  /**
   * The first storage's record; without one, the first record found in the others -- but
   * not a final one (a success or a failure): the storages are written in turn (the status
   * subresource before the object), so a final record that only a later storage holds is a
   * write cut short, whose handler's other changes may be lost: it runs again. (A record
   * of an older operator that wrote only there runs its handler once more, as at least once
   * allows.)
   */
  override fetch(args: ProgressFetchArgs): ProgressRecord | null | Promise<ProgressRecord | null> {
    // Once per handler and cycle: the usual case (a record in the first storage, fetched
    // at once) allocates nothing.
    const first = this.storages[0].fetch(args);
    if (isThenable(first)) return first.then((record) => record ?? this.#fallback(args));
    return first ?? this.#fallback(args);
  }

  /** An unfinished record of the storages after the first; see {@link fetch}. */
  #fallback(args: ProgressFetchArgs): ProgressRecord | null | Promise<ProgressRecord | null> {
    return unfinished(
      firstFound<ProgressStorage, ProgressFetchArgs, ProgressRecord>(
        this.storages,
        "fetch",
        args,
        1,
      ),
    );
  }

  /** Store into every storage. */
  override store(args: ProgressStoreArgs): void | Promise<void> {
    return callEach(this.storages, "store", args);
  }

  /** Purge from every storage. */
  override purge(args: ProgressPurgeArgs): void | Promise<void> {
    return callEach(this.storages, "purge", args);
  }

  /** Touch every storage. */
  override touch(args: ProgressTouchArgs): void {
    const storages = this.storages;
    for (let i = 0; i < storages.length; i++) storages[i].touch(args);
  }

  /** Clear the fields of every storage. */
  override clear(essence: RawBody): RawBody {
    const storages = this.storages;
    let result = essence;
    for (let i = 0; i < storages.length; i++) result = storages[i].clear(result);
    return result;
  }

  /** Flush every storage. */
  override flush(): void | Promise<void> {
    return callEach(this.storages, "flush", undefined);
  }
}

/** The record, unless it is final (a success or a failure); see {@link MultiProgressStorage.fetch}. */
function unfinished(
  found: MaybePromise<ProgressRecord | null>,
): ProgressRecord | null | Promise<ProgressRecord | null> {
  const judge = (record: ProgressRecord | null) =>
    record?.success === true || record?.failure === true ? null : record ?? null;
  return isThenable(found) ? found.then(judge) : judge(found);
}

/**
 * The default: annotations (read first) and `status.kopf.progress` (the older place),
 * both written and purged -- what Python Kopf reads, whichever version it is.
 *
 * @example The default storage, under the operator's own names
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.persistence.progressStorage = new kopf.SmartProgressStorage({
 *     prefix: "example.com",
 *     name: "example",
 *   });
 * });
 * ```
 */
export class SmartProgressStorage extends MultiProgressStorage {
  /** Both storages, configured from one set of options. */
  constructor(options: Omit<StorageOptions, "key"> = {}) {
    super([new AnnotationsProgressStorage(options), new StatusProgressStorage(options)]);
  }
}

/**
 * Whether records stored into a patch and purged from it again before it is applied leave
 * the patch as the purge alone would: so for the built-in storages (exactly those, not
 * subclasses, which may keep records elsewhere), which write nothing but the records --
 * except the prefix marker of an annotations prefix outside `kopf.`, hence not those. A
 * cycle that finishes its cause skips storing what it is about to purge.
 */
export function storingIsUndoneByPurging(storage: ProgressStorage): boolean {
  const kind = storage.constructor;
  if (kind === StatusProgressStorage) return true;
  if (kind === AnnotationsProgressStorage) {
    return (storage as AnnotationsProgressStorage).prefix.startsWith("kopf.");
  }
  if (kind === SmartProgressStorage || kind === MultiProgressStorage) {
    return (storage as MultiProgressStorage).storages.every(storingIsUndoneByPurging);
  }
  return false;
}
