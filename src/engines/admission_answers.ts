/**
 * The answer to one `AdmissionReview` request ({@link serveAdmissionReview}): the handlers
 * of the webhook named in the request's URL (or all of them, when none is named) run for
 * the object; the first error by priority denies the request (an `AdmissionError` with its
 * message and code; any other error with code 500); the handlers' warnings are returned;
 * the mutating handlers' `patch` becomes a base64-encoded JSON Patch against the admitted
 * object.
 *
 * @module
 */
import {
  ADMISSION_REVIEW_API_VERSION,
  type AdmissionOperation,
  type AdmissionReviewResponse,
  type AdmissionReviewVerdict,
} from "../structs/admission_reviews.ts";
import type { RawBody } from "../structs/bodies.ts";
import { AdmissionError, PermanentError, TemporaryError } from "../structs/errors.ts";
import type { Index } from "../structs/indices.ts";
import { copyMemo, Memo } from "../structs/memos.ts";
import { Patch } from "../structs/patches.ts";
import { Resource } from "../structs/resources.ts";
import type { WebhookHandler } from "../intents/handlers.ts";
import { buildResourceKwargs, buildWebhookKwargs } from "../intents/kwargs_builders.ts";
import type { WebhookType } from "../intents/reasons.ts";
import { matcherOf, type OperatorRegistry } from "../intents/registry.ts";
import { createObjectScope, runInObjectScope } from "../handling/object_loggers.ts";
import { AdmissionRequestError, type WebhookRequestInfo } from "./webhook_servers.ts";

/** Options of {@link serveAdmissionReview}. */
export interface AdmissionReviewOptions extends WebhookRequestInfo {
  /** The handlers. */
  readonly registry: OperatorRegistry;
  /**
   * The resource record of the request's group, version and plural, e.g. from discovery
   * (short names and categories then match too); one built from the request otherwise.
   */
  readonly resolve?: (group: string, version: string, plural: string) => Resource | undefined;
  /** The operator's memo: each request gets its own copy. */
  readonly memo?: unknown;
  /**
   * The memo of an object already known to the operator (for updates and deletions);
   * `undefined` for others, which get a copy of `memo` that is then discarded.
   */
  readonly memoOf?: (resource: Resource, body: RawBody) => unknown;
  /** Declared indices by name, passed to the handlers. */
  readonly indices?: Readonly<Record<string, Index>>;
}

/** The operations a review request may ask about. */
export const OPERATIONS: ReadonlySet<string> = new Set(["CREATE", "UPDATE", "DELETE", "CONNECT"]);

/** Whether the value is a plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
  return btoa(binary);
}

/** The priority of an error when choosing the one to report: lower wins. */
function errorRank(error: unknown): number {
  if (error instanceof AdmissionError) return 0;
  if (error instanceof PermanentError) return 1;
  if (error instanceof TemporaryError) return 2;
  return 9;
}

/** The message of an error, for a review's status and the logs. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/**
 * Answer one `AdmissionReview` request (v1, parsed JSON) with the registry's admission
 * handlers; see the module docs. Handler errors deny the request; they never reject.
 */
export async function serveAdmissionReview(
  review: unknown,
  options: AdmissionReviewOptions,
): Promise<AdmissionReviewResponse> {
  const request = parseReviewRequest(review, options.resolve);
  const scope = createObjectScope(request.body, { local: true });
  const patch = new Patch();
  const warnings: string[] = [];
  const { errors, mutated } = await runReviewHandlers(request, options, scope, patch, warnings);
  const response: AdmissionReviewVerdict = { uid: request.uid, allowed: true };
  if (warnings.length > 0) response.warnings = warnings.map(String);
  if (errors.length > 0) {
    errors.sort((a, b) => errorRank(a) - errorRank(b));
    const first = errors[0];
    response.allowed = false;
    response.status = {
      message: errorMessage(first),
      code: first instanceof AdmissionError ? first.code : 500,
    };
  } else if (mutated) {
    const operations = patch.toJsonPatch(request.body);
    if (operations.length > 0) {
      response.patch = base64(JSON.stringify(operations));
      response.patchType = "JSONPatch";
    }
  }
  const envelope = review as Record<string, unknown>;
  return {
    apiVersion: typeof envelope.apiVersion === "string"
      ? envelope.apiVersion
      : ADMISSION_REVIEW_API_VERSION,
    kind: typeof envelope.kind === "string" ? envelope.kind : "AdmissionReview",
    response,
  };
}

/** What a review request asks about, checked. */
interface ReviewRequest {
  readonly uid: string;
  readonly operation: AdmissionOperation;
  readonly resource: Resource;
  /** The admitted object: the new one, or the old one of a deletion. */
  readonly body: RawBody;
  readonly oldBody: RawBody | null;
  readonly newBody: RawBody | null;
  readonly subresource: string | null;
  readonly dryrun: boolean;
  readonly userinfo: Record<string, unknown>;
}

/** The request of a review; an {@link AdmissionRequestError} if it is not one. */
function parseReviewRequest(
  review: unknown,
  resolve: AdmissionReviewOptions["resolve"],
): ReviewRequest {
  if (!isObject(review) || !isObject(review.request)) {
    throw new AdmissionRequestError("The body is not an AdmissionReview with a request.");
  }
  const request = review.request;
  const uid = typeof request.uid === "string" ? request.uid : "";
  const gvr = isObject(request.resource) ? request.resource : {};
  const group = typeof gvr.group === "string" ? gvr.group : "";
  const version = typeof gvr.version === "string" ? gvr.version : "";
  const plural = typeof gvr.resource === "string" ? gvr.resource : "";
  const operation = String(request.operation ?? "");
  if (!uid || !version || !plural || !OPERATIONS.has(operation)) {
    throw new AdmissionRequestError(
      "The AdmissionReview request lacks its uid, resource or a known operation.",
    );
  }
  const kind = isObject(request.kind) && typeof request.kind.kind === "string"
    ? request.kind.kind
    : undefined;
  const resource = resolve?.(group, version, plural) ??
    new Resource({ group, version, plural, kind, namespaced: request.namespace !== undefined });
  const newBody = isObject(request.object) ? request.object as RawBody : null;
  const oldBody = isObject(request.oldObject) ? request.oldObject as RawBody : null;
  return {
    uid,
    operation: operation as AdmissionOperation,
    resource,
    body: newBody ?? oldBody ?? {},
    oldBody,
    newBody,
    subresource: typeof request.subResource === "string" && request.subResource
      ? request.subResource
      : null,
    dryrun: request.dryRun === true,
    userinfo: isObject(request.userInfo) ? request.userInfo : {},
  };
}

/**
 * Run the validating, then the mutating handlers selected for the request (only the
 * webhook's, when one is named); their errors, and whether any mutating handler ran.
 */
async function runReviewHandlers(
  request: ReviewRequest,
  options: AdmissionReviewOptions,
  scope: ReturnType<typeof createObjectScope>,
  patch: Patch,
  warnings: string[],
): Promise<{ errors: unknown[]; mutated: boolean }> {
  const { resource, body, operation, subresource } = request;
  const known = operation === "CREATE" ? undefined : options.memoOf?.(resource, body);
  const memo = known ?? (options.memo === undefined ? new Memo() : copyMemo(options.memo));
  const init = { resource, body, patch, logger: scope.logger, memo, indices: options.indices };
  const extra = {
    dryrun: request.dryrun,
    subresource,
    warnings,
    userinfo: request.userinfo,
    headers: options.headers ?? {},
    sslpeer: options.sslpeer ?? null,
    operation,
    old: request.oldBody,
    new: request.newBody,
  };
  const errors: unknown[] = [];
  let mutated = false;
  try {
    const types: WebhookType[] = ["validating", "mutating"];
    for (const type of types) {
      const handlers = matcherOf(options.registry).selectWebhookHandlers(resource, {
        type,
        operation,
        subresource,
        body,
        old: request.oldBody,
        new: request.newBody,
        kwargs: () => buildResourceKwargs(init, extra),
      }).filter((h) => options.webhook === undefined || h.id === options.webhook);
      for (const handler of handlers) {
        const kwargs = buildWebhookKwargs({ ...init, param: handler.param }, extra) as object;
        const error = await runHandler(handler, kwargs, scope);
        if (error !== undefined) errors.push(error);
        if (type === "mutating") mutated = true;
      }
    }
  } catch (error) {
    // A failing filter callback: the request cannot be judged, so it is denied.
    scope.logger.error(`The admission filters failed: ${errorMessage(error)}`);
    errors.push(error);
  }
  return { errors, mutated };
}

/** Run one admission handler; returns its error, if any (logged). */
async function runHandler(
  handler: WebhookHandler,
  kwargs: object,
  scope: ReturnType<typeof createObjectScope>,
): Promise<unknown> {
  const title = `Handler '${handler.id}'`;
  try {
    scope.logger.debug(`${title} is invoked.`);
    await runInObjectScope(scope, () => handler.fn(kwargs));
    scope.logger.debug(`${title} succeeded.`);
    return undefined;
  } catch (error) {
    const failure = error ?? new Error("null was thrown");
    if (error instanceof AdmissionError) {
      scope.logger.info(`${title} denied the request: ${errorMessage(error)}`);
    } else {
      scope.logger.exception(`${title} failed with an exception.`, error);
    }
    return failure;
  }
}
