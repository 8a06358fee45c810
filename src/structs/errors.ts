/**
 * The errors that handlers raise to steer retries, and those the framework reports
 * (including the failed logins of the client and the login activity, and the
 * {@link KopfError} family about the framework's own configuration and use).
 *
 * @module
 */

/** The default delay of a {@link TemporaryError}, in seconds. */
export const DEFAULT_TEMPORARY_DELAY = 60;

/**
 * A failure that may heal with time: the handler is retried after `delay` seconds.
 *
 * @example Wait for a dependency instead of failing: retried in 30 seconds
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.create("kopfexamples", async ({ spec }) => {
 *   const response = await fetch(`https://example.com/databases/${spec.database}`);
 *   if (response.status === 404) {
 *     throw new kopf.TemporaryError("the database does not exist yet", { delay: 30 });
 *   }
 * });
 * ```
 */
export class TemporaryError extends Error {
  /** The error class name. */
  override name = "TemporaryError";
  /** Seconds to wait before the retry, or `null` to retry at once. */
  readonly delay: number | null;

  /** Raise it to retry the handler later (in `delay` seconds, 60 by default). */
  constructor(message: string = "", options: {
    /** Seconds to wait before the retry; `null` or `0` retries at once. Default: 60. */
    delay?: number | null;
    /** The underlying error, if any. */
    cause?: unknown;
  } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    const delay = options.delay === undefined ? DEFAULT_TEMPORARY_DELAY : options.delay;
    if (delay !== null && !(typeof delay === "number" && Number.isFinite(delay) && delay >= 0)) {
      throw new TypeError(
        `TemporaryError delay must be a number of seconds \u2265 0 or null, got ${String(delay)}.`,
      );
    }
    this.delay = delay;
  }
}

/**
 * A failure that will not heal: the handler is not retried and is marked as failed.
 *
 * @example Give up on an object whose spec cannot work, with the reason in its status
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.create("kopfexamples", ({ spec }) => {
 *   if (typeof spec.size !== "number" || spec.size <= 0) {
 *     throw new kopf.PermanentError(`spec.size must be a positive number, not ${spec.size}`);
 *   }
 * });
 * ```
 */
export class PermanentError extends Error {
  /** The error class name. */
  override name = "PermanentError";

  /** Raise it to fail the handler for good. */
  constructor(message: string = "", options: {
    /** The underlying error, if any. */
    cause?: unknown;
  } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
}

/**
 * The handler ran past its `timeout`; it is failed for good.
 *
 * @example Tell a timeout apart from other failures when the handler gives up itself
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.create("kopfexamples", { timeout: 600 }, async ({ runtime, name }) => {
 *   // The option fails the handler after 10 minutes; this stops a slow check earlier.
 *   if (runtime > 300) throw new kopf.HandlerTimeoutError(`${name} did not become ready in 5m`);
 *   const ready = await fetch(`https://example.com/ready/${name}`);
 *   if (!ready.ok) throw new kopf.TemporaryError("not ready yet", { delay: 15 });
 * });
 * ```
 */
export class HandlerTimeoutError extends PermanentError {
  /** The error class name. */
  override name = "HandlerTimeoutError";
}

/**
 * The handler failed more often than its `retries` allow; it is failed for good.
 *
 * @example Stop after a few attempts counted by the handler itself
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.update("kopfexamples", async ({ retry, name }) => {
 *   if (retry >= 5) throw new kopf.HandlerRetriesError(`${name}: the backend refused 5 times`);
 *   const response = await fetch(`https://example.com/sync/${name}`, { method: "POST" });
 *   if (!response.ok) throw new kopf.TemporaryError(`HTTP ${response.status}`, { delay: 10 });
 * });
 * ```
 */
export class HandlerRetriesError extends PermanentError {
  /** The error class name. */
  override name = "HandlerRetriesError";
}

/**
 * Rejects an admission request with this message and status code.
 *
 * @example Deny a deletion while the object is still in use
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.validate("kopfexamples", { operation: "DELETE" }, ({ old }) => {
 *   if (old?.status?.users !== undefined) {
 *     throw new kopf.AdmissionError("the object is still in use", { code: 409 });
 *   }
 * });
 * ```
 */
export class AdmissionError extends PermanentError {
  /** The error class name. */
  override name = "AdmissionError";
  /** The HTTP status code of the admission response. */
  readonly code: number;

  /** Raise it from a validating or mutating handler to deny the request. */
  constructor(message: string = "", options: {
    /** The HTTP status code returned to the API server. Default: 500. */
    code?: number;
    /** The underlying error, if any. */
    cause?: unknown;
  } = {}) {
    super(message, { cause: options.cause });
    const code = options.code ?? 500;
    if (!Number.isInteger(code) || code < 100 || code > 599) {
      throw new TypeError(`AdmissionError code must be an HTTP status 100\u2013599, got ${code}.`);
    }
    this.code = code;
  }
}

/** What to do with errors other than {@link TemporaryError} and {@link PermanentError}. */
export type ErrorsMode = "temporary" | "permanent" | "ignored";

/**
 * The values of {@link ErrorsMode}, by name.
 *
 * @example Fail at once on unexpected errors instead of retrying them
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.create("kopfexamples", { errors: kopf.ErrorsMode.PERMANENT }, ({ spec }) => {
 *   JSON.parse(String(spec.config)); // a broken config will not mend itself
 * });
 * ```
 */
export const ErrorsMode: {
  /** Retry arbitrary errors after the handler's `backoff` (the default). */
  readonly TEMPORARY: "temporary";
  /** Fail the handler for good on an arbitrary error. */
  readonly PERMANENT: "permanent";
  /** Log arbitrary errors and treat the handler as done. */
  readonly IGNORED: "ignored";
} = Object.freeze({ TEMPORARY: "temporary", PERMANENT: "permanent", IGNORED: "ignored" });

/**
 * The operator cannot log in to the Kubernetes API: a login source is broken (e.g. an
 * unreadable kubeconfig), or no login produced usable credentials.
 *
 * @example Fail the login clearly when the credentials are not there
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.login(async () => {
 *   const token = await Deno.readTextFile("/etc/operator/token").catch(() => "");
 *   if (token.trim() === "") throw new kopf.LoginError("/etc/operator/token is missing or empty");
 *   return { server: "https://k8s.example.com:6443", token: token.trim() };
 * });
 * ```
 */
export class LoginError extends Error {
  /** The error class name. */
  override name = "LoginError";
}

/**
 * The base of the errors the framework raises about its own use: bad configuration,
 * calls where they cannot work, unreadable state. Catch it to tell them apart from
 * failures of the handlers' own code and of the cluster; the handler-steering errors
 * ({@link TemporaryError}, {@link PermanentError}) are not among them.
 *
 * @example Report a misuse of the framework apart from other failures
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * try {
 *   await kopf.operator({ namespaces: ["default"] });
 * } catch (error) {
 *   if (!(error instanceof kopf.KopfError)) throw error;
 *   console.error(`The operator is set up wrongly: ${error.message}`);
 *   Deno.exit(2);
 * }
 * ```
 */
export class KopfError extends Error {
  /** The error class name. */
  override name = "KopfError";
}

/**
 * The framework is configured in a way that cannot work: settings, options, storages,
 * certificates, webhook servers, kubeconfig contents, state files. The message names
 * the value and what to give instead.
 *
 * @example Settings from the command line, refused with the value named
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * try {
 *   const settings = new kopf.OperatorSettings({
 *     batching: { workerLimit: Number(Deno.args[0] ?? "20") },
 *   });
 *   await kopf.operator({ settings, namespaces: ["default"] });
 * } catch (error) {
 *   if (!(error instanceof kopf.ConfigurationError)) throw error;
 *   console.error(error.message); // e.g. says that workerLimit must be a positive integer
 *   Deno.exit(2);
 * }
 * ```
 */
export class ConfigurationError extends KopfError {
  /** The error class name. */
  override name = "ConfigurationError";
}

/**
 * A framework function is called where it cannot work (e.g. posting an event outside
 * a running operator, adopting without an owner outside a handler), or the command
 * line is wrong. The message says where or how to call it instead.
 *
 * @example A helper that posts events only when a handler calls it
 * ```ts
 * import { kopf, type ObjectLike } from "@kopf/kopf";
 *
 * export function reportProgress(obj: ObjectLike, message: string): void {
 *   try {
 *     kopf.info(obj, { reason: "Progress", message });
 *   } catch (error) {
 *     if (!(error instanceof kopf.UsageError)) throw error;
 *     console.log(message); // called from a script, not from an operator
 *   }
 * }
 * ```
 */
export class UsageError extends KopfError {
  /** The error class name. */
  override name = "UsageError";
}

/**
 * A certificate, key or CA given as PEM (or the options to issue one) cannot be used:
 * not PEM, not X.509, not a CA, not an ECDSA P-256 PKCS#8 key, bad names or validity.
 *
 * @example Fall back to a generated certificate when the given one is unusable
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * kopf.on.startup(({ settings }) => {
 *   settings.admission.server = new kopf.WebhookServer({ certfile: "/etc/webhook/tls.crt" });
 * });
 * try {
 *   await kopf.operator({ namespaces: ["default"] });
 * } catch (error) {
 *   if (!(error instanceof kopf.CertificateError)) throw error;
 *   console.error(`The webhook certificate cannot be used: ${error.message}`);
 * }
 * ```
 */
export class CertificateError extends ConfigurationError {
  /** The error class name. */
  override name = "CertificateError";
}

/**
 * State the framework keeps on an object (a progress record, the last-handled
 * configuration) cannot be read back, e.g. an annotation edited by hand. The message
 * names the object and the field to fix or delete.
 *
 * @example A progress storage that forgets a record edited by hand instead of failing
 * ```ts
 * import { kopf, type ProgressFetchArgs, type ProgressRecord } from "@kopf/kopf";
 *
 * class ForgivingStorage extends kopf.AnnotationsProgressStorage {
 *   override fetch(args: ProgressFetchArgs): ProgressRecord | null {
 *     try {
 *       return super.fetch(args);
 *     } catch (error) {
 *       if (error instanceof kopf.StoredStateError) return null; // start that handler anew
 *       throw error;
 *     }
 *   }
 * }
 * kopf.on.startup(({ settings }) => {
 *   settings.persistence.progressStorage = new ForgivingStorage();
 * });
 * ```
 */
export class StoredStateError extends KopfError {
  /** The error class name. */
  override name = "StoredStateError";
}
