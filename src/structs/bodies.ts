/**
 * Raw shapes of Kubernetes objects and watch events, as they travel over the wire.
 *
 * @module
 */

/** Any JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

/** A JSON object. */
export interface JsonObject {
  /** Any JSON value under any key. */
  [key: string]: JsonValue;
}

/** The `metadata` of a Kubernetes object, with the commonly used fields typed. */
export interface RawMeta {
  /** The object's name, unique within its namespace and resource. */
  name?: string;
  /** A prefix from which the server generates a name when `name` is absent. */
  generateName?: string;
  /** The namespace; absent for cluster-scoped objects. */
  namespace?: string;
  /** The server-assigned unique id of this incarnation of the object. */
  uid?: string;
  /** An opaque version of the object, changed on every write. */
  resourceVersion?: string;
  /** A counter of changes to the desired state (the spec). */
  generation?: number;
  /** When the object was created (RFC 3339). */
  creationTimestamp?: string;
  /** When the deletion was requested; set while finalizers hold the object. */
  deletionTimestamp?: string;
  /** The grace period of the requested deletion. */
  deletionGracePeriodSeconds?: number;
  /** Labels, for selection. */
  labels?: Record<string, string>;
  /** Annotations, for arbitrary non-identifying data. */
  annotations?: Record<string, string>;
  /** Finalizers that block the object's removal while present. */
  finalizers?: string[];
  /** The owners of the object, for garbage collection. */
  ownerReferences?: JsonObject[];
  /** Any other metadata field. */
  [key: string]: JsonValue | undefined;
}

/** A Kubernetes object as received from or sent to the API. */
export interface RawBody {
  /** The API group and version, e.g. `kopf.dev/v1` or `v1`. */
  apiVersion?: string;
  /** The kind, e.g. `KopfExample`. */
  kind?: string;
  /** The object's metadata. */
  metadata?: RawMeta;
  /** The desired state. */
  spec?: JsonValue;
  /** The observed state. */
  status?: JsonValue;
  /** Any other top-level field (e.g. `data` of ConfigMaps). */
  [key: string]: JsonValue | RawMeta | undefined;
}

/** The type of a watch event. */
export type RawEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

/** One event of a watch stream. */
export interface RawEvent {
  /** The event type, as sent by the API server. */
  type: RawEventType;
  /** The object (or, for `ERROR`, a `Status`). */
  object: RawBody;
}

/**
 * Where the whole object is read from when an event carries only its metadata (a watch of
 * metadata only): what `fetchBody` calls.
 */
export interface BodySource {
  /** The whole object, as the API server has it now. */
  read(body: RawBody): Promise<RawBody>;
}

/** One state of one object, on its way from the watch to the handlers. */
export interface ObjectEvent {
  /**
   * What happened to the object: the type of a watch event, or `null` for an object found
   * by a listing (at the start of a watch, and again when the watch's history was lost).
   */
  readonly type: "ADDED" | "MODIFIED" | "DELETED" | null;
  /** The object's state. */
  readonly object: RawBody;
  /**
   * For an object known by its metadata only (a metadata-only watch): where its whole
   * object is read. Absent for a whole object.
   */
  readonly source?: BodySource;
}

/** What happened to an object: the type of {@link ObjectEvent}. */
export type WatchEventType = ObjectEvent["type"];

/**
 * An object that may have left the selection of a watch with label or field selectors: the
 * server reported it deleted (as it reports an object that stops matching them, with its
 * previous content), or a re-listing no longer had it. It is read afresh to tell that from
 * a deletion; if it still exists, it is out of the operator's sight from now on.
 */
export interface LeavingEvent {
  /** The object may have left its watch's selection. */
  readonly type: "LEFT";
  /** The object's last state that the watch told of (or, once confirmed, its state now). */
  readonly object: RawBody;
  /**
   * Whether a state of the object meets its watch's selectors. A state read afresh that
   * meets them again means that the object left and came back: its watch tells of it again.
   */
  readonly selects: (object: RawBody) => boolean;
  /** For an object known by its metadata only: where its whole object is read. */
  readonly source?: BodySource;
}

/** What the observation tells the reactor of an object: an event, or a possible leaving. */
export type ObservedEvent = ObjectEvent | LeavingEvent;

/** A Kubernetes `Status` object, as carried by API errors. */
export interface RawStatus {
  /** Always `v1`. */
  apiVersion?: string;
  /** Always `Status`. */
  kind?: "Status";
  /** Whether the operation succeeded. */
  status?: "Success" | "Failure";
  /** A human-readable description of the outcome. */
  message?: string;
  /** A machine-readable reason, e.g. `NotFound` or `Conflict`. */
  reason?: string;
  /** The HTTP status code. */
  code?: number;
  /** Extended data about the reason (name, group, kind, causes). */
  details?: JsonObject;
  /** List metadata, usually empty. */
  metadata?: JsonObject;
}
