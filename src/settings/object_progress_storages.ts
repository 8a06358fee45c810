/**
 * The built-in progress storages that keep the records inside the object, writing them
 * into the patch of the handling cycle: in annotations ({@link AnnotationsProgressStorage})
 * and in the status ({@link StatusProgressStorage}), with what both need to delete a record
 * without leaving an emptied stanza behind.
 *
 * Apart from the contract they implement (`progress_storages.ts`) and from the storages
 * over several others (`multi_progress_storages.ts`).
 *
 * @module
 */

import type { RawBody } from "../structs/bodies.ts";
import { toCompactJson } from "./compact_json.ts";
import {
  checkPrefix,
  makeKeys,
  sharedKeys,
  storeMarker,
  withoutEmptyStanzas,
} from "./conventions.ts";
import {
  ensureInPatch,
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
import {
  type ProgressFetchArgs,
  type ProgressPurgeArgs,
  type ProgressRecord,
  ProgressStorage,
  type ProgressStoreArgs,
  type ProgressTouchArgs,
  type StoragePatch,
} from "./progress_storages.ts";
import type { StorageOptions } from "./storage_options.ts";

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
 * `kopf.zalando.org/create_fn: '{"started":"...","retries":1,"success":true,"failure":false}'`.
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
  constructor(options: Pick<StorageOptions, "prefix" | "verbose" | "touchKey" | "v1"> = {}) {
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
  constructor(options: Pick<StorageOptions, "name" | "field" | "touchField"> = {}) {
    super();
    const name = options.name ?? "kopf";
    this.field = formatField(options.field ?? "status.{name}.progress", name);
    this.touchField = formatField(options.touchField ?? "status.{name}.dummy", name);
  }

  /** Whether its field is in the status (as by default). */
  override get readsStatusOnly(): boolean {
    return this.field[0] === "status";
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
