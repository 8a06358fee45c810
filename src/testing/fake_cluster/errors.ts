/**
 * API errors as Kubernetes `Status` objects: every failure the fake API server reports
 * travels as one of these, with the code, reason and message a real server would use.
 *
 * @module
 */
import type { JsonObject, RawStatus } from "../../structs/bodies.ts";

/** The reasons of `Status` objects, keyed by HTTP code, for the common cases. */
const REASONS: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  406: "NotAcceptable",
  409: "Conflict",
  410: "Expired",
  413: "RequestEntityTooLarge",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

/** A failed API call, carrying the `Status` to answer with. */
export class ApiError extends Error {
  /** The HTTP status code. */
  readonly code: number;
  /** The machine-readable reason, e.g. `NotFound`. */
  readonly reason: string;
  /** Extra details: name, group, kind, causes. */
  readonly details?: JsonObject;
  /** Extra response headers, e.g. `Retry-After`. */
  readonly headers: Record<string, string>;

  constructor(
    code: number,
    message: string,
    options: { reason?: string; details?: JsonObject; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.reason = options.reason ?? REASONS[code] ?? (code >= 500 ? "InternalError" : "");
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  /** The Kubernetes `Status` object for this error. */
  toStatus(): RawStatus {
    return statusOf(this.code, this.message, this.reason, this.details);
  }
}

/** A `Status` object with the given code, message, reason and details. */
export function statusOf(
  code: number,
  message: string,
  reason?: string,
  details?: JsonObject,
): RawStatus {
  const status: RawStatus = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: code < 400 ? "Success" : "Failure",
    message,
    reason: reason ?? REASONS[code] ?? "",
    code,
  };
  if (details) status.details = details;
  return status;
}

/** Identifies an object in `Status.details`: its name, group and kind (plural). */
export interface ObjectIdentity {
  name: string;
  group: string;
  plural: string;
}

function detailsOf(id: ObjectIdentity): JsonObject {
  const details: JsonObject = { name: id.name, kind: id.plural };
  if (id.group) details.group = id.group;
  return details;
}

function qualified(id: ObjectIdentity): string {
  return id.group ? `${id.plural}.${id.group}` : id.plural;
}

/** 404: the object does not exist. */
export function notFound(id: ObjectIdentity): ApiError {
  return new ApiError(404, `${qualified(id)} "${id.name}" not found`, { details: detailsOf(id) });
}

/** 409: the object exists already. */
export function alreadyExists(id: ObjectIdentity): ApiError {
  return new ApiError(409, `${qualified(id)} "${id.name}" already exists`, {
    reason: "AlreadyExists",
    details: detailsOf(id),
  });
}

/** 409: the object was modified since the given resourceVersion. */
export function conflict(id: ObjectIdentity, why: string): ApiError {
  return new ApiError(
    409,
    `Operation cannot be fulfilled on ${qualified(id)} "${id.name}": ${why}`,
    { reason: "Conflict", details: detailsOf(id) },
  );
}

/** One field-level problem of an invalid object. */
export interface Cause {
  /** The dotted path of the field, e.g. `metadata.name`. */
  field: string;
  /** What is wrong with it. */
  message: string;
  /** The kind of problem, e.g. `FieldValueRequired`. */
  reason?: string;
}

/**
 * 422: the object is invalid, with one cause per bad field. `kind` is named as the message
 * names it, `Kind` or qualified as `Kind.group`; the details carry the bare kind.
 */
export function invalid(kind: string, id: ObjectIdentity, causes: Cause[]): ApiError {
  const text = causes.map((c) => `${c.field}: ${c.message}`).join(", ");
  const details = detailsOf(id);
  details.kind = kind.split(".", 1)[0];
  details.causes = causes.map((c) => ({
    reason: c.reason ?? "FieldValueInvalid",
    message: c.message,
    field: c.field,
  }));
  return new ApiError(422, `${kind} "${id.name}" is invalid: ${text}`, { details });
}

/** 400: the request itself is malformed. */
export function badRequest(message: string): ApiError {
  return new ApiError(400, message);
}
