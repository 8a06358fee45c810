/**
 * What the API server stores of one object, as Kubernetes sets it, and a cheap estimate of
 * how large a value's JSON is: for checks that must cost next to nothing for the usual
 * small objects and be exact only for the rare large ones.
 *
 * @module
 */

/** What Kubernetes allows for all annotations of an object together, in bytes. */
export const ANNOTATIONS_LIMIT = 262_144;

/** What etcd stores of one object by default (its request size limit), in bytes. */
export const OBJECT_SIZE_LIMIT = 1_572_864;

/**
 * At most how many bytes the JSON of a value takes (strings counted at 3 bytes per UTF-16
 * unit, escapes aside; numbers at 24), up to `cap` (then it stops and answers `cap`): when
 * this is within a limit, so is the exact size, with no JSON made.
 */
export function jsonBytesAtMost(value: unknown, cap: number): number {
  let bytes = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && bytes < cap) {
    const item = pending.pop();
    bytes += 1; // a comma (or the end)
    if (typeof item === "string") {
      bytes += 3 * item.length + 2;
    } else if (Array.isArray(item)) {
      bytes += 2;
      for (let i = 0; i < item.length; i++) pending.push(item[i]);
    } else if (item !== null && typeof item === "object") {
      bytes += 2;
      for (const key in item) {
        bytes += 3 * key.length + 3;
        pending.push((item as Record<string, unknown>)[key]);
      }
    } else {
      bytes += 24; // a number, a boolean, null
    }
  }
  return Math.min(bytes, cap);
}
