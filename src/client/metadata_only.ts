/**
 * Reading objects' metadata only: the `Accept` headers that ask the API server for
 * `PartialObjectMetadata` (one object, or each object of a watch) and
 * `PartialObjectMetadataList` (a list), as client-go's metadata client asks for them --
 * without its protobuf alternative, which this client does not read.
 *
 * The server sends each object as `{ kind: "PartialObjectMetadata", apiVersion:
 * "meta.k8s.io/v1", metadata }`: no `spec`, no `status`, no `data`, and not the resource's
 * own kind. The client passes them on as they come, never rewritten into the resource's
 * kind. A server that ignores the `as=` parameter answers with whole objects (the plain
 * JSON alternative at the end of each header): they are passed on as they come too, so
 * the consumers of metadata-only reads take either.
 *
 * @module
 */

/** `Accept` for one object's metadata, and for watch events with metadata only. */
export const METADATA_ACCEPT =
  "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";

/** `Accept` for a list of the objects' metadata (each page of a paginated listing). */
export const METADATA_LIST_ACCEPT =
  "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
