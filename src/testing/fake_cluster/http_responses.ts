/**
 * The responses of the fake API server: JSON bodies, `Status` errors, written objects with
 * their warnings, and the errors of paths and methods it does not serve.
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import { ApiError } from "./errors.ts";
import type { WriteOptions } from "./targets.ts";

/** The media type of every JSON response. */
export const JSON_TYPE = "application/json";

/** How many objects each list response holds, for the request log. */
export const LISTED_ITEMS: WeakMap<Response, number> = new WeakMap();

/**
 * A value as Go's json.Encoder writes it (apimachinery's JSON serializer, for responses and
 * watch events alike): `<`, `>`, `&`, U+2028 and U+2029 escaped.
 */
export function goJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** A body as kube-apiserver writes it: {@link goJson}, ended by the encoder's newline. */
export function encodeJson(body: unknown): string {
  return goJson(body) + "\n";
}

/** A JSON response. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(encodeJson(body), {
    status,
    headers: { "content-type": JSON_TYPE, ...headers },
  });
}

const encoder = new TextEncoder();

/** A JSON response, and its body's length in bytes (encoded once, for the traffic counts). */
export function measuredJson(body: unknown): { response: Response; bytes: number } {
  const encoded = encoder.encode(encodeJson(body));
  const response = new Response(encoded, { headers: { "content-type": JSON_TYPE } });
  return { response, bytes: encoded.length };
}

/** An error as the `Status` a client reads. */
export function errorResponse(error: ApiError): Response {
  return json(error.toStatus(), error.code, error.headers);
}

/** Any failure as a `Status`: an unexpected one is a 500 that says what broke. */
export function failureResponse(error: unknown): Response {
  if (error instanceof ApiError) return errorResponse(error);
  const message = error instanceof Error ? error.message : String(error);
  return errorResponse(new ApiError(500, `internal error: ${message}`));
}

/** A 405 for a method the resource does not take. */
export function methodNotAllowed(): ApiError {
  return new ApiError(405, "the server does not allow this method on the requested resource");
}

/** A 404 for a path that names nothing the server serves. */
export function notServed(path: string, why?: string): ApiError {
  const reason = why ? `: ${why}` : "";
  return new ApiError(404, `the server could not find the requested resource (${path})${reason}`, {
    details: { causes: [{ reason: "UnexpectedServerResponse", message: "404 page not found" }] },
  });
}

/**
 * The object as JSON, with the write's warnings as `Warning` headers, each once (the API
 * server's warning recorder drops a repeat: endpoints/filters/warning.go).
 */
export function written(body: JsonObject, status: number, options: WriteOptions): Response {
  const response = json(body, status);
  for (const warning of new Set(options.warnings ?? [])) {
    response.headers.append("warning", `299 - ${JSON.stringify(warning)}`);
  }
  return response;
}
