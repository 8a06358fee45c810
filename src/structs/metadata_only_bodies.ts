/**
 * Objects watched as metadata only: the API server sends them as `PartialObjectMetadata`
 * (`apiVersion: meta.k8s.io/v1`); the operator passes them on in their resource's
 * `apiVersion` and `kind`, as handlers and persisted diff-bases expect. That such a body is
 * known by its metadata only is not written on it: the event that carries it says so, with
 * where the whole object is read when a handler asks for it (`ObjectEvent.source`,
 * `fetchBody`).
 *
 * @module
 */
import type { RawBody } from "./bodies.ts";

/** The kind in which the API server sends metadata-only objects. */
const PARTIAL_OBJECT_METADATA = "PartialObjectMetadata";

/**
 * A metadata-only object as its resource's: `apiVersion` and `kind` set to these, in place
 * (it is fresh from the wire); true if it was one. An object that is not
 * `PartialObjectMetadata` (a server that ignored the request sends whole ones) is left as
 * it is: it is whole, and false.
 */
export function asResourceObject(object: RawBody, apiVersion: string, kind: string): boolean {
  if (!isPartialObjectMetadata(object)) return false;
  object.apiVersion = apiVersion;
  object.kind = kind;
  return true;
}

/** Whether the object is as the API server sends a metadata-only one (`PartialObjectMetadata`). */
export function isPartialObjectMetadata(object: RawBody): boolean {
  return object.kind === PARTIAL_OBJECT_METADATA;
}

/**
 * A whole object as a metadata-only request shows it: `PartialObjectMetadata` with all of
 * its metadata, the managed fields too (kube-apiserver's `meta.AsPartialObjectMetadata`
 * keeps them). The metadata is the object's own, not a copy.
 */
export function partialObjectMetadataOf(object: RawBody): RawBody {
  return {
    apiVersion: "meta.k8s.io/v1",
    kind: PARTIAL_OBJECT_METADATA,
    metadata: object.metadata ?? {},
  };
}
