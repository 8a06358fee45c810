/**
 * The errors that handlers raise to steer retries, and those the framework reports
 * (including the failed logins of the client and the login activity, and the
 * {@link KopfError} family about the framework's own configuration and use).
 *
 * @module
 */

/** The default delay of a {@link TemporaryError}, in seconds. */
export const DEFAULT_TEMPORARY_DELAY = 60;

/** Options of a {@link TemporaryError}. */
export interface TemporaryErrorOptions {
  /** Seconds to wait before the retry; `null` or `0` retries at once. Default: 60. */
  delay?: number | null;
  /** The underlying error, if any. */
  cause?: unknown;
}

/** A failure that may heal with time: the handler is retried after `delay` seconds. */
export class TemporaryError extends Error {
  /** The error class name. */
  override name = "TemporaryError";
  /** Seconds to wait before the retry, or `null` to retry at once. */
  readonly delay: number | null;

  /** Raise it to retry the handler later (in `delay` seconds, 60 by default). */
  constructor(message: string = "", options: TemporaryErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    const delay = options.delay === undefined ? DEFAULT_TEMPORARY_DELAY : options.delay;
    if (delay !== null && !(typeof delay === "number" && Number.isFinite(delay) && delay >= 0)) {
      throw new TypeError(
        `TemporaryError delay must be a number of seconds ≥ 0 or null, got ${String(delay)}.`,
      );
    }
    this.delay = delay;
  }
}

/** Options of a {@link PermanentError}. */
export interface PermanentErrorOptions {
  /** The underlying error, if any. */
  cause?: unknown;
}

/** A failure that will not heal: the handler is not retried and is marked as failed. */
export class PermanentError extends Error {
  /** The error class name. */
  override name = "PermanentError";

  /** Raise it to fail the handler for good. */
  constructor(message: string = "", options: PermanentErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
}

/** The handler ran past its `timeout`; it is failed for good. */
export class HandlerTimeoutError extends PermanentError {
  /** The error class name. */
  override name = "HandlerTimeoutError";
}

/** The handler failed more often than its `retries` allow; it is failed for good. */
export class HandlerRetriesError extends PermanentError {
  /** The error class name. */
  override name = "HandlerRetriesError";
}

/** Options of an {@link AdmissionError}. */
export interface AdmissionErrorOptions {
  /** The HTTP status code returned to the API server. Default: 500. */
  code?: number;
  /** The underlying error, if any. */
  cause?: unknown;
}

/** Rejects an admission request with this message and status code. */
export class AdmissionError extends PermanentError {
  /** The error class name. */
  override name = "AdmissionError";
  /** The HTTP status code of the admission response. */
  readonly code: number;

  /** Raise it from a validating or mutating handler to deny the request. */
  constructor(message: string = "", options: AdmissionErrorOptions = {}) {
    super(message, { cause: options.cause });
    const code = options.code ?? 500;
    if (!Number.isInteger(code) || code < 100 || code > 599) {
      throw new TypeError(`AdmissionError code must be an HTTP status 100–599, got ${code}.`);
    }
    this.code = code;
  }
}

/** What to do with errors other than {@link TemporaryError} and {@link PermanentError}. */
export type ErrorsMode = "temporary" | "permanent" | "ignored";

/** The values of {@link ErrorsMode}, by name. */
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
 */
export class KopfError extends Error {
  /** The error class name. */
  override name = "KopfError";
}

/**
 * The framework is configured in a way that cannot work: settings, options, storages,
 * certificates, webhook servers, kubeconfig contents, state files. The message names
 * the value and what to give instead.
 */
export class ConfigurationError extends KopfError {
  /** The error class name. */
  override name = "ConfigurationError";
}

/**
 * A framework function is called where it cannot work (e.g. posting an event outside
 * a running operator, adopting without an owner outside a handler), or the command
 * line is wrong. The message says where or how to call it instead.
 */
export class UsageError extends KopfError {
  /** The error class name. */
  override name = "UsageError";
}

/**
 * A certificate, key or CA given as PEM (or the options to issue one) cannot be used:
 * not PEM, not X.509, not a CA, not an ECDSA P-256 PKCS#8 key, bad names or validity.
 */
export class CertificateError extends ConfigurationError {
  /** The error class name. */
  override name = "CertificateError";
}

/**
 * State the framework keeps on an object (a progress record, the last-handled
 * configuration) cannot be read back, e.g. an annotation edited by hand. The message
 * names the object and the field to fix or delete.
 */
export class StoredStateError extends KopfError {
  /** The error class name. */
  override name = "StoredStateError";
}
