/**
 * Raw shapes of Kubernetes objects and watch events, as they travel over the wire.
 *
 * @module
 */

/** Any JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

/** A JSON object. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/** The `metadata` of a Kubernetes object, with the commonly used fields typed. */
export interface RawMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: JsonObject[];
  [key: string]: JsonValue | undefined;
}

/** A Kubernetes object as received from or sent to the API. */
export interface RawBody {
  apiVersion?: string;
  kind?: string;
  metadata?: RawMeta;
  spec?: JsonValue;
  status?: JsonValue;
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

/** A Kubernetes `Status` object, as carried by API errors. */
export interface RawStatus {
  apiVersion?: string;
  kind?: "Status";
  status?: "Success" | "Failure";
  message?: string;
  reason?: string;
  code?: number;
  details?: JsonObject;
  metadata?: JsonObject;
}
