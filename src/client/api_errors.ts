/**
 * Typed errors of Kubernetes API calls answered with an error status. A 4xx response
 * fails at once with the class of its status code, carrying the server's `Status`
 * (reason, message, details); 5xx and 429 responses end up here only after all retries,
 * or at once when sending the request again would not be safe (see `retry_policy.ts`).
 * Failures without a status (the network, certificates) are in `connection_errors.ts`.
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

/**
 * A Kubernetes API call answered with an error status.
 *
 * @example Log the server's reason for any failed call of a handler
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { ApiClient, getObject, Vault } from "@kopf/kopf/client";
 *
 * const vault = new Vault({ relogin: async () => ({ main: await kopf.loginWithDefaults() }) });
 * const api = new ApiClient(vault);
 * const configmaps = new kopf.Resource({
 *   group: "",
 *   version: "v1",
 *   plural: "configmaps",
 *   namespaced: true,
 * });
 *
 * kopf.on.create("kopfexamples", async ({ spec, namespace, logger }) => {
 *   try {
 *     await getObject(api, configmaps, { namespace, name: String(spec.configMap) });
 *   } catch (error) {
 *     if (!(error instanceof kopf.APIError)) throw error;
 *     logger.warning(`HTTP ${error.code} ${error.reason}: ${error.statusMessage}`);
 *     throw error;
 *   }
 * });
 * ```
 */
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

/**
 * A 4xx response: the request itself is wrong and is not retried.
 *
 * @example A request the server refuses will be refused again: fail for good
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { ApiClient, createObject, Vault } from "@kopf/kopf/client";
 *
 * const vault = new Vault({ relogin: async () => ({ main: await kopf.loginWithDefaults() }) });
 * const api = new ApiClient(vault);
 * const configmaps = new kopf.Resource({
 *   group: "",
 *   version: "v1",
 *   plural: "configmaps",
 *   namespaced: true,
 * });
 *
 * kopf.on.create("kopfexamples", async ({ name, namespace }) => {
 *   try {
 *     await createObject(api, configmaps, { metadata: { name: `${name}-config` } }, { namespace });
 *   } catch (error) {
 *     if (error instanceof kopf.APIClientError) throw new kopf.PermanentError(error.message);
 *     throw error; // anything else: retried
 *   }
 * });
 * ```
 */
export class APIClientError extends APIError {
  /** The error class name. */
  override name = "APIClientError";
}

/**
 * HTTP 400: the request is malformed.
 *
 * @example A label selector from the spec that the server cannot parse
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { ApiClient, listObjects, Vault } from "@kopf/kopf/client";
 *
 * const vault = new Vault({ relogin: async () => ({ main: await kopf.loginWithDefaults() }) });
 * const api = new ApiClient(vault);
 * const pods = new kopf.Resource({ group: "", version: "v1", plural: "pods", namespaced: true });
 *
 * kopf.on.create("kopfexamples", async ({ spec, namespace }) => {
 *   try {
 *     const labelSelector = String(spec.select);
 *     const found = await listObjects(api, pods, { namespace, labelSelector });
 *     return { pods: found.items.length };
 *   } catch (error) {
 *     if (!(error instanceof kopf.APIBadRequestError)) throw error;
 *     throw new kopf.PermanentError(`spec.select is not a label selector: ${error.statusMessage}`);
 *   }
 * });
 * ```
 */
export class APIBadRequestError extends APIClientError {
  /** The error class name. */
  override name = "APIBadRequestError";
}

/**
 * HTTP 401: the credentials were rejected.
 *
 * @example Credentials the cluster no longer accepts: retry after a new login
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { ApiClient, getObject, Vault } from "@kopf/kopf/client";
 *
 * const vault = new Vault({ relogin: async () => ({ main: await kopf.loginWithDefaults() }) });
 * const api = new ApiClient(vault);
 * const configmaps = new kopf.Resource({
 *   group: "",
 *   version: "v1",
 *   plural: "configmaps",
 *   namespaced: true,
 * });
 *
 * kopf.on.resume("kopfexamples", async ({ namespace, name }) => {
 *   try {
 *     await getObject(api, configmaps, { namespace, name: `${name}-config` });
 *   } catch (error) {
 *     if (!(error instanceof kopf.APIUnauthorizedError)) throw error;
 *     throw new kopf.TemporaryError("the token was rejected; wait for a new one", { delay: 60 });
 *   }
 * });
 * ```
 */
export class APIUnauthorizedError extends APIClientError {
  /** The error class name. */
  override name = "APIUnauthorizedError";
}

/**
 * HTTP 403: the credentials lack the permission (RBAC) for this request.
 *
 * @example Say which permission is missing instead of retrying forever
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { ApiClient, createObject, Vault } from "@kopf/kopf/client";
 *
 * const vault = new Vault({ relogin: async () => ({ main: await kopf.loginWithDefaults() }) });
 * const api = new ApiClient(vault);
 * const secrets = new kopf.Resource({
 *   group: "",
 *   version: "v1",
 *   plural: "secrets",
 *   namespaced: true,
 * });
 *
 * kopf.on.create("kopfexamples", { rbac: ["secrets:create"] }, async ({ name, namespace }) => {
 *   try {
 *     const secret = { metadata: { name }, stringData: { password: crypto.randomUUID() } };
 *     await createObject(api, secrets, secret, { namespace });
 *   } catch (error) {
 *     if (!(error instanceof kopf.APIForbiddenError)) throw error;
 *     throw new kopf.PermanentError("the operator may not create secrets: see `kopf manifests`");
 *   }
 * });
 * ```
 */
export class APIForbiddenError extends APIClientError {
  /** The error class name. */
  override name = "APIForbiddenError";
}

/**
 * HTTP 404: the object, the namespace or the resource does not exist.
 *
 * @example Treat a missing ConfigMap as empty configuration
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { ApiClient, getObject, Vault } from "@kopf/kopf/client";
 *
 * const vault = new Vault({ relogin: async () => ({ main: await kopf.loginWithDefaults() }) });
 * const api = new ApiClient(vault);
 * const configmaps = new kopf.Resource({
 *   group: "",
 *   version: "v1",
 *   plural: "configmaps",
 *   namespaced: true,
 * });
 *
 * kopf.on.create("kopfexamples", async ({ name, namespace }) => {
 *   let data: unknown = {};
 *   try {
 *     data = (await getObject(api, configmaps, { namespace, name: `${name}-config` })).data;
 *   } catch (error) {
 *     if (!(error instanceof kopf.APINotFoundError)) throw error;
 *   }
 *   return { configured: Object.keys(data ?? {}).length };
 * });
 * ```
 */
export class APINotFoundError extends APIClientError {
  /** The error class name. */
  override name = "APINotFoundError";
}

/**
 * HTTP 405: the resource does not support this verb.
 *
 * @example Skip the resources that do not allow deletions
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { ApiClient, deleteObject, Vault } from "@kopf/kopf/client";
 *
 * const vault = new Vault({ relogin: async () => ({ main: await kopf.loginWithDefaults() }) });
 * const api = new ApiClient(vault);
 *
 * kopf.on.delete("kopfexamples", async ({ spec, namespace, logger }) => {
 *   for (const plural of (spec.cleanup as string[] | undefined) ?? []) {
 *     const resource = new kopf.Resource({ group: "", version: "v1", plural, namespaced: true });
 *     try {
 *       await deleteObject(api, resource, { namespace, name: "leftover" });
 *     } catch (error) {
 *       if (!(error instanceof kopf.APIMethodNotAllowedError)) throw error;
 *       logger.info(`${plural} cannot be deleted: skipped`);
 *     }
 *   }
 * });
 * ```
 */
export class APIMethodNotAllowedError extends APIClientError {
  /** The error class name. */
  override name = "APIMethodNotAllowedError";
}

/**
 * HTTP 409: a conflict -- the object exists already, or was changed meanwhile.
 *
 * @example Creating a child that exists already is no failure
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { ApiClient, createObject, Vault } from "@kopf/kopf/client";
 *
 * const vault = new Vault({ relogin: async () => ({ main: await kopf.loginWithDefaults() }) });
 * const api = new ApiClient(vault);
 * const configmaps = new kopf.Resource({
 *   group: "",
 *   version: "v1",
 *   plural: "configmaps",
 *   namespaced: true,
 * });
 *
 * kopf.on.create("kopfexamples", async ({ name, namespace }) => {
 *   try {
 *     await createObject(api, configmaps, { metadata: { name: `${name}-config` } }, { namespace });
 *   } catch (error) {
 *     const exists = error instanceof kopf.APIConflictError && error.reason === "AlreadyExists";
 *     if (!exists) throw error;
 *   }
 * });
 * ```
 */
export class APIConflictError extends APIClientError {
  /** The error class name. */
  override name = "APIConflictError";
}

/**
 * HTTP 410: the requested resourceVersion is too old for a watch or a list.
 *
 * @example A listing that expires again and again on a busy cluster: try later
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { ApiClient, listObjects, Vault } from "@kopf/kopf/client";
 *
 * const vault = new Vault({ relogin: async () => ({ main: await kopf.loginWithDefaults() }) });
 * const api = new ApiClient(vault);
 * const events = new kopf.Resource({
 *   group: "",
 *   version: "v1",
 *   plural: "events",
 *   namespaced: true,
 * });
 *
 * kopf.timer("kopfexamples", { interval: 600 }, async ({ namespace }) => {
 *   try {
 *     return { events: (await listObjects(api, events, { namespace, limit: 50 })).items.length };
 *   } catch (error) {
 *     if (!(error instanceof kopf.APIGoneError)) throw error;
 *     throw new kopf.TemporaryError("the listing kept expiring", { delay: 60 });
 *   }
 * });
 * ```
 */
export class APIGoneError extends APIClientError {
  /** The error class name. */
  override name = "APIGoneError";
}

/**
 * HTTP 415: the patch type or content type is not supported for this resource.
 *
 * @example Custom resources take no strategic merge patches: merge instead
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { ApiClient, patchObject, Vault } from "@kopf/kopf/client";
 *
 * const vault = new Vault({ relogin: async () => ({ main: await kopf.loginWithDefaults() }) });
 * const api = new ApiClient(vault);
 *
 * kopf.on.update("kopfexamples", async ({ resource, spec, namespace }) => {
 *   const sibling = { namespace, name: String(spec.sibling) };
 *   const change = { metadata: { labels: { synced: "yes" } } };
 *   try {
 *     await patchObject(api, resource, sibling, change, { type: "strategic" });
 *   } catch (error) {
 *     if (!(error instanceof kopf.APIUnsupportedMediaTypeError)) throw error;
 *     await patchObject(api, resource, sibling, change, { type: "merge" });
 *   }
 * });
 * ```
 */
export class APIUnsupportedMediaTypeError extends APIClientError {
  /** The error class name. */
  override name = "APIUnsupportedMediaTypeError";
}

/**
 * HTTP 422: the object is invalid (schema validation, immutable fields, admission).
 *
 * @example The server's validation message, given to the user in the status
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { ApiClient, createObject, Vault } from "@kopf/kopf/client";
 *
 * const vault = new Vault({ relogin: async () => ({ main: await kopf.loginWithDefaults() }) });
 * const api = new ApiClient(vault);
 * const services = new kopf.Resource({
 *   group: "",
 *   version: "v1",
 *   plural: "services",
 *   namespaced: true,
 * });
 *
 * kopf.on.create("kopfexamples", async ({ spec, name, namespace }) => {
 *   const service = { metadata: { name }, spec: { ports: [{ port: Number(spec.port) }] } };
 *   try {
 *     await createObject(api, services, service, { namespace });
 *   } catch (error) {
 *     if (!(error instanceof kopf.APIUnprocessableError)) throw error;
 *     throw new kopf.PermanentError(`the service is invalid: ${error.statusMessage}`);
 *   }
 * });
 * ```
 */
export class APIUnprocessableError extends APIClientError {
  /** The error class name. */
  override name = "APIUnprocessableError";
}

/**
 * HTTP 429: too many requests, still after all retries.
 *
 * @example Back off for longer when the API server stays overloaded
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { ApiClient, getObject, Vault } from "@kopf/kopf/client";
 *
 * const vault = new Vault({ relogin: async () => ({ main: await kopf.loginWithDefaults() }) });
 * const api = new ApiClient(vault);
 * const configmaps = new kopf.Resource({
 *   group: "",
 *   version: "v1",
 *   plural: "configmaps",
 *   namespaced: true,
 * });
 *
 * kopf.on.update("kopfexamples", async ({ name, namespace }) => {
 *   try {
 *     await getObject(api, configmaps, { namespace, name: `${name}-config` });
 *   } catch (error) {
 *     if (!(error instanceof kopf.APITooManyRequestsError)) throw error;
 *     throw new kopf.TemporaryError("the API server is throttling us", { delay: 120 });
 *   }
 * });
 * ```
 */
export class APITooManyRequestsError extends APIClientError {
  /** The error class name. */
  override name = "APITooManyRequestsError";
}

/**
 * A 5xx response, still after all retries.
 *
 * @example A failing API server: retry the handler in a minute
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { ApiClient, patchObject, Vault } from "@kopf/kopf/client";
 *
 * const vault = new Vault({ relogin: async () => ({ main: await kopf.loginWithDefaults() }) });
 * const api = new ApiClient(vault);
 * const configmaps = new kopf.Resource({
 *   group: "",
 *   version: "v1",
 *   plural: "configmaps",
 *   namespaced: true,
 * });
 *
 * kopf.on.update("kopfexamples", async ({ name, namespace, spec }) => {
 *   const ref = { namespace, name: `${name}-config` };
 *   try {
 *     await patchObject(api, configmaps, ref, { data: { size: String(spec.size) } });
 *   } catch (error) {
 *     if (!(error instanceof kopf.APIServerError)) throw error;
 *     throw new kopf.TemporaryError(`the API server failed: HTTP ${error.code}`, { delay: 60 });
 *   }
 * });
 * ```
 */
export class APIServerError extends APIError {
  /** The error class name. */
  override name = "APIServerError";
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
