/**
 * API servers in this very process: a base URL bound to a function that answers requests,
 * which the API client calls instead of opening a connection. The simulation serves its
 * fake cluster so (no sockets, nothing left to the runtime's timing); any client made in
 * the process for that URL -- the operator's, and its handlers' own -- reaches it.
 *
 * @module
 */
import { UsageError } from "../structs/errors.ts";
import type { HttpClient, HttpRequestInit } from "./http_client.ts";

/** What answers the requests of an in-process server. */
export type InProcessHandler = (request: Request) => Promise<Response>;

const servers = new Map<string, InProcessHandler>();

/** The URL without trailing slashes, as the client builds request URLs from it. */
function baseOf(url: string): string {
  return url.replace(/\/+$/, "");
}

/**
 * Serve requests for `url` (and any path under it) with `handler` until the returned
 * function is called. One handler per URL at a time.
 */
export function serveInProcess(url: string, handler: InProcessHandler): () => void {
  const base = baseOf(url);
  if (servers.has(base)) throw new UsageError(`${base} is already served in this process.`);
  servers.set(base, handler);
  return () => {
    if (servers.get(base) === handler) servers.delete(base);
  };
}

/** An HTTP client for a server of this process, or `undefined` if `url` is not one. */
export function inProcessClient(url: string): HttpClient | undefined {
  const base = baseOf(url);
  if (!servers.has(base)) return undefined;
  return {
    fetch: (target, init) => {
      const handler = servers.get(base);
      if (handler === undefined) {
        return Promise.reject(new TypeError(`Connection refused: ${base} is not served any more`));
      }
      return exchange(handler, target, init ?? {});
    },
    close: () => Promise.resolve(),
  };
}

/** One request, answered by the handler; the caller's signal aborts it, and its stream. */
async function exchange(
  handler: InProcessHandler,
  url: string,
  init: HttpRequestInit,
): Promise<Response> {
  const { stream, ...rest } = init;
  const signal = init.signal ?? undefined;
  signal?.throwIfAborted();
  const request = new Request(url, rest);
  const answer = handler(request);
  const response = signal === undefined ? await answer : await abortable(answer, signal);
  if (!stream || response.body === null || signal === undefined) return response;
  // A watch's body stops when the caller aborts: its reads fail, and the server's side of
  // the stream is cancelled, as when a connection is closed.
  const body = response.body.pipeThrough(new TransformStream(), { signal });
  return new Response(body, { status: response.status, headers: response.headers });
}

/** The answer, or the signal's reason once it aborts first (the answer is then dropped). */
function abortable(answer: Promise<Response>, signal: AbortSignal): Promise<Response> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      reject(signal.reason);
      answer.then((late) => late.body?.cancel().catch(() => {}), () => {});
    };
    signal.addEventListener("abort", onAbort, { once: true });
    answer.then(
      (response) => {
        signal.removeEventListener("abort", onAbort);
        if (signal.aborted) return;
        resolve(response);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
