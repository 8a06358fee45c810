/**
 * Diff-base storages: the last handled "essence" of each object, against which the next
 * change is compared -- what tells a real change from status or system noise, and what
 * gives handlers their `old`, `new` and `diff`. Formats match Python Kopf byte for byte.
 *
 * @module
 */

import type { RawBody } from "../structs/bodies.ts";
import { ConfigurationError } from "../structs/errors.ts";
import { ANNOTATIONS_LIMIT, jsonBytesAtMost } from "../structs/size_limits.ts";
import { toCompactJson } from "./compact_json.ts";
import {
  checkedStorages,
  checkPrefix,
  isMarkedKey,
  LAST_APPLIED_ANNOTATION,
  makeKeys,
  markedPrefixes,
  removeAnnotations,
  removeEmptyStanzas,
  sharedKeys,
  storeMarker,
} from "./conventions.ts";
import {
  deepCopy,
  ensure,
  ensureInPatch,
  type FieldSpec,
  formatField,
  isTree,
  parseField,
  parseStoredObject,
  patchContents,
  remove,
  reopenDeleted,
  resolve,
  type Tree,
} from "./field_paths.ts";
import { callEach, firstFound, type StoragePatch } from "./progress_storages.ts";
import type { StorageOptions } from "./storage_options.ts";

/** The arguments of {@link DiffBaseStorage.build}. */
export interface DiffBaseBuildArgs {
  /** The object. */
  body: RawBody;
  /** Fields kept even where they would be dropped, e.g. `status.phase` for field handlers. */
  extraFields?: readonly FieldSpec[];
}

/** The arguments of {@link DiffBaseStorage.store}. */
export interface DiffBaseStoreArgs {
  /** The object as last seen. */
  body: RawBody;
  /** The patch to fill. */
  patch: StoragePatch;
  /**
   * The essence to keep, as built by {@link DiffBaseStorage.build}, with digests in place of
   * the values of sensitive fields (a Secret's `data`, `settings.persistence.sensitiveFields`).
   */
  essence: RawBody;
}

const ABSENT = Symbol("absent");

/** Copy the given field from `src` into `dst`, unless it is absent. */
function cherrypick(src: RawBody, dst: Tree, path: readonly string[]): void {
  const value = resolve(src, path, ABSENT);
  if (value !== ABSENT) ensure(dst, path, deepCopy(value));
}

/**
 * The annotations of an essence: a copy without those of any Kopf-managed prefix and
 * without `kubectl`'s last applied configuration, made in one pass over the kept ones.
 */
function essenceAnnotations(annotations: unknown): unknown {
  if (!isTree(annotations)) return deepCopy(annotations);
  const marked = markedPrefixes(annotations);
  const kept: Tree = {};
  for (const key in annotations) {
    if (!Object.hasOwn(annotations, key)) continue;
    if (isEssenceAnnotation(key, marked)) kept[key] = deepCopy(annotations[key]);
  }
  return kept;
}

/** Whether an annotation is in the essence: not of a Kopf-managed prefix, nor kubectl's. */
function isEssenceAnnotation(key: string, marked: ReadonlySet<string> | undefined): boolean {
  return key !== LAST_APPLIED_ANNOTATION && !isMarkedKey(key, marked);
}

/** Whether a top-level field is in the essence (`metadata` is, in part: see `build`). */
function isEssenceField(key: string): boolean {
  return key !== "apiVersion" && key !== "kind" && key !== "metadata" && key !== "status";
}

/**
 * The base of all diff-base storages. `build` computes the essence; subclass it and
 * implement `fetch` and `store` (sync or async) for a custom place to keep it. The framework
 * replaces the values of sensitive fields with digests after `build` and after `fetch`: what
 * `store` is given holds digests, never a Secret's values.
 *
 * @example Keep the last handled states in memory (all objects are new after a restart)
 * ```ts
 * import { kopf, type DiffBaseStoreArgs, type RawBody } from "@kopf/kopf";
 *
 * class MemoryDiffBaseStorage extends kopf.DiffBaseStorage {
 *   readonly #essences = new Map<string, RawBody>();
 *   fetch({ body }: { body: RawBody }): RawBody | null {
 *     return this.#essences.get(body.metadata?.uid ?? "") ?? null;
 *   }
 *   store({ body, essence }: DiffBaseStoreArgs): void {
 *     this.#essences.set(body.metadata?.uid ?? "", essence);
 *   }
 * }
 * kopf.on.startup(({ settings }) => {
 *   settings.persistence.diffbaseStorage = new MemoryDiffBaseStorage();
 * });
 * ```
 */
export abstract class DiffBaseStorage {
  /**
   * The essence of an object: everything but `apiVersion`, `kind`, `status` and the
   * system metadata; only labels and annotations stay, minus the annotations of any
   * Kopf-managed prefix and `kubectl.kubernetes.io/last-applied-configuration`; empty
   * sections are dropped. Key order follows the body's, with `metadata` moved last.
   */
  build({ body, extraFields }: DiffBaseBuildArgs): RawBody {
    // Only what is kept is copied: the dropped fields and annotations are skipped.
    const essence: Tree = {};
    for (const key in body) {
      if (!Object.hasOwn(body, key)) continue;
      if (isEssenceField(key)) essence[key] = deepCopy(body[key]);
    }
    const metadata = body.metadata as unknown;
    if (isTree(metadata)) {
      const hasLabels = Object.hasOwn(metadata, "labels");
      const hasAnnotations = Object.hasOwn(metadata, "annotations");
      if (hasLabels || hasAnnotations) {
        const kept: Tree = {};
        if (hasLabels) kept.labels = deepCopy(metadata.labels);
        if (hasAnnotations) kept.annotations = essenceAnnotations(metadata.annotations);
        essence.metadata = kept;
      }
    }
    if (extraFields !== undefined) {
      for (const field of extraFields) cherrypick(body, essence, parseField(field));
    }
    removeEmptyStanzas(essence);
    return essence as RawBody;
  }

  /** The stored essence, or `null` if there is none (the object was never handled). */
  abstract fetch(args: { body: RawBody }): RawBody | null | Promise<RawBody | null>;

  /** Put the essence into the patch (or elsewhere). */
  abstract store(args: DiffBaseStoreArgs): void | Promise<void>;

  /**
   * Why the essence cannot be stored here (e.g. the annotations would grow over what
   * Kubernetes allows), in words for an error line; `undefined` when it fits, as by default.
   */
  oversize(_args: { readonly body: RawBody; readonly essence: RawBody }): string | undefined {
    return undefined;
  }

  /**
   * Whether the essence is read from the object's status alone: a watch of metadata only
   * does not deliver the status, so such a storage rules those watches out. False unless a
   * storage says so.
   */
  get readsStatusOnly(): boolean {
    return false;
  }
}

function parseEssence(encoded: unknown, where: string, body: RawBody): RawBody | null {
  return parseStoredObject<RawBody, string>(encoded, body, essenceProblem, where);
}

function essenceProblem(object: string, where: string): string {
  return `The last-handled configuration at ${where} of ${object} is not JSON ` +
    `of an object; fix or delete it (the object will then be handled as new).`;
}

/**
 * The essence in an annotation, `kopf.zalando.org/last-handled-configuration` by default:
 * compact JSON with a trailing newline (as `kubectl` writes its own).
 *
 * @example The last handled state under the operator's own annotation
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.persistence.diffbaseStorage = new kopf.AnnotationsDiffBaseStorage({
 *     prefix: "example.com",
 *     key: "last-handled",
 *   });
 * });
 * ```
 */
export class AnnotationsDiffBaseStorage extends DiffBaseStorage {
  /** The annotations prefix. */
  readonly prefix: string;
  /** The annotation name. */
  readonly key: string;
  /** Whether the V1 key is also written and read. */
  readonly v1: boolean;

  /** A storage under the given prefix and key. */
  constructor(options: Pick<StorageOptions, "prefix" | "key" | "v1"> = {}) {
    super();
    this.prefix = checkPrefix(options.prefix ?? "kopf.zalando.org", "AnnotationsDiffBaseStorage");
    const key = options.key ?? "last-handled-configuration";
    if (typeof key !== "string" || key === "") {
      throw new ConfigurationError(
        'AnnotationsDiffBaseStorage needs a non-empty key, e.g. { key: "last" }.',
      );
    }
    this.key = key;
    this.v1 = options.v1 ?? true;
  }

  /** The annotation keys: V2 first, then V1 if it differs. */
  makeKeys(body?: RawBody): string[] {
    return makeKeys(this.prefix, this.key, this.v1, body);
  }

  /** The keys of {@link makeKeys}, shared between calls unless a subclass forms its own. */
  #keys(body: RawBody): readonly string[] {
    return this.makeKeys === AnnotationsDiffBaseStorage.prototype.makeKeys
      ? sharedKeys(this.prefix, this.key, this.v1, body)
      : this.makeKeys(body);
  }

  /** The essence, also without this storage's own annotation. */
  override build(args: DiffBaseBuildArgs): RawBody {
    const essence = super.build(args) as Tree;
    removeAnnotations(essence, this.#keys(args.body));
    removeEmptyStanzas(essence);
    return essence as RawBody;
  }

  /** The essence from the first key that holds one. */
  override fetch({ body }: { body: RawBody }): RawBody | null {
    for (const fullKey of this.#keys(body)) {
      const essence = parseEssence(body.metadata?.annotations?.[fullKey], fullKey, body);
      if (essence !== null) return essence;
    }
    return null;
  }

  /**
   * The annotations would take more than Kubernetes allows with the essence under every
   * key: measured exactly only when a cheap estimate comes near the limit.
   */
  override oversize({ body, essence }: { body: RawBody; essence: RawBody }): string | undefined {
    const keys = this.#keys(body);
    const held = body.metadata?.annotations ?? {};
    let others = 0;
    for (const key in held) {
      if (!keys.includes(key)) others += key.length + String(held[key]).length;
    }
    // The usual small essence is known to fit without making its JSON.
    const budget = (ANNOTATIONS_LIMIT - 3 * others) / keys.length;
    if (budget > 0 && jsonBytesAtMost(essence, budget) < budget) return undefined;
    const each = encoder.encode(`${toCompactJson(essence)}\n`).length;
    let total = keys.length * each;
    for (const key in held) {
      if (!keys.includes(key)) total += encoder.encode(key + String(held[key])).length;
    }
    if (total <= ANNOTATIONS_LIMIT) return undefined;
    return `it would take ${kilobytes(each)} in each of ${keys.join(" and ")}, and the ` +
      `annotations ${kilobytes(total)} in all, over the ${kilobytes(ANNOTATIONS_LIMIT)} that ` +
      "Kubernetes allows";
  }

  /** Write the compact JSON (plus a newline) under every key. */
  override store({ body, patch, essence }: DiffBaseStoreArgs): void {
    const encoded = `${toCompactJson(essence)}\n`;
    for (const fullKey of this.#keys(body)) {
      ensureInPatch(patch, ["metadata", "annotations", fullKey], encoded);
    }
    storeMarker(this.prefix, patch, body);
  }
}

/**
 * The essence as a compact JSON string in a status field (no trailing newline).
 *
 * @example The last handled state in the status, out of the annotations
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.persistence.diffbaseStorage = new kopf.StatusDiffBaseStorage({
 *     field: "status.example.lastHandled",
 *   });
 * });
 * ```
 */
export class StatusDiffBaseStorage extends DiffBaseStorage {
  /** The path of the field. */
  readonly field: readonly string[];

  /** A storage at the given field. */
  constructor(options: Pick<StorageOptions, "name" | "field"> = {}) {
    super();
    const name = options.name ?? "kopf";
    const field = options.field ?? "status.{name}.last-handled-configuration";
    this.field = formatField(field, name);
    this.#where = this.field.join(".");
  }

  /** Whether its field is in the status (as by default). */
  override get readsStatusOnly(): boolean {
    return this.field[0] === "status";
  }

  /** The field as errors name it. */
  readonly #where: string;

  /** The essence, also without this storage's own field. */
  override build(args: DiffBaseBuildArgs): RawBody {
    const essence = super.build(args) as Tree;
    remove(essence, this.field);
    return essence as RawBody;
  }

  /** The essence from the field, if any. */
  override fetch({ body }: { body: RawBody }): RawBody | null {
    return parseEssence(resolve(body, this.field, null), this.#where, body);
  }

  /** Write the compact JSON into the field. */
  override store({ body, patch, essence }: DiffBaseStoreArgs): void {
    // Purged progress may have deleted a container on the way as a whole (`status.kopf`):
    // reopened, the write keeps the deletion of what else it held.
    reopenDeleted(body, patchContents(patch) as Tree, this.field);
    ensureInPatch(patch, this.field, toCompactJson(essence));
  }
}

/**
 * Several storages kept in sync: all are written; the first one holding an essence wins
 * on reading. Use it to move from one storage to another without re-handling objects.
 *
 * @example Read the old annotation as long as objects still have it
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.persistence.diffbaseStorage = new kopf.MultiDiffBaseStorage([
 *     new kopf.AnnotationsDiffBaseStorage({ prefix: "example.com" }),
 *     new kopf.AnnotationsDiffBaseStorage(), // kopf.zalando.org, as before
 *   ]);
 * });
 * ```
 */
export class MultiDiffBaseStorage extends DiffBaseStorage {
  /** The storages, in the order of precedence for reading. */
  readonly storages: readonly DiffBaseStorage[];

  /** A storage over the given ones (at least one). */
  constructor(storages: readonly DiffBaseStorage[]) {
    super();
    this.storages = checkedStorages(storages, DiffBaseStorage, "MultiDiffBaseStorage", "diff-base");
  }

  /** Whether every one of its storages reads the status alone. */
  override get readsStatusOnly(): boolean {
    return this.storages.every((storage) => storage.readsStatusOnly);
  }

  /** The essence, cleaned by every storage in turn. */
  override build(args: DiffBaseBuildArgs): RawBody {
    let essence = super.build(args);
    for (const storage of this.storages) {
      essence = storage.build({ body: essence, extraFields: args.extraFields });
    }
    return essence;
  }

  /** The first essence found, in the storages' order. */
  override fetch(args: { body: RawBody }): RawBody | null | Promise<RawBody | null> {
    return firstFound(this.storages, "fetch", args);
  }

  /** Store into every storage. */
  override store(args: DiffBaseStoreArgs): void | Promise<void> {
    return callEach(this.storages, "store", args);
  }

  /** Why any of the storages cannot store the essence. */
  override oversize(args: { body: RawBody; essence: RawBody }): string | undefined {
    for (const storage of this.storages) {
      const why = storage.oversize(args);
      if (why !== undefined) return why;
    }
    return undefined;
  }
}

const encoder = new TextEncoder();

function kilobytes(bytes: number): string {
  return `${Math.round(bytes / 1024)} KB`;
}

/**
 * Whether writing this patch (a `Patch`, or its merge form) to the object leaves its essence
 * as the storage builds it unchanged: the storage builds it the framework's way (its `build`
 * is a built-in storage's, which only drop their own fields from the base's), and the patch
 * sets nothing that way keeps (the same field and annotation rules as `build`'s): only the
 * status, metadata other than labels, and annotations of Kopf-managed prefixes, as marked in
 * the object or in the patch. Field handlers' extra fields are not looked at: the caller
 * rules them out.
 */
export function keepsEssence(
  storage: DiffBaseStorage,
  body: RawBody,
  patch: StoragePatch | Tree,
): boolean {
  if (!buildsFrameworkEssence(storage)) return false;
  const contents = patchContents(patch);
  for (const key in contents) {
    if (isEssenceField(key)) return false;
  }
  const metadata = contents.metadata;
  if (metadata === undefined) return true;
  if (!isTree(metadata) || Object.hasOwn(metadata, "labels")) return false;
  const annotations = metadata.annotations;
  if (annotations === undefined) return true;
  if (!isTree(annotations)) return false;
  const current = body.metadata?.annotations;
  const inBody = isTree(current) ? markedPrefixes(current) : undefined;
  const inPatch = markedPrefixes(annotations);
  for (const key in annotations) {
    if (isEssenceAnnotation(key, inBody) && isEssenceAnnotation(key, inPatch)) return false;
  }
  return true;
}

/** The built-in storages' ways of building the essence. */
const FRAMEWORK_BUILDS: ReadonlySet<DiffBaseStorage["build"]> = new Set([
  DiffBaseStorage.prototype.build,
  AnnotationsDiffBaseStorage.prototype.build,
  StatusDiffBaseStorage.prototype.build,
  MultiDiffBaseStorage.prototype.build,
]);

/** Whether the storage (and each of a multi-storage's) builds the essence a built-in way. */
function buildsFrameworkEssence(storage: DiffBaseStorage): boolean {
  if (!FRAMEWORK_BUILDS.has(storage.build)) return false;
  return !(storage instanceof MultiDiffBaseStorage) ||
    storage.storages.every(buildsFrameworkEssence);
}
