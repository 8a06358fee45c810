/**
 * How objects and their states are told apart: an object's key, and the order of its
 * `resourceVersion`s.
 *
 * @module
 */

import type { RawBody } from "./bodies.ts";
import type { Resource } from "./resources.ts";

/**
 * The key of an object within its resource: its uid, or `namespace/name` when it has none
 * (an empty uid counts as none).
 */
export function objectKey(body: RawBody): string {
  const meta = body.metadata;
  if (meta?.uid) return meta.uid;
  return `${meta?.namespace ?? ""}/${meta?.name ?? ""}`;
}

/** The key of an object among all resources: its resource's key, then its own key. */
export function resourceObjectKey(resource: Resource, key: string): string {
  return `${resource.key}\u0000${key}`;
}

const INTEGER = /^\d+$/;

/**
 * Whether `a` is a newer `resourceVersion` than `b`. Versions are opaque to clients, but
 * every API server in practice issues growing integers; versions that are not integers
 * are never newer than one another.
 */
export function isNewerVersion(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined || a === b) return false;
  if (!INTEGER.test(a) || !INTEGER.test(b)) return false;
  // Digit strings of the same length compare as their numbers do, and without leading zeros
  // the longer is the larger: no BigInt on the hot path.
  if (a.length === b.length) return a > b;
  if (a[0] !== "0" && b[0] !== "0") return a.length > b.length;
  return BigInt(a) > BigInt(b);
}

/** Whether the version `actual` is the `expected` one or newer (see {@link isNewerVersion}). */
export function isAtLeastVersion(actual: string | undefined, expected: string): boolean {
  return actual === expected || isNewerVersion(actual, expected);
}
