/**
 * What the API server would refuse for its size, found before sending: annotations over
 * 256 KB in total, an object over what etcd stores. {@link OutcomeTooLargeError} says which
 * storage setting to change.
 *
 * @module
 */

import type { RawBody } from "../structs/bodies.ts";
import type { Resource } from "../structs/resources.ts";
import { ConfigurationError } from "../structs/errors.ts";
import { ANNOTATIONS_LIMIT, OBJECT_SIZE_LIMIT } from "../structs/size_limits.ts";

/** The changes would make the object larger than the API server accepts; nothing was sent. */
export class OutcomeTooLargeError extends ConfigurationError {
  /** The error's name. */
  override name = "OutcomeTooLargeError";
}

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text).length;

/**
 * Refuse what the API server would refuse for its size, naming the setting to change.
 * Cheap for the usual small changes: sizes are measured exactly only when an estimate
 * (at most 3 bytes per UTF-16 unit) comes near a limit.
 */
export function checkSizes(
  body: RawBody,
  merge: Record<string, unknown>,
  resource: Resource,
): void {
  const patchedMeta = (merge.metadata ?? NOTHING) as Record<string, unknown>;
  const patched = (patchedMeta.annotations ?? NOTHING) as Record<string, unknown>;
  if (hasKeys(patched)) checkAnnotations(body, patched, resource);
  // A large object grows by little: a patch under a sixth of the limit in bytes (3 per
  // character at most) passes. Bounded without serializing first: every patch is checked.
  if (jsonLengthBound(merge, OBJECT_SIZE_LIMIT / 6) * 3 < OBJECT_SIZE_LIMIT / 2) return;
  const patchText = JSON.stringify(merge);
  if (patchText.length * 3 < OBJECT_SIZE_LIMIT / 2) return;
  const size = bytes(JSON.stringify(body)) + bytes(patchText);
  if (size > OBJECT_SIZE_LIMIT) {
    const biggest = Object.entries(merge.status ?? {})
      .map(([field, value]) => [field, bytes(JSON.stringify(value) ?? "")] as const)
      .sort((a, b) => b[1] - a[1])[0];
    throw new OutcomeTooLargeError(
      `${describe(resource, body)} would be about ${kb(size)} with the changes, over the ${
        kb(OBJECT_SIZE_LIMIT)
      } ` +
        "that the API server stores" +
        (biggest ? ` (the largest change: status.${biggest[0]}, ${kb(biggest[1])})` : "") +
        ": return smaller results from the handlers, or keep large data elsewhere.",
    );
  }
}

function checkAnnotations(
  body: RawBody,
  patched: Record<string, unknown>,
  resource: Resource,
): void {
  // The estimate, without merging: what stays of the object's, and what the patch sets.
  const held: Record<string, string> = body.metadata?.annotations ?? {};
  let estimate = 0;
  for (const key in held) {
    if (!Object.hasOwn(patched, key)) estimate += key.length + String(held[key]).length;
  }
  for (const key in patched) {
    const value = patched[key];
    if (value !== null) estimate += key.length + String(value).length;
  }
  if (estimate * 3 <= ANNOTATIONS_LIMIT) return;
  const annotations: Record<string, string> = { ...held };
  for (const [key, value] of Object.entries(patched)) {
    if (value === null) delete annotations[key];
    else annotations[key] = String(value);
  }
  let total = 0;
  let largest: [string, number] = ["", 0];
  for (const [key, value] of Object.entries(annotations)) {
    const size = bytes(key) + bytes(value);
    total += size;
    if (size > largest[1]) largest = [key, size];
  }
  if (total > ANNOTATIONS_LIMIT) {
    const [key, size] = largest;
    const advice = key.endsWith("/last-handled-configuration")
      ? "keep the diff-base in the status instead " +
        "(settings.persistence.diffbaseStorage = new kopf.StatusDiffBaseStorage())"
      : key in patched
      ? "keep the handlers' progress in the status instead " +
        "(settings.persistence.progressStorage = new kopf.StatusProgressStorage())"
      : "make the annotations smaller";
    throw new OutcomeTooLargeError(
      `The annotations of ${describe(resource, body)} would take ${kb(total)}, over the ${
        kb(ANNOTATIONS_LIMIT)
      } ` +
        `that Kubernetes allows in total (the largest: ${key}, ${kb(size)}): ${advice}.`,
    );
  }
}

/** No keys: what an absent part of a patch reads as. */
const NOTHING: Readonly<Record<string, unknown>> = Object.freeze({});

/** How messages name the object: `kopfexamples ns/name`. */
function describe(resource: Resource, body: RawBody): string {
  return `${resource.plural} ${body.metadata?.namespace ? `${body.metadata.namespace}/` : ""}${
    body.metadata?.name ?? ""
  }`;
}

function kb(size: number): string {
  return `${Math.round(size / 1024)} KB`;
}

/** Whether the object has own enumerable keys (as `Object.keys()`, without the list). */
function hasKeys(object: object): boolean {
  for (const key in object) if (Object.hasOwn(object, key)) return true;
  return false;
}

/**
 * At least the length of `JSON.stringify(value)` for JSON data (a string's every character
 * counted as an escape of six), walking no further once over `limit` (then more than it).
 */
export function jsonLengthBound(value: unknown, limit: number): number {
  if (typeof value === "string") return value.length * 6 + 2;
  if (value === null || typeof value !== "object") return 24; // a number, or a literal
  let length = 2;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && length <= limit; i++) {
      length += jsonLengthBound(value[i], limit) + 1;
    }
    return length;
  }
  for (const key in value) {
    if (length > limit) break;
    length += key.length * 6 + 4 + jsonLengthBound((value as Record<string, unknown>)[key], limit);
  }
  return length;
}
