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

/**
 * A `Status` object with the given code, message, reason and details, its fields in the
 * order Go's encoding/json writes metav1.Status (kind, apiVersion, metadata, status,
 * message, reason, details, code), the empty ones left out as their `omitempty` tags say.
 * A code of 0 is left out too: a deletion's Status carries none (the generic registry's
 * `Store.finalizeDelete` in apiserver/pkg/registry/generic/registry/store.go).
 */
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
  };
  if (message) status.message = message;
  const why = reason ?? REASONS[code] ?? "";
  if (why) status.reason = why;
  if (details) status.details = orderedDetails(details);
  if (code) status.code = code;
  return status;
}

/** metav1.StatusDetails' fields, in the order of the Go struct. */
const DETAIL_FIELDS = ["name", "group", "kind", "uid", "causes", "retryAfterSeconds"];
/** metav1.StatusCause's fields, in the order of the Go struct. */
const CAUSE_FIELDS = ["reason", "message", "field"];

function ordered(object: JsonObject, fields: readonly string[]): JsonObject {
  const result: JsonObject = {};
  for (const field of fields) if (object[field] !== undefined) result[field] = object[field];
  for (const [field, value] of Object.entries(object)) {
    if (!(field in result) && value !== undefined) result[field] = value;
  }
  return result;
}

/** Details as apimachinery writes them: struct order, causes too. */
function orderedDetails(details: JsonObject): JsonObject {
  const result = ordered(details, DETAIL_FIELDS);
  if (Array.isArray(result.causes)) {
    result.causes = result.causes.map((cause) =>
      cause && typeof cause === "object" && !Array.isArray(cause)
        ? ordered(cause, CAUSE_FIELDS)
        : cause
    );
  }
  return result;
}

/** Identifies an object in `Status.details`: its name, group and kind (plural). */
export interface ObjectIdentity {
  name: string;
  group: string;
  plural: string;
}

function detailsOf(id: ObjectIdentity): JsonObject {
  const details: JsonObject = { name: id.name };
  if (id.group) details.group = id.group;
  details.kind = id.plural;
  return details;
}

function qualified(id: ObjectIdentity): string {
  return id.group ? `${id.plural}.${id.group}` : id.plural;
}

/** 404: the object does not exist. */
export function notFound(id: ObjectIdentity): ApiError {
  return new ApiError(404, `${qualified(id)} "${id.name}" not found`, { details: detailsOf(id) });
}

/**
 * 403: the request may not be done to this object, as `NewForbidden` words it (the
 * object's name left out of the message when there is none).
 */
export function forbidden(id: ObjectIdentity, cause: string): ApiError {
  const what = id.name ? `${qualified(id)} "${id.name}"` : qualified(id);
  return new ApiError(403, `${what} is forbidden: ${cause}`, {
    reason: "Forbidden",
    details: detailsOf(id),
  });
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
  const text = aggregated(causes.map((c) => `${c.field}: ${c.message}`));
  const details = detailsOf(id);
  details.kind = kind.split(".", 1)[0];
  details.causes = causes.map((c) => ({
    reason: c.reason ?? "FieldValueInvalid",
    message: c.message,
    field: c.field,
  }));
  return new ApiError(422, `${kind} "${id.name}" is invalid: ${text}`, { details });
}

/**
 * Messages joined as apimachinery's error aggregate writes them (`ToAggregate().Error()` in
 * apimachinery/pkg/util/errors/errors.go): repeats dropped, and more than one in brackets.
 */
export function aggregated(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length > 1 ? `[${unique.join(", ")}]` : unique.join("");
}

/** 400: the request itself is malformed. */
export function badRequest(message: string): ApiError {
  return new ApiError(400, message);
}
