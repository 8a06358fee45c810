/**
 * The label `kopf.adopt()` puts on the children it adopts, naming the kind of their owner:
 * the watch of `kopf.on.child` handlers asks the API server for the children of its
 * parents' kinds only (`kopf.zalando.org/owner-kind in (KopfExample.kopf.dev)`), so that the
 * other objects of the child resource are never sent.
 *
 * @module
 */
import { isLabelValue } from "./label_selectors.ts";

/** The label naming the owner's kind: `Kind.group`, or `Kind` for the core group. */
export const OWNER_KIND_LABEL = "kopf.zalando.org/owner-kind";

/**
 * The owner-kind label's value for an owner of this kind and group (`KopfExample.kopf.dev`),
 * or `undefined` where it would be no valid label value, as when over 63 characters (such
 * children are found only by their owner references: see `unlabelled`).
 */
export function ownerKindLabel(kind: string, group: string): string | undefined {
  const value = group === "" ? kind : `${kind}.${group}`;
  return value !== "" && isLabelValue(value) ? value : undefined;
}

/** The group of an `apiVersion` (`kopf.dev/v1` -> `kopf.dev`, `v1` -> the core group `""`). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}
