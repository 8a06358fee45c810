/**
 * The `AdmissionReview` (`admission.k8s.io/v1`) exchanged between the API server and an
 * admission webhook: what the operator's webhook engine reads and answers, and what the
 * fake cluster sends and checks. One definition for both sides, so they cannot drift.
 *
 * @module
 */
import type { JsonObject } from "./bodies.ts";

/** The only version of admission reviews that the API server sends and accepts. */
export const ADMISSION_REVIEW_API_VERSION = "admission.k8s.io/v1";

/** An admission operation, as sent by the API server. */
export type AdmissionOperation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/** A kind with its API group and version; the core group is `""`. */
export interface GroupVersionKind {
  /** The API group. */
  group: string;
  /** The API version. */
  version: string;
  /** The kind, e.g. `Deployment`. */
  kind: string;
}

/** A resource with its API group and version; the core group is `""`. */
export interface GroupVersionResource {
  /** The API group. */
  group: string;
  /** The API version. */
  version: string;
  /** The plural resource name, e.g. `deployments`. */
  resource: string;
}

/** Who made the request being admitted. */
export interface AdmissionUserInfo {
  /** The user name. */
  username?: string;
  /** The user's unique id. */
  uid?: string;
  /** The groups the user belongs to. */
  groups?: string[];
  /** Further information from the authenticator. */
  extra?: Record<string, string[]>;
}

/** The request being admitted: `request` of an `AdmissionReview`. */
export interface AdmissionReviewRequest {
  /** The id of this review; the response must carry it back. */
  uid: string;
  /** The kind of the object as written. */
  kind: GroupVersionKind;
  /** The resource being written. */
  resource: GroupVersionResource;
  /** The subresource being written (e.g. `status`), if any. */
  subResource?: string;
  /** The kind as originally requested, if the request was converted. */
  requestKind?: GroupVersionKind;
  /** The resource as originally requested, if the request was converted. */
  requestResource?: GroupVersionResource;
  /** The subresource as originally requested. */
  requestSubResource?: string;
  /** The object's name (may be empty for `generateName` creations). */
  name?: string;
  /** The object's namespace; absent for cluster-scoped objects. */
  namespace?: string;
  /** What is being done. */
  operation: AdmissionOperation;
  /** Who is doing it. */
  userInfo: AdmissionUserInfo;
  /** The new object (absent or `null` on deletion). */
  object?: JsonObject | null;
  /** The current object (on updates and deletions). */
  oldObject?: JsonObject | null;
  /** Whether nothing will be persisted. */
  dryRun?: boolean;
  /** The operation's options, e.g. `CreateOptions`. */
  options?: JsonObject | null;
}

/** An `AdmissionReview` with a request, as the API server posts it to a webhook. */
export interface AdmissionReviewRequestBody {
  /** {@link ADMISSION_REVIEW_API_VERSION}. */
  apiVersion: string;
  /** `AdmissionReview`. */
  kind: string;
  /** The request being admitted. */
  request: AdmissionReviewRequest;
}

/** An `AdmissionReview` with a verdict, as a webhook returns it to the API server. */
export interface AdmissionReviewResponse {
  /** {@link ADMISSION_REVIEW_API_VERSION}, or as in the request. */
  apiVersion: string;
  /** `AdmissionReview`. */
  kind: string;
  /** The verdict: `response` of an `AdmissionReview`. */
  response: {
    /** The request's uid. */
    uid: string;
    /** Whether the request is admitted. */
    allowed: boolean;
    /** Why not: the message and HTTP code shown to the client. */
    status?: { message?: string; code?: number; reason?: string };
    /** Warnings shown to the client. */
    warnings?: string[];
    /** The base64-encoded JSON Patch of a mutating webhook. */
    patch?: string;
    /** `JSONPatch` when there is a patch. */
    patchType?: "JSONPatch";
  };
}

/** The verdict: `response` of an `AdmissionReview`. */
export type AdmissionReviewVerdict = AdmissionReviewResponse["response"];
