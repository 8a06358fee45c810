/**
 * Progress storages: where each handler's state (started, retries, success, ...) is kept
 * between handling cycles — in annotations, in the status, in both, or anywhere a custom
 * storage puts it. Records are per handler and independent, so several operators with
 * different handler ids can share one object. Formats match Python Kopf byte for byte.
 *
 * @module
 */

import type { RawBody } from "../structs/bodies.ts";
import type { Patch } from "../structs/patches.ts";
import { isThenable } from "../structs/thenables.ts";
import { toCompactJson } from "./compact_json.ts";
import {
  checkedStorages,
  checkPrefix,
  makeKeys,
  sharedKeys,
  storeMarker,
  withoutEmptyStanzas,
} from "./conventions.ts";
import {
  deepCopy,
  ensureInPatch,
  type FieldSpec,
  formatField,
  isTree,
  parseStoredObject,
  patchContents,
  remove,
  reopenDeleted,
  resolve,
  type Tree,
  without,
} from "./field_paths.ts";

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
  abstract fetch(args: ProgressFetchArgs): MaybePromise<ProgressRecord | null>;

  /** Put the handler's record into the patch (or elsewhere). */
  abstract store(args: ProgressStoreArgs): MaybePromise<void>;

  /** Remove the handler's record (from the patch, or elsewhere). */
  abstract purge(args: ProgressPurgeArgs): MaybePromise<void>;

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
  flush(): MaybePromise<void> {}
}

/** Options of {@link AnnotationsProgressStorage}. */
export interface AnnotationsProgressStorageOptions {
  /** The annotations prefix; `kopf.zalando.org` by default. */
  prefix?: string;
  /** Keep `null` fields in the stored JSON (Kopf's `verbose`); off by default. */
  verbose?: boolean;
  /** The name of the touch annotation; `touch-dummy` by default. */
  touchKey?: string;
  /** Also write and read the V1 keys (see the conventions); on by default, as in Kopf. */
  v1?: boolean;
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
): MaybePromise<void> {
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
): MaybePromise<R | null> {
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

/** The object at `path` (the first `length` keys of it), or `undefined`. */
function treeAt(
  root: unknown,
  path: readonly string[],
  length: number = path.length,
): Tree | undefined {
  let current = root;
  for (let i = 0; i < length; i++) {
    if (!isTree(current)) return undefined;
    current = Object.hasOwn(current, path[i]) ? current[path[i]] : undefined;
  }
  return isTree(current) ? current : undefined;
}

/** Whether the object at `path` holds `key` (as {@link resolve} finds it present). */
function holds(root: unknown, path: readonly string[], key: string): boolean {
  const tree = treeAt(root, path);
  return tree !== undefined && Object.hasOwn(tree, key);
}

/**
 * Delete `key` of the object at `path` via the patch (`null`), or drop it from the patch
 * if only there. The full path is made only when there is something to do.
 */
function purgePath(body: RawBody, patch: StoragePatch, path: readonly string[], key: string): void {
  if (holds(body, path, key)) {
    ensureInPatch(patch, [...path, key], null);
  } else if (holds(patchContents(patch), path, key)) {
    remove(patchContents(patch) as Tree, [...path, key]);
  }
}

const ANNOTATIONS: readonly string[] = ["metadata", "annotations"];

/** Whether the patch already deletes `path` (or `path.key`) or one of its parents (with `null`). */
function deletedByPatch(tree: Readonly<Tree>, path: readonly string[], key?: string): boolean {
  let current: unknown = tree;
  const length = key === undefined ? path.length : path.length + 1;
  for (let i = 0; i < length; i++) {
    const step = i < path.length ? path[i] : key!;
    if (!isTree(current) || !Object.hasOwn(current, step)) return false;
    current = current[step];
    if (current === null) return true;
  }
  return false;
}

/**
 * Delete the containers along `path` (deepest first, never the top-level section) that the
 * patch empties: every key the object holds there is deleted by the patch, and the patch
 * sets nothing new there. A merge patch that deletes only the keys would leave `{}`.
 */
function deleteEmptied(body: RawBody, tree: Readonly<Tree>, path: readonly string[]): void {
  for (let depth = path.length; depth >= 2; depth--) {
    const held = treeAt(body, path, depth);
    const parent = treeAt(tree, path, depth - 1);
    const changes = parent === undefined ? undefined : parent[path[depth - 1]];
    if (held === undefined || !isTree(changes)) return;
    if (!emptiedBy(held, changes)) return;
    parent![path[depth - 1]] = null;
  }
}

/** Whether the changes delete every key the object holds (at least one) and set nothing. */
function emptiedBy(held: Tree, changes: Tree): boolean {
  let any = false;
  for (const key in held) {
    if (!Object.hasOwn(held, key)) continue;
    if (changes[key] !== null) return false;
    any = true;
  }
  if (!any) return false;
  for (const key in changes) {
    if (!Object.hasOwn(changes, key)) continue;
    if (changes[key] !== null && changes[key] !== undefined) return false;
  }
  return true;
}

/** Set a value via the patch only when the object does not hold it already. */
function touchPath(
  body: RawBody,
  patch: StoragePatch,
  path: readonly string[],
  value: unknown,
): boolean {
  const current = resolve(body, path, null);
  if (current !== value) {
    ensureInPatch(patch, path, value);
    return true;
  }
  return false;
}

/**
 * Progress in `metadata.annotations`, one compact-JSON record per handler:
 * `kopf.zalando.org/create_fn: '{"started":"…","retries":1,"success":true,"failure":false}'`.
 *
 * @example Progress in annotations of the operator's own prefix
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.persistence.progressStorage = new kopf.AnnotationsProgressStorage({
 *     prefix: "example.com",
 *     v1: false, // no Kopf 0.x operators to stay readable for
 *   });
 * });
 * ```
 */
export class AnnotationsProgressStorage extends ProgressStorage {
  /** The annotations prefix. */
  readonly prefix: string;
  /** Whether `null` fields are kept in the stored JSON. */
  readonly verbose: boolean;
  /** The name of the touch annotation. */
  readonly touchKey: string;
  /** Whether the V1 keys are also written and read. */
  readonly v1: boolean;
  /** The start of this storage's annotation keys: `prefix/`. */
  readonly #start: string;

  /** A storage under the given prefix (`kopf.zalando.org` by default). */
  constructor(options: AnnotationsProgressStorageOptions = {}) {
    super();
    this.prefix = checkPrefix(options.prefix ?? "kopf.zalando.org", "AnnotationsProgressStorage");
    this.verbose = options.verbose ?? false;
    this.touchKey = options.touchKey ?? "touch-dummy";
    this.v1 = options.v1 ?? true;
    this.#start = `${this.prefix}/`;
  }

  /** The annotation keys for a handler id: V2 first, then V1 if it differs. */
  makeKeys(key: string, body?: RawBody): string[] {
    return makeKeys(this.prefix, key, this.v1, body);
  }

  /** The keys of {@link makeKeys}, shared between calls unless a subclass forms its own. */
  #keys(key: string, body: RawBody): readonly string[] {
    return this.makeKeys === AnnotationsProgressStorage.prototype.makeKeys
      ? sharedKeys(this.prefix, key, this.v1, body)
      : this.makeKeys(key, body);
  }

  /** The first record found under the handler's keys. */
  override fetch({ key, body }: ProgressFetchArgs): ProgressRecord | null {
    for (const fullKey of this.#keys(key, body)) {
      const encoded = body.metadata?.annotations?.[fullKey];
      if (encoded === undefined || encoded === null) continue;
      const decoded = decodeRecord(encoded, fullKey, body);
      if (decoded !== null) return decoded;
    }
    return null;
  }

  /** Write the record as compact JSON under every key of the handler. */
  override store({ key, record, body, patch }: ProgressStoreArgs): void {
    const clean: Tree = {};
    for (const field in record) {
      if (!Object.hasOwn(record, field)) continue;
      const value = record[field as keyof ProgressRecord];
      if (value !== undefined && (this.verbose || value !== null)) clean[field] = value;
    }
    const encoded = toCompactJson(clean);
    for (const fullKey of this.#keys(key, body)) {
      ensureInPatch(patch, ["metadata", "annotations", fullKey], encoded);
    }
    storeMarker(this.prefix, patch, body);
  }

  /** Delete every key of the handler. */
  override purge({ key, body, patch }: ProgressPurgeArgs): void {
    for (const fullKey of this.#keys(key, body)) purgePath(body, patch, ANNOTATIONS, fullKey);
  }

  /** Set (or remove) the touch annotation if it differs. */
  override touch({ body, patch, value }: ProgressTouchArgs): void {
    for (const fullKey of this.#keys(this.touchKey, body)) {
      if (touchPath(body, patch, ["metadata", "annotations", fullKey], value)) {
        storeMarker(this.prefix, patch, body);
      }
    }
  }

  /**
   * The essence without any annotation under this storage's prefix. The input is left
   * untouched and not copied: the result shares what it does not change with it.
   */
  override clear(essence: RawBody): RawBody {
    let result = essence;
    const annotations = essence.metadata?.annotations;
    if (annotations && hasPrefixed(annotations, this.#start)) {
      const kept: Record<string, string> = {};
      for (const key of Object.keys(annotations)) {
        if (!key.startsWith(this.#start)) kept[key] = annotations[key];
      }
      result = { ...essence, metadata: { ...essence.metadata, annotations: kept } };
    }
    return withoutEmptyStanzas(result as Tree) as RawBody;
  }
}

/** Whether any own key of the annotations starts with `start`. */
function hasPrefixed(annotations: Record<string, string>, start: string): boolean {
  for (const key in annotations) {
    if (Object.hasOwn(annotations, key) && key.startsWith(start)) return true;
  }
  return false;
}

function decodeRecord(encoded: string, key: string, body: RawBody): ProgressRecord | null {
  return parseStoredObject<ProgressRecord, string>(encoded, body, recordProblem, key);
}

function recordProblem(object: string, key: string): string {
  return `The annotation ${key} of ${object} is not a JSON progress record; ` +
    `fix or delete it (kubectl annotate ... ${key}-).`;
}

/** Options of {@link StatusProgressStorage}. */
export interface StatusProgressStorageOptions {
  /** Substituted for `{name}` in the fields; `kopf` by default. */
  name?: string;
  /** Where the records live; `status.{name}.progress` by default. */
  field?: FieldSpec;
  /** Where the touch mark lives; `status.{name}.dummy` by default. */
  touchField?: FieldSpec;
}

/**
 * Progress in the status, one object per handler: `status.kopf.progress.<id>`.
 * Records keep their `null` fields in the patch, so that a merge-patch clears stale ones.
 *
 * @example Progress in the status, for resources whose annotations are kept small
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.persistence.progressStorage = new kopf.StatusProgressStorage({ name: "example" });
 *   // The records are then under status.example.progress
 * });
 * ```
 */
export class StatusProgressStorage extends ProgressStorage {
  /** The path of the records' container. */
  readonly field: readonly string[];
  /** The path of the touch mark. */
  readonly touchField: readonly string[];

  /** A storage at the given field (`status.kopf.progress` by default). */
  constructor(options: StatusProgressStorageOptions = {}) {
    super();
    const name = options.name ?? "kopf";
    this.field = formatField(options.field ?? "status.{name}.progress", name);
    this.touchField = formatField(options.touchField ?? "status.{name}.dummy", name);
  }

  /** The handler's record from the status, if it is an object. */
  override fetch({ key, body }: ProgressFetchArgs): ProgressRecord | null {
    const container = resolve(body, this.field, {});
    if (!isTree(container)) return null;
    const record = container[key];
    return isTree(record) ? record as ProgressRecord : null;
  }

  /** Put the full record (nulls included) at `<field>.<id>`. */
  override store({ key, record, body, patch }: ProgressStoreArgs): void {
    const path = [...this.field, key];
    reopenDeleted(body, patchContents(patch) as Tree, path);
    ensureInPatch(patch, path, { ...record });
  }

  /**
   * Delete `<field>.<id>`; once no record is left there, delete the emptied container
   * too (and its emptied parents below the top-level section, e.g. `status.kopf`).
   */
  override purge({ key, body, patch }: ProgressPurgeArgs): void {
    if (deletedByPatch(patchContents(patch), this.field, key)) return;
    purgePath(body, patch, this.field, key);
    deleteEmptied(body, patchContents(patch), this.field);
  }

  /** Set (or remove) the touch field if it differs. */
  override touch({ body, patch, value }: ProgressTouchArgs): void {
    if (value === null && deletedByPatch(patchContents(patch), this.touchField)) return;
    reopenDeleted(body, patchContents(patch) as Tree, this.touchField);
    touchPath(body, patch, this.touchField, value);
    if (value === null) deleteEmptied(body, patchContents(patch), this.touchField.slice(0, -1));
  }

  /**
   * The essence without the records' container. The input is left untouched and not
   * copied: the result shares what it does not change with it.
   */
  override clear(essence: RawBody): RawBody {
    return withoutEmptyStanzas(without(essence as Tree, this.field)) as RawBody;
  }
}

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

  /**
   * The first storage's record; without one, the first record found in the others — but
   * not a final one (a success or a failure): the storages are written in turn (the status
   * subresource before the object), so a final record that only a later storage holds is a
   * write cut short, whose handler's other changes may be lost: it runs again. (A record
   * of an older operator that wrote only there runs its handler once more, as at least once
   * allows.)
   */
  override fetch(args: ProgressFetchArgs): MaybePromise<ProgressRecord | null> {
    // Once per handler and cycle: the usual case (a record in the first storage, fetched
    // at once) allocates nothing.
    const first = this.storages[0].fetch(args);
    if (isThenable(first)) return first.then((record) => record ?? this.#fallback(args));
    return first ?? this.#fallback(args);
  }

  /** An unfinished record of the storages after the first; see {@link fetch}. */
  #fallback(args: ProgressFetchArgs): MaybePromise<ProgressRecord | null> {
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
  override store(args: ProgressStoreArgs): MaybePromise<void> {
    return callEach(this.storages, "store", args);
  }

  /** Purge from every storage. */
  override purge(args: ProgressPurgeArgs): MaybePromise<void> {
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
  override flush(): MaybePromise<void> {
    return callEach(this.storages, "flush", undefined);
  }
}

/** The record, unless it is final (a success or a failure); see {@link MultiProgressStorage.fetch}. */
function unfinished(
  found: MaybePromise<ProgressRecord | null>,
): MaybePromise<ProgressRecord | null> {
  const judge = (record: ProgressRecord | null) =>
    record?.success === true || record?.failure === true ? null : record ?? null;
  return isThenable(found) ? found.then(judge) : judge(found);
}

/** Options of {@link SmartProgressStorage}: those of both underlying storages. */
export interface SmartProgressStorageOptions
  extends AnnotationsProgressStorageOptions, StatusProgressStorageOptions {}

/**
 * The default: annotations (read first) and `status.kopf.progress` (the older place),
 * both written and purged — what Python Kopf reads, whichever version it is.
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
  constructor(options: SmartProgressStorageOptions = {}) {
    super([new AnnotationsProgressStorage(options), new StatusProgressStorage(options)]);
  }
}

/**
 * Whether records stored into a patch and purged from it again before it is applied leave
 * the patch as the purge alone would: so for the built-in storages (exactly those, not
 * subclasses, which may keep records elsewhere), which write nothing but the records —
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
