/**
 * The label `kopf.adopt()` puts on the children it adopts, naming the kind of their owner:
 * the watch of `kopf.on.child` handlers asks the API server for the children of its
 * parents' kinds only (`kopf.zalando.org/owner-kind in (KopfExample.kopf.dev)`), so that the
 * other objects of the child resource are never sent.
 *
 * @module
 */

/** The label naming the owner's kind: `Kind.group`, or `Kind` for the core group. */
export const OWNER_KIND_LABEL = "kopf.zalando.org/owner-kind";

/** The longest label value the API server accepts. */
const LABEL_VALUE_LIMIT = 63;

/**
 * The owner-kind label's value for an owner of this kind and group (`KopfExample.kopf.dev`),
 * or `undefined` where it would be longer than a label value may be (such children are found
 * only by their owner references: see `unlabelled`).
 */
export function ownerKindLabel(kind: string, group: string): string | undefined {
  const value = group === "" ? kind : `${kind}.${group}`;
  return value.length <= LABEL_VALUE_LIMIT &&
      /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(value)
    ? value
    : undefined;
}

/** The group of an `apiVersion` (`kopf.dev/v1` → `kopf.dev`, `v1` → the core group `""`). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}
