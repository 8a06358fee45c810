/**
 * Typed errors of Kubernetes API calls. A 4xx response fails at once with the class
 * of its status code, carrying the server's `Status` (reason, message, details); 5xx
 * and 429 responses and network failures end up here only after all retries, or at once
 * when sending the request again would not be safe (see `retry_policy.ts`).
 *
 * @module
 */
import type { JsonObject, RawStatus } from "../structs/bodies.ts";

/** Where a failed API call was going. */
export interface APIErrorContext {
  /** The HTTP method, e.g. `PATCH`. */
  method: string;
  /** The path and query of the request, e.g. `/api/v1/namespaces/default/pods`. */
  path: string;
}

/** A Kubernetes API call answered with an error status. */
export class APIError extends Error {
  /** The error class name. */
  override name = "APIError";
  /** The HTTP status code. */
  readonly code: number;
  /** The `Status` object from the response (or one built from the status line). */
  readonly status: RawStatus;
  /** The HTTP method of the request. */
  readonly method: string;
  /** The path and query of the request. */
  readonly path: string;

  /** Build the error from the response's status; prefer {@link apiErrorFor}. */
  constructor(code: number, status: RawStatus, context: APIErrorContext) {
    const why = [status.reason, status.message].filter((s) => s).join(": ");
    super(`${context.method} ${context.path} failed with HTTP ${code}${why ? ` (${why})` : ""}.`);
    this.code = code;
    this.status = status;
    this.method = context.method;
    this.path = context.path;
  }

  /** The machine-readable reason, e.g. `NotFound`, `AlreadyExists`, `Conflict`. */
  get reason(): string | undefined {
    return this.status.reason;
  }

  /** The server's explanation alone, without the request line. */
  get statusMessage(): string | undefined {
    return this.status.message;
  }

  /** Details of the failure: the object's name, group, kind, and field-level causes. */
  get details(): JsonObject | undefined {
    return this.status.details;
  }
}

/** A 4xx response: the request itself is wrong and is not retried. */
export class APIClientError extends APIError {
  /** The error class name. */
  override name = "APIClientError";
}

/** HTTP 400: the request is malformed. */
export class APIBadRequestError extends APIClientError {
  /** The error class name. */
  override name = "APIBadRequestError";
}

/** HTTP 401: the credentials were rejected. */
export class APIUnauthorizedError extends APIClientError {
  /** The error class name. */
  override name = "APIUnauthorizedError";
}

/** HTTP 403: the credentials lack the permission (RBAC) for this request. */
export class APIForbiddenError extends APIClientError {
  /** The error class name. */
  override name = "APIForbiddenError";
}

/** HTTP 404: the object, the namespace or the resource does not exist. */
export class APINotFoundError extends APIClientError {
  /** The error class name. */
  override name = "APINotFoundError";
}

/** HTTP 405: the resource does not support this verb. */
export class APIMethodNotAllowedError extends APIClientError {
  /** The error class name. */
  override name = "APIMethodNotAllowedError";
}

/** HTTP 409: a conflict — the object exists already, or was changed meanwhile. */
export class APIConflictError extends APIClientError {
  /** The error class name. */
  override name = "APIConflictError";
}

/** HTTP 410: the requested resourceVersion is too old for a watch or a list. */
export class APIGoneError extends APIClientError {
  /** The error class name. */
  override name = "APIGoneError";
}

/** HTTP 415: the patch type or content type is not supported for this resource. */
export class APIUnsupportedMediaTypeError extends APIClientError {
  /** The error class name. */
  override name = "APIUnsupportedMediaTypeError";
}

/** HTTP 422: the object is invalid (schema validation, immutable fields, admission). */
export class APIUnprocessableError extends APIClientError {
  /** The error class name. */
  override name = "APIUnprocessableError";
}

/** HTTP 429: too many requests, still after all retries. */
export class APITooManyRequestsError extends APIClientError {
  /** The error class name. */
  override name = "APITooManyRequestsError";
}

/** A 5xx response, still after all retries. */
export class APIServerError extends APIError {
  /** The error class name. */
  override name = "APIServerError";
}

/** The API server could not be reached or the connection broke, after all retries. */
export class APIConnectionError extends Error {
  /** The error class name. */
  override name = "APIConnectionError";
  /** The HTTP method of the request. */
  readonly method: string;
  /** The path and query of the request. */
  readonly path: string;
  /** Build the error; the underlying failure goes into `cause`. */
  constructor(message: string, context: APIErrorContext, options?: { cause?: unknown }) {
    super(message, options);
    this.method = context.method;
    this.path = context.path;
  }
}

/**
 * A successful response whose body is not JSON: the server is not (only) the Kubernetes
 * API, e.g. a proxy or a login page in front of it answers instead. Not retried.
 */
export class APIResponseError extends Error {
  /** The error class name. */
  override name = "APIResponseError";
  /** The HTTP status code of the response. */
  readonly code: number;
  /** The response body as received. */
  readonly body: string;
  /** The HTTP method of the request. */
  readonly method: string;
  /** The path and query of the request. */
  readonly path: string;

  /** Build the error from the response; the parsing failure goes into `cause`. */
  constructor(
    code: number,
    body: string,
    context: APIErrorContext,
    options?: { cause?: unknown },
  ) {
    const snippet = body.replace(/\s+/g, " ").trim().slice(0, 120);
    super(
      `${context.method} ${context.path} answered with a body that is not JSON: ${snippet}; ` +
        "check that the server URL points at the Kubernetes API itself, not at a proxy or a web page.",
      options,
    );
    this.code = code;
    this.body = body;
    this.method = context.method;
    this.path = context.path;
  }
}

/** The API server's certificate could not be verified: a wrong or missing CA. */
export class APICertificateError extends APIConnectionError {
  /** The error class name. */
  override name = "APICertificateError";
}

/** A request did not finish within its timeout, after all retries. */
export class APITimeoutError extends APIConnectionError {
  /** The error class name. */
  override name = "APITimeoutError";
}

/**
 * A request may have reached the server, but its answer was lost (the connection broke, or
 * no answer came in time), and sending it again would not be safe: it may or may not have
 * taken effect. Read the object to see. Thrown at once, without retries, for requests that
 * are not idempotent (a `POST`, a `PUT` without `metadata.resourceVersion`, a JSON patch
 * with `test`, `move`, `copy`, `remove` or insertions into arrays).
 */
export class APIOutcomeUnknownError extends APIConnectionError {
  /** The error class name. */
  override name = "APIOutcomeUnknownError";
}

const CLASSES: Record<number, typeof APIClientError> = {
  400: APIBadRequestError,
  401: APIUnauthorizedError,
  403: APIForbiddenError,
  404: APINotFoundError,
  405: APIMethodNotAllowedError,
  409: APIConflictError,
  410: APIGoneError,
  415: APIUnsupportedMediaTypeError,
  422: APIUnprocessableError,
  429: APITooManyRequestsError,
};

/** The typed error for an error response: the class is chosen by the status code. */
export function apiErrorFor(code: number, status: RawStatus, context: APIErrorContext): APIError {
  const cls = CLASSES[code] ??
    (code >= 500 ? APIServerError : code >= 400 ? APIClientError : APIError);
  return new cls(code, status, context);
}

/**
 * The `Status` carried by an error response body, or one made from the status line when
 * the body is not a `Status` (proxies and load balancers answer with HTML or text).
 */
export function statusFromBody(code: number, statusText: string, text: string): RawStatus {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === "object" && (parsed as RawStatus).kind === "Status") {
      return parsed as RawStatus;
    }
  } catch {
    // Not JSON: fall through to a status made from the response line.
  }
  const snippet = text.replace(/\s+/g, " ").trim().slice(0, 200);
  return {
    kind: "Status",
    status: "Failure",
    code,
    reason: statusText || undefined,
    message: snippet || undefined,
  };
}
