/**
 * Sensitive fields of essences: values that the diff-base keeps as digests, never as they
 * are -- everything under `data` and `stringData` of core v1 Secrets, and under the fields
 * that `settings.persistence.sensitiveFields` names, on objects of any resource.
 *
 * A digest is keyed BLAKE2b-256 with the object's uid as the key, over the value's path
 * and compact JSON, written as `kopf-digest:v1:<base64url>`. The uid makes equal values
 * on different objects (and, with the path, under different keys) give different digests,
 * so precomputed tables do not help; it is no secret, though: whoever reads the diff-base
 * can still try guesses of a short value one by one.
 *
 * @module
 */

import type { RawBody } from "../structs/bodies.ts";
import { blake2b } from "../structs/blake2b.ts";
import { type FieldPath, type FieldSpec, parseField } from "../structs/dicts.ts";
import { toCompactJson } from "./compact_json.ts";
import { isTree, type Tree } from "./field_paths.ts";

/** How every digest in an essence begins: the scheme and its version. */
export const DIGEST_PREFIX = "kopf-digest:v1:";

/** The digests in a text (also inside JSON kept as a string, where quotes are escaped). */
const DIGESTS = /kopf-digest:v1:[A-Za-z0-9_-]*/g;

/** What a log line shows instead of a sensitive value. */
export const MASK = "***";

/** The fields of core v1 Secrets that are always sensitive. */
const SECRET_FIELDS: readonly FieldPath[] = Object.freeze([
  parseField("data"),
  parseField("stringData"),
]);

const NO_FIELDS: readonly FieldPath[] = Object.freeze([]);

const encoder = new TextEncoder();

/** Whether a value is a digest made here (of any value). */
export function isDigest(value: unknown): boolean {
  return typeof value === "string" && value.startsWith(DIGEST_PREFIX);
}

/** The text with every digest in it replaced by {@link MASK}: for log lines. */
export function maskDigests(text: string): string {
  return text.includes(DIGEST_PREFIX) ? text.replace(DIGESTS, MASK) : text;
}

/** The parsed paths of one list of sensitive fields, for other objects and for Secrets. */
interface ParsedFields {
  /** A copy of the list as parsed, to tell when it was changed in place. */
  readonly fields: readonly FieldSpec[];
  /** The paths for objects other than Secrets. */
  readonly general: readonly FieldPath[];
  /** The paths for Secrets: the general ones and the Secrets' own. */
  readonly secrets: readonly FieldPath[];
}

// Parsed once per list (and again only if it is changed in place): objects of resources
// without sensitive fields must pay nothing per event.
const parsedLists = new WeakMap<readonly FieldSpec[], ParsedFields>();

/**
 * The sensitive paths of an object: those of `fields` (the setting), plus the Secrets' own
 * for a core v1 Secret. None of them lies within another. Empty for most objects, with
 * nothing allocated.
 */
export function sensitivePaths(
  body: RawBody,
  fields: readonly FieldSpec[] | undefined,
): readonly FieldPath[] {
  const secret = body.kind === "Secret" && body.apiVersion === "v1";
  if (fields === undefined || fields.length === 0) return secret ? SECRET_FIELDS : NO_FIELDS;
  let parsed = parsedLists.get(fields);
  if (parsed === undefined || !sameFields(parsed.fields, fields)) {
    const general = fields.map(parseField);
    parsed = {
      fields: [...fields],
      general: outermost(general),
      secrets: outermost([...SECRET_FIELDS, ...general]),
    };
    parsedLists.set(fields, parsed);
  }
  return secret ? parsed.secrets : parsed.general;
}

function sameFields(a: readonly FieldSpec[], b: readonly FieldSpec[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (typeof x === "string" || typeof y === "string" || x.length !== y.length) return false;
    for (let j = 0; j < x.length; j++) if (x[j] !== y[j]) return false;
  }
  return true;
}

/**
 * The paths without those that lie within another one (or repeat it): a value must be
 * digested once, never a digest again.
 */
function outermost(paths: readonly FieldPath[]): readonly FieldPath[] {
  const sorted = [...new Set(paths)].sort((a, b) => a.length - b.length);
  const kept: FieldPath[] = [];
  for (const path of sorted) {
    if (!kept.some((outer) => outer.every((key, i) => path[i] === key))) kept.push(path);
  }
  return Object.freeze(kept);
}

/** The key of an object's digests: its uid (hashed if longer than BLAKE2b takes). */
export function digestKey(body: RawBody): Uint8Array {
  const uid = body.metadata?.uid;
  const bytes = encoder.encode(typeof uid === "string" ? uid : "");
  return bytes.length > 64 ? blake2b(bytes, 64) : bytes;
}

/**
 * The digest of one value at `trail` (its full path in the essence):
 * `kopf-digest:v1:` and base64url of keyed BLAKE2b-256 over the compact JSON of
 * `[...trail, value]`.
 */
export function digestValue(key: Uint8Array, trail: readonly string[], value: unknown): string {
  const digest = blake2b(encoder.encode(toCompactJson([...trail, value])), 32, key);
  const base64 = btoa(String.fromCharCode(...digest));
  return DIGEST_PREFIX + base64.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** What digesting an essence gives. */
export interface DigestedEssence {
  /** The essence with digests in place of the sensitive values. */
  readonly essence: RawBody;
  /** Whether plain values were found where digests were expected (a stored essence only). */
  readonly plain: boolean;
}

/** The state of one digesting walk. */
interface Walk {
  readonly key: Uint8Array;
  readonly stored: boolean;
  plain: boolean;
}

/**
 * The essence with every value under `paths` replaced by its digest; objects under a
 * path keep their keys, so that a diff (and a field handler) still sees which one changed.
 * The essence is not modified: what lies along the paths is copied, the rest shared.
 *
 * A `stored` essence (the diff-base as fetched) keeps the digests it has, and digests the
 * plain values that Kopf or an older version stored, so that an unchanged value is not
 * seen as a change; `plain` then says that there were some.
 */
export function digestEssence(
  essence: RawBody,
  paths: readonly FieldPath[],
  key: Uint8Array,
  stored = false,
): DigestedEssence {
  const walk: Walk = { key, stored, plain: false };
  let tree = essence as Tree;
  for (const path of paths) tree = digestAt(tree, path, 0, walk);
  return { essence: tree as RawBody, plain: walk.plain };
}

function digestAt(node: Tree, path: FieldPath, depth: number, walk: Walk): Tree {
  const name = path[depth];
  if (!Object.hasOwn(node, name)) return node;
  const child = node[name];
  let replaced: unknown;
  if (depth === path.length - 1) {
    replaced = digestLeaves(child, [...path], walk);
  } else {
    if (!isTree(child)) return node;
    replaced = digestAt(child, path, depth + 1, walk);
    if (replaced === child) return node;
  }
  return { ...node, [name]: replaced }; // a computed key: `__proto__` stays a plain key
}

function digestLeaves(value: unknown, trail: string[], walk: Walk): unknown {
  if (isTree(value)) {
    const entries = Object.entries(value);
    for (const entry of entries) {
      trail.push(entry[0]);
      entry[1] = digestLeaves(entry[1], trail, walk);
      trail.pop();
    }
    return Object.fromEntries(entries);
  }
  if (walk.stored) {
    if (isDigest(value)) return value;
    walk.plain = true;
  }
  return digestValue(walk.key, trail, value);
}
