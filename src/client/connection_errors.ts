/**
 * Failures of Kubernetes API calls that carry no `Status` of the server: the connection
 * failed or timed out, the server's certificate was refused, a write's outcome is unknown,
 * or the response was not JSON. They end up here only after all retries, or at once when
 * sending the request again would not be safe (see `retry_policy.ts`).
 *
 * @module
 */
import type { APIErrorContext } from "./api_errors.ts";

/**
 * The API server could not be reached or the connection broke, after all retries.
 *
 * @example An unreachable cluster in a script: one line instead of a stack trace
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { ApiClient, getObject, Vault } from "@kopf/kopf/client";
 *
 * const vault = new Vault({ relogin: async () => ({ main: await kopf.loginWithDefaults() }) });
 * const api = new ApiClient(vault);
 * const namespaces = new kopf.Resource({ group: "", version: "v1", plural: "namespaces" });
 *
 * try {
 *   await getObject(api, namespaces, { name: "default" });
 * } catch (error) {
 *   if (!(error instanceof kopf.APIConnectionError)) throw error;
 *   console.error(`The cluster cannot be reached: ${error.message}`);
 * }
 * ```
 */
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
 *
 * @example A server URL that points at a web page or a proxy rather than the API
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { ApiClient, getObject, Vault } from "@kopf/kopf/client";
 *
 * const vault = new Vault({ relogin: async () => ({ main: await kopf.loginWithDefaults() }) });
 * const api = new ApiClient(vault);
 * const namespaces = new kopf.Resource({ group: "", version: "v1", plural: "namespaces" });
 *
 * try {
 *   await getObject(api, namespaces, { name: "default" });
 * } catch (error) {
 *   if (!(error instanceof kopf.APIResponseError)) throw error;
 *   console.error(`Not the Kubernetes API (HTTP ${error.code}): ${error.body.slice(0, 80)}`);
 * }
 * ```
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

/**
 * The API server's certificate could not be verified: a wrong or missing CA.
 *
 * @example Name the likely fix when the cluster's certificate is not trusted
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { ApiClient, getObject, Vault } from "@kopf/kopf/client";
 *
 * const vault = new Vault({ relogin: async () => ({ main: await kopf.loginWithDefaults() }) });
 * const api = new ApiClient(vault);
 * const namespaces = new kopf.Resource({ group: "", version: "v1", plural: "namespaces" });
 *
 * try {
 *   await getObject(api, namespaces, { name: "default" });
 * } catch (error) {
 *   if (!(error instanceof kopf.APICertificateError)) throw error;
 *   console.error(`${error.message}: check certificate-authority-data in the kubeconfig`);
 * }
 * ```
 */
export class APICertificateError extends APIConnectionError {
  /** The error class name. */
  override name = "APICertificateError";
}

/**
 * A request did not finish within its timeout, after all retries.
 *
 * @example A slow call in a handler: retried sooner than the default backoff
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { ApiClient, listObjects, Vault } from "@kopf/kopf/client";
 *
 * const vault = new Vault({ relogin: async () => ({ main: await kopf.loginWithDefaults() }) });
 * const api = new ApiClient(vault);
 * const pods = new kopf.Resource({ group: "", version: "v1", plural: "pods", namespaced: true });
 *
 * kopf.timer("kopfexamples", { interval: 60 }, async ({ namespace }) => {
 *   try {
 *     return { pods: (await listObjects(api, pods, { namespace })).items.length };
 *   } catch (error) {
 *     if (!(error instanceof kopf.APITimeoutError)) throw error;
 *     throw new kopf.TemporaryError("listing the pods timed out", { delay: 10 });
 *   }
 * });
 * ```
 */
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
 *
 * @example Read the object when a guarded change's answer was lost
 * ```ts
 * import { kopf } from "@kopf/kopf";
 * import { type ApiClient, getObject, patchObject } from "@kopf/kopf/client";
 *
 * async function release(api: ApiClient, resource: kopf.Resource, name: string, rv: string) {
 *   const guarded = [
 *     { op: "test" as const, path: "/metadata/resourceVersion", value: rv },
 *     { op: "remove" as const, path: "/metadata/finalizers/0" },
 *   ];
 *   try {
 *     await patchObject(api, resource, { name, namespace: "default" }, guarded, { type: "json" });
 *   } catch (error) {
 *     if (!(error instanceof kopf.APIOutcomeUnknownError)) throw error;
 *     const now = await getObject(api, resource, { name, namespace: "default" });
 *     console.log(`the finalizers now: ${JSON.stringify(now.metadata?.finalizers ?? [])}`);
 *   }
 * }
 * ```
 */
export class APIOutcomeUnknownError extends APIConnectionError {
  /** The error class name. */
  override name = "APIOutcomeUnknownError";
}
