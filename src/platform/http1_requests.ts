/**
 * A request as the HTTP/1.1 agent (`http1_agent.ts`) sends it itself: whether its
 * headers can go as they are (else it goes through `fetch`), and its bytes -- the request
 * line, the headers and the body, ready to write to a socket.
 *
 * @module
 */

import { isToken } from "./http1_heads.ts";

/** Header names `fetch` sets itself and refuses from callers. */
const RESERVED_HEADERS = new Set([
  "host",
  "content-length",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "expect",
]);
/** Visible ASCII, space and tab: anything else in a header value goes through `fetch`. */
const PLAIN_VALUE = /^[\t\x20-\x7e]*$/;

/** Frozen header records already checked: the API client reuses one per credentials. */
const checkedHeaders = new WeakSet<object>();

const encoder = new TextEncoder();

/** Whether every header is one this agent can send as it is (checked once if frozen). */
export function plainHeaders(headers: Record<string, string>): boolean {
  if (checkedHeaders.has(headers)) return true;
  for (const name in headers) {
    const value = headers[name];
    if (
      typeof value !== "string" || !isToken(name) || !PLAIN_VALUE.test(value) ||
      RESERVED_HEADERS.has(name.toLowerCase())
    ) return false;
  }
  if (Object.isFrozen(headers)) checkedHeaders.add(headers);
  return true;
}

/** The request's bytes: the request line, the headers and the body, ready to write. */
export function requestBytes(
  method: string,
  path: string,
  host: string,
  headers: Record<string, string>,
  body: string | undefined,
): Uint8Array {
  let head = `${method} ${path} HTTP/1.1\r\nhost: ${host}\r\n`;
  let accept = false;
  for (const name in headers) {
    head += `${name}: ${headers[name].trim()}\r\n`;
    accept ||= name.length === 6 && name.toLowerCase() === "accept";
  }
  if (!accept) head += "accept: */*\r\n";
  if (body === undefined) {
    return encoder.encode(method === "DELETE" ? head + "\r\n" : head + "content-length: 0\r\n\r\n");
  }
  // Each encoded where it goes (the head is ASCII: checked above), no string of both, which
  // would copy the body once more for every write. The body is taken for ASCII, as bodies of
  // JSON mostly are: it is, if all its characters fit in as many bytes. Encoding tells that
  // without another pass over the body (a regular expression's scan cost as much).
  const asAscii = `${head}content-length: ${body.length}\r\n\r\n`;
  const bytes = new Uint8Array(asAscii.length + body.length);
  if (encoder.encodeInto(body, bytes.subarray(asAscii.length)).read === body.length) {
    encoder.encodeInto(asAscii, bytes);
    return bytes;
  }
  const payload = encoder.encode(body);
  head += `content-length: ${payload.length}\r\n\r\n`;
  const encoded = new Uint8Array(head.length + payload.length);
  encoder.encodeInto(head, encoded);
  encoded.set(payload, head.length);
  return encoded;
}
