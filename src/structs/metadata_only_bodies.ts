/**
 * Objects watched as metadata only: the API server sends them as `PartialObjectMetadata`
 * (`apiVersion: meta.k8s.io/v1`); the operator passes them on in their resource's
 * `apiVersion` and `kind`, as handlers and persisted diff-bases expect, marked with where
 * the whole object can be read when a handler asks for it (`fetchBody`). The mark is a
 * property keyed by a symbol and not enumerable: copies and JSON drop it, so a body that
 * carries it is the one the watch delivered.
 *
 * @module
 */
import type { RawBody } from "./bodies.ts";

/** Where the whole object of a metadata-only body is read from. */
export interface BodySource {
  /** The whole object, as the API server has it now. */
  read(body: RawBody): Promise<RawBody>;
}

const BODY_SOURCE: unique symbol = Symbol("kopf.bodySource");

/** The kind in which the API server sends metadata-only objects. */
const PARTIAL_OBJECT_METADATA = "PartialObjectMetadata";

/**
 * A metadata-only object as its resource's: `apiVersion` and `kind` set to these, marked
 * with its source. Changed in place (it is fresh from the wire). An object that is not
 * `PartialObjectMetadata` (a server that ignored the request sends whole ones) is left as
 * it is, unmarked: it is whole.
 */
export function asResourceObject(
  object: RawBody,
  apiVersion: string,
  kind: string,
  source: BodySource,
): RawBody {
  if (object.kind !== PARTIAL_OBJECT_METADATA) return object;
  object.apiVersion = apiVersion;
  object.kind = kind;
  Object.defineProperty(object, BODY_SOURCE, { value: source, enumerable: false });
  return object;
}

/** Where the whole object of this metadata-only body is read from; none for whole bodies. */
export function bodySourceOf(body: RawBody): BodySource | undefined {
  return (body as { [BODY_SOURCE]?: BodySource })[BODY_SOURCE];
}
