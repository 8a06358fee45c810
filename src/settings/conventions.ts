/**
 * Kopf's naming conventions for annotation keys, shared by the progress and diff-base
 * storages, so that a Python Kopf operator and ours read and write the same keys.
 *
 * - A handler id becomes an annotation name with `/` -> `.` and `<`, `>` -> `_`.
 * - **V2** keys keep the name (after `prefix/`) within 63 characters; **V1** keys keep
 *   the whole `prefix/name` within 63. A key that must be cut ends with `-` and the
 *   base64 (with `-` and `.` as the extra letters) of a 4-byte BLAKE2b digest, with
 *   trailing `=`, `-`, `.` stripped. V2 hashes the raw id, V1 the sanitised one.
 * - Both forms are written when they differ, read V2 first, and both are purged.
 * - A prefix not starting with `kopf.` is branded with `<prefix>/kopf-managed: "yes"`,
 *   so that other Kopf-based operators leave its annotations out of their essences.
 *
 * @module
 */

import type { RawBody } from "../structs/bodies.ts";
import { blake2b } from "../structs/blake2b.ts";
import { ConfigurationError } from "../structs/errors.ts";
import type { Patch } from "../structs/patches.ts";
import { ensureInPatch, isFalsy, isTree, patchContents, type Tree } from "./field_paths.ts";

/** Kubernetes' limit on the name part of an annotation key. */
const MAX_NAME_LENGTH = 63;
/** Kubernetes' limit on a whole annotation key, prefix included. */
const MAX_KEY_LENGTH = 253;

/** The marker annotation name that brands a prefix as Kopf-managed. */
export const MANAGED_MARKER = "kopf-managed";
const KNOWN_MARKERS: ReadonlySet<string> = new Set([MANAGED_MARKER]);
const KNOWN_PREFIXES: readonly string[] = ["kopf.zalando.org"];

/** The annotation that `kubectl apply` keeps; never part of an essence. */
export const LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration";

const encoder = new TextEncoder();

// Python measures and slices strings by code points; JS by UTF-16 units. They differ only
// when there are surrogate pairs, so the common case stays a plain string operation.
const SURROGATES = /[\uD800-\uDFFF]/;

function length(text: string): number {
  return SURROGATES.test(text) ? Array.from(text).length : text.length;
}

/** Python's `text[:end]`, including its meaning for negative `end`. */
function head(text: string, end: number): string {
  return SURROGATES.test(text) ? Array.from(text).slice(0, end).join("") : text.slice(0, end);
}

/** Replace the characters not allowed in annotation names, as Kopf does. */
export function makeSafeKey(key: string): string {
  return key.replaceAll("/", ".").replaceAll("<", "_").replaceAll(">", "_");
}

/** The hash suffix for a cut key: `-` + base64(blake2b-32 of the UTF-8 text), stripped. */
export function makeSuffix(key: string): string {
  const digest = blake2b(encoder.encode(key), 4);
  const alnums = btoa(String.fromCharCode(...digest)).replaceAll("+", "-").replaceAll("/", ".");
  return `-${alnums}`.replace(/[=\-.]+$/, "");
}

/** The V1 annotation key: `prefix/name` as a whole kept within 63 characters. */
export function makeV1Key(prefix: string, key: string): string {
  const safeKey = makeSafeKey(key);
  const fullPrefix = prefix ? `${prefix}/` : "";
  const fits = length(safeKey) <= MAX_NAME_LENGTH - length(fullPrefix);
  const suffix = fits ? "" : makeSuffix(safeKey);
  return `${fullPrefix}${
    head(safeKey, MAX_NAME_LENGTH - length(fullPrefix) - length(suffix))
  }${suffix}`;
}

/** The V2 annotation key: only the name after `prefix/` kept within 63 characters. */
export function makeV2Key(prefix: string, key: string): string {
  const fullPrefix = prefix ? `${prefix}/` : "";
  const suffix = length(key) > MAX_NAME_LENGTH ? makeSuffix(key) : "";
  const limit = Math.max(0, MAX_NAME_LENGTH - length(suffix));
  return `${fullPrefix}${head(makeSafeKey(key), limit)}${suffix}`;
}

/**
 * Kubernetes copies a Deployment's annotations onto its ReplicaSets, so Kopf gives the
 * keys of such ReplicaSets a distinct `-ofDRS` ending to keep the two states apart.
 */
export function markKey(key: string, body: RawBody): string {
  return body.kind === "ReplicaSet" && ownedByDeployment(body) ? `${key}-ofDRS` : key;
}

function ownedByDeployment(body: RawBody): boolean {
  const owners = body.metadata?.ownerReferences;
  if (owners === undefined || owners === null) return false;
  for (const owner of owners) if (isTree(owner) && owner.kind === "Deployment") return true;
  return false;
}

/** Check an annotations prefix once, when a storage is configured. */
export function checkPrefix(prefix: unknown, storage: string): string {
  if (typeof prefix !== "string" || prefix === "") {
    throw new ConfigurationError(
      `${storage} needs a non-empty annotations prefix, e.g. { prefix: "my-op.example.com" }.`,
    );
  }
  if (prefix.length > MAX_KEY_LENGTH - MAX_NAME_LENGTH - 1) {
    throw new ConfigurationError(
      `${storage}: the prefix ${JSON.stringify(prefix)} is over 189 characters; ` +
        `annotation keys built on it would exceed Kubernetes' 253; choose a shorter one.`,
    );
  }
  return prefix;
}

/** The keys already formed, by V1 flag, prefix and storage key (bounded: ids are few). */
const KEYS_MEMO: readonly Map<string, Map<string, readonly string[]>>[] = [new Map(), new Map()];
const KEYS_MEMO_LIMIT = 10_000;
let keysMemoSize = 0;

/**
 * Keys formed from one storage key: the V2 form first, then the V1 form when it differs
 * (and V1 is enabled). The body, when given, marks keys of Deployment-owned ReplicaSets.
 */
export function makeKeys(prefix: string, key: string, v1: boolean, body?: RawBody): string[] {
  return [...sharedKeys(prefix, key, v1, body)];
}

/**
 * The keys of {@link makeKeys}, shared between calls: read them, never change them.
 * Storages ask for the same few handler keys on every event; the cut keys need hashing.
 */
export function sharedKeys(
  prefix: string,
  key: string,
  v1: boolean,
  body?: RawBody,
): readonly string[] {
  const marked = body === undefined ? key : markKey(key, body);
  const memo = KEYS_MEMO[v1 ? 1 : 0];
  let byKey = memo.get(prefix);
  let keys = byKey?.get(marked);
  if (keys === undefined) {
    const v2Key = makeV2Key(prefix, marked);
    const v1Key = v1 ? makeV1Key(prefix, marked) : v2Key;
    keys = Object.freeze(v1Key === v2Key ? [v2Key] : [v2Key, v1Key]);
    if (keysMemoSize >= KEYS_MEMO_LIMIT) {
      for (const map of KEYS_MEMO) map.clear();
      keysMemoSize = 0;
      byKey = undefined;
    }
    if (byKey === undefined) memo.set(prefix, byKey = new Map());
    byKey.set(marked, keys);
    keysMemoSize++;
  }
  return keys;
}

/** Whether the key (with its first `/` at `slash`) marks its prefix as Kopf-managed. */
function isMarking(key: string, slash: number): boolean {
  if (KNOWN_MARKERS.has(key.slice(slash + 1))) return true;
  const prefix = key.slice(0, slash);
  for (const known of KNOWN_PREFIXES) {
    if (prefix === known || prefix.endsWith(`.${known}`)) return true;
  }
  return false;
}

/**
 * The prefixes (the part before `/`) of the annotations' keys that belong to any
 * Kopf-based operator,
 * or `undefined` when there are none -- no set is made for the usual few annotations.
 */
export function markedPrefixes(annotations: Tree): ReadonlySet<string> | undefined {
  let prefixes: Set<string> | undefined;
  for (const key in annotations) {
    if (!Object.hasOwn(annotations, key)) continue;
    const slash = key.indexOf("/");
    if (slash >= 0 && isMarking(key, slash)) (prefixes ??= new Set()).add(key.slice(0, slash));
  }
  return prefixes;
}

/** Whether the key is under one of the prefixes (`prefix/...`). */
export function isMarkedKey(key: string, prefixes: ReadonlySet<string> | undefined): boolean {
  if (prefixes === undefined) return false;
  const slash = key.indexOf("/");
  // Prefixes hold no `/`: a key starts with `prefix/` exactly when its first `/` ends one.
  return slash >= 0 && prefixes.has(key.slice(0, slash));
}

/** Brand a non-`kopf.` prefix as Kopf-managed in the patch, unless it already is. */
export function storeMarker(prefix: string, patch: Patch | Tree, body: RawBody): void {
  if (!prefix || prefix.startsWith("kopf.")) return;
  const marker = `${prefix}/${MANAGED_MARKER}`;
  const inBody = body.metadata?.annotations?.[marker] !== undefined;
  const patchMeta = patchContents(patch).metadata;
  const patchAnnotations = isTree(patchMeta) ? patchMeta.annotations : undefined;
  const inPatch = isTree(patchAnnotations) && Object.hasOwn(patchAnnotations, marker);
  if (!inBody && !inPatch) ensureInPatch(patch, ["metadata", "annotations", marker], "yes");
}

/** The `metadata.annotations` of an essence, if it is an object. */
function essenceAnnotations(essence: Tree): Tree | undefined {
  const metadata = essence.metadata;
  const annotations = isTree(metadata) ? metadata.annotations : undefined;
  return isTree(annotations) ? annotations : undefined;
}

/** Remove the given annotation keys from an essence (in place). */
export function removeAnnotations(essence: Tree, keys: Iterable<string>): void {
  const annotations = essenceAnnotations(essence);
  if (!annotations) return;
  for (const key of keys) delete annotations[key];
}

/** Drop empty `metadata.annotations`, `metadata.labels`, `metadata`, `status` (in place). */
export function removeEmptyStanzas(essence: Tree): void {
  const metadata = essence.metadata;
  if (isTree(metadata)) {
    if ("annotations" in metadata && isFalsy(metadata.annotations)) delete metadata.annotations;
    if ("labels" in metadata && isFalsy(metadata.labels)) delete metadata.labels;
  }
  if ("metadata" in essence && isFalsy(essence.metadata)) delete essence.metadata;
  if ("status" in essence && isFalsy(essence.status)) delete essence.status;
}

const STANZAS: readonly string[] = ["metadata", "status"];

/**
 * The essence without empty `metadata.annotations`, `metadata.labels`, `metadata`, `status`
 * (as {@link removeEmptyStanzas} drops them), leaving the input untouched: the objects that
 * change are copied, the rest is shared. The input itself when nothing is dropped.
 */
export function withoutEmptyStanzas(essence: Tree): Tree {
  let result = essence;
  const metadata = essence.metadata;
  if (isTree(metadata)) {
    const annotations = "annotations" in metadata && isFalsy(metadata.annotations);
    const labels = "labels" in metadata && isFalsy(metadata.labels);
    if (annotations || labels) {
      const copy = { ...metadata };
      if (annotations) delete copy.annotations;
      if (labels) delete copy.labels;
      result = { ...essence, metadata: copy };
    }
  }
  for (const key of STANZAS) {
    if (key in result && isFalsy(result[key])) {
      if (result === essence) result = { ...essence };
      delete result[key];
    }
  }
  return result;
}

/**
 * The storages of a multi-storage, checked: a non-empty array of instances of `kind`
 * (custom storages subclass it); frozen. `owner` and `what` name them in the errors.
 */
export function checkedStorages<T>(
  storages: readonly T[],
  kind: abstract new (...args: never[]) => T,
  owner: string,
  what: string,
): readonly T[] {
  if (!Array.isArray(storages) || storages.length === 0) {
    throw new ConfigurationError(`${owner} needs a non-empty array of ${what} storages.`);
  }
  for (const storage of storages) {
    if (!(storage instanceof kind)) {
      throw new ConfigurationError(
        `${owner} accepts only ${kind.name} instances (subclass it for custom ones).`,
      );
    }
  }
  return Object.freeze([...storages]);
}
