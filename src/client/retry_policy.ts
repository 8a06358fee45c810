/**
 * Which failed requests the API client sends again: the one place that decides it, as Go's
 * HTTP transport and client-go do, for every request of the framework. A transport never
 * replays on its own; it only marks what it knows of a failed request's delivery
 * (`platform/request_delivery.ts`).
 *
 * A request goes again after a failure when that is safe:
 *
 * - it was never sent: the connection could not be made (refused, a name that does not
 *   resolve, no connection within the connect timeout), or the transport says no byte left;
 * - or it is idempotent -- sending it twice has the effect of sending it once: `GET`, `HEAD`,
 *   `OPTIONS` (lists and watches too); `DELETE` (a second one finds nothing to delete and is
 *   answered 404); `PUT` with `metadata.resourceVersion` (a second one cannot overwrite a
 *   newer change: it is refused with 409); JSON merge, strategic merge and apply patches
 *   (they set values, lists included, and setting them again changes nothing); JSON patches
 *   of only `replace` operations and `add` operations on object keys. Not idempotent: `POST`
 *   (unless its caller says so, as `createObject` does), `PUT` without a resourceVersion,
 *   JSON patches with `test` (a second one fails the test: a false conflict), `move`,
 *   `copy`, `remove` or `add` into an array (`-` or an index).
 *
 * A failure on a kept connection before any answer (the server closed it as idle) lets a
 * request that may go again go at once, once; other failures wait along
 * `settings.networking.errorBackoffs`.
 *
 * Error answers: a request that got one was received. 401 is refused before anything is
 * done (new credentials, then again); so are 429 (the API server's flow control, its
 * shutdown, a refused eviction) and 503 with `Retry-After`: any request goes again, after
 * the pause asked for. Other 5xx answers may come after the request took effect (a 500 says
 * "the outcome of the call is unknown" in the API conventions; a 504 comes after the work
 * began): only idempotent requests go again.
 *
 * @module
 */
import type { JsonPatchOperation } from "../structs/patches.ts";

/** What to do after a failed attempt: send again at once, after a pause, or give up. */
export type Replay = "now" | "later" | "never";

/** The content type of JSON Patch (RFC 6902) bodies. */
const JSON_PATCH = "application/json-patch+json";

/** Patch types that set values, whatever the values were: applying twice changes nothing. */
const SETTING_PATCHES = new Set([
  "application/merge-patch+json",
  "application/strategic-merge-patch+json",
  "application/apply-patch+yaml",
]);

/** An array index or the end of an array, as the last token of a JSON Pointer. */
const ARRAY_POSITION = /\/(?:-|0|[1-9][0-9]*)$/;

/**
 * Why sending the request twice may not have the effect of sending it once; `undefined` if
 * it is idempotent. `body` is the request's body before serialisation.
 */
export function whyNotIdempotent(
  method: string,
  body: unknown,
  contentType: string,
): string | undefined {
  switch (method) {
    case "GET":
    case "HEAD":
    case "OPTIONS":
    case "DELETE":
      return undefined;
    case "PUT":
      return hasResourceVersion(body)
        ? undefined
        : "a PUT without metadata.resourceVersion could overwrite a newer change";
    case "PATCH":
      return whyPatchNotIdempotent(body, contentType);
    default:
      return `a ${method} may take effect twice`;
  }
}

function whyPatchNotIdempotent(body: unknown, contentType: string): string | undefined {
  if (SETTING_PATCHES.has(contentType)) return undefined;
  if (contentType !== JSON_PATCH || !Array.isArray(body)) {
    return `a patch of type ${contentType} may not apply twice`;
  }
  for (const operation of body as readonly JsonPatchOperation[]) {
    const op = operation?.op;
    if (op === "replace") continue;
    if (op === "add" && !ARRAY_POSITION.test(String(operation.path))) continue;
    return op === "test"
      ? "a JSON patch with a test would fail it the second time"
      : `a JSON patch with ${op === "add" ? "an insertion into an array" : `a ${op}`} ` +
        "may not apply twice";
  }
  return undefined;
}

function hasResourceVersion(body: unknown): boolean {
  const metadata = (body as { metadata?: { resourceVersion?: unknown } } | null)?.metadata;
  const version = metadata?.resourceVersion;
  return typeof version === "string" && version !== "";
}

/**
 * Whether a request that failed without an answer goes again: at once after a stale kept
 * connection (once: `staleRetried` says it was done), after a pause if it was never sent
 * or is idempotent, never otherwise.
 */
export function replayAfterFailure(failure: {
  readonly unsent: boolean;
  readonly staleConnection: boolean;
  readonly idempotent: boolean;
  readonly staleRetried: boolean;
}): Replay {
  if (!failure.unsent && !failure.idempotent) return "never";
  return failure.staleConnection && !failure.staleRetried ? "now" : "later";
}

/**
 * Whether a request answered with this error status goes again (after a pause): 401, 429
 * and 503 with `Retry-After` always (the server did nothing), other 5xx if idempotent.
 * 401 is handled by its caller first: new credentials, then this.
 */
export function replayAfterAnswer(
  status: number,
  retryAfter: string | null,
  idempotent: boolean,
): boolean {
  if (status === 401 || status === 429) return true;
  if (status < 500) return false;
  return idempotent || (status === 503 && retryAfter !== null);
}
