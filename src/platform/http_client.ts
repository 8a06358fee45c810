/**
 * A `fetch` with TLS settings of its own -- a custom CA, a client certificate, insecure
 * mode -- and a connect timeout, on Deno and on Node.
 *
 * - Deno: `Deno.createHttpClient` (rustls) for CAs and client certificates. It trusts a
 *   given CA besides the runtime's root store, where client-go trusts it alone: each
 *   origin's certificate is also checked against the CA alone (`ca_pinning.ts`). It has no
 *   switch to skip certificate verification (only the process-wide
 *   `--unsafely-ignore-certificate-errors` flag), so insecure mode sends https:// requests
 *   through the `undici` package on Deno's Node compatibility layer, which honours
 *   `rejectUnauthorized: false` per connection pool; http:// ones stay on Deno's client.
 *   Writes, watches and reads but those of lists, unless a proxy may be set, go over the
 *   sockets of an {@link Http1Agent} instead of `fetch`: they cost less CPU there, and a
 *   program that reads no list never loads `fetch`.
 * - Node: `undici`'s `fetch` with an `Agent` dispatcher for everything.
 *
 * `undici` is imported lazily, so Deno programs that never use insecure mode never load it.
 *
 * @module
 */
import { lendChunks } from "./chunk_readers.ts";
import { ConnectTimeoutError } from "./connect_timeout.ts";
import { denoTlsOptions, Http1Agent } from "./http1_agent.ts";
import { deliveryOf } from "./request_delivery.ts";
import {
  CaPinning,
  caPinningCaveat,
  CERTIFICATE_CODES,
  UntrustedCertificateError,
} from "./ca_pinning.ts";
import { getEnv } from "./process.ts";
import { PROXY_ENV_VARIABLES } from "./proxy_environment.ts";
import { UNDICI_ENV_VARIABLES } from "./undici_environment.ts";
import { outsideContexts } from "./async_context.ts";

/** TLS and connection settings of an {@link HttpClient}. */
export interface HttpClientOptions {
  /** PEM CA certificates to trust for the server's certificate. */
  caCertificates?: readonly string[];
  /** The PEM client certificate (chain) for mutual TLS. */
  certificate?: string;
  /** The PEM private key of the client certificate. */
  privateKey?: string;
  /** Skip the verification of the server's certificate. */
  insecure?: boolean;
  /**
   * Seconds to wait for a connection. With `undici` (Node, and insecure mode on Deno) and
   * for writes on Deno (see {@link Http1Agent}) this bounds the TCP and TLS handshake; with
   * Deno's `fetch`, which does not expose the handshake, it bounds the wait for the
   * response headers.
   */
  connectTimeout?: number;
  /**
   * Seconds a write sent over an {@link Http1Agent} (on Deno) may go without progress
   * before it fails; 60 by default (see `Http1AgentOptions.readTimeout`).
   */
  readTimeout?: number;
  /**
   * Seconds a write's whole exchange over an {@link Http1Agent} may take; 300 by default
   * (see `Http1AgentOptions.responseTimeout`).
   */
  responseTimeout?: number;
  /** The most bytes of a write's response body over an {@link Http1Agent}; 64 MiB by default. */
  maxBodyBytes?: number;
}

/** The options of one {@link HttpClient.fetch}: those of the global `fetch`, and more. */
export interface HttpRequestInit extends RequestInit {
  /**
   * The body will be read as a stream for long (a watch): make its reads fail when the
   * signal aborts, which Deno's own stream stops doing once the request is collected.
   * Other bodies are returned as they come, to be read at once (`text()`, `json()`).
   */
  stream?: boolean;
  /**
   * The answer may be large (a list): it goes over `fetch`, which asks for it compressed
   * (the API server compresses answers over 128 KiB) and decompresses it. Other reads on
   * Deno go over the {@link Http1Agent}, uncompressed.
   */
  compressed?: boolean;
}

/** A fetch function bound to TLS settings; close it to release its connections. */
export interface HttpClient {
  /** Like the global `fetch`, with this client's TLS settings and connect timeout. */
  fetch(url: string, init?: HttpRequestInit): Promise<Response>;
  /** Release the pooled connections. */
  close(): Promise<void>;
  /**
   * What this client cannot guarantee for a server, in one line to log once (see
   * `ca_pinning.ts`); `undefined` when nothing.
   */
  caveat?(url: string): string | undefined;
}

/** How a failed fetch failed, for error messages and retry decisions. */
export interface NetworkErrorDescription {
  /** `certificate`: TLS verification failed (permanent); `timeout`; or other `network`. */
  kind: "certificate" | "timeout" | "network";
  /** The messages of the error and its causes, joined into one line. */
  detail: string;
  /**
   * Whether the failure proves that no byte of the request left this process: the
   * transport marked it so (see `request_delivery.ts`), or the connection could not be
   * made (refused, a name that does not resolve, no connection within the connect
   * timeout). False when in doubt.
   */
  unsent: boolean;
}

/**
 * No response headers within the connect timeout of Deno's `fetch`, which does not expose
 * the handshake: unlike a {@link ConnectTimeoutError} of a connection not made, the
 * request may have been sent.
 */
class ResponseTimeoutError extends ConnectTimeoutError {
  override name = "ResponseTimeoutError";
}

type UndiciModule = typeof import("undici");

let undiciModule: Promise<UndiciModule> | undefined;
function loadUndici(): Promise<UndiciModule> {
  undiciModule ??= outsideContexts(() => import("undici"));
  return undiciModule;
}

/** Make an HTTP client with the given TLS settings. */
export async function createHttpClient(options: HttpClientOptions = {}): Promise<HttpClient> {
  if (typeof Deno === "undefined") return await createUndiciClient(options);
  if (!options.insecure) return createDenoClient(options);
  // Skipping verification concerns TLS only: a plain-HTTP server (kubeconfigs say
  // insecure-skip-tls-verify for those, as @kubernetes/client-node demands) stays on Deno's
  // own client, and only https:// requests take undici.
  // undici is loaded with the first https:// request, not before: a program that only
  // speaks plain HTTP never needs it (nor the environment variables it reads).
  let tls: Promise<HttpClient> | undefined;
  const plain = createDenoClient(options);
  return {
    fetch: async (url, init) =>
      url.startsWith("http:")
        ? plain.fetch(url, init)
        : (await (tls ??= createUndiciClient(options))).fetch(url, init),
    close: async () => {
      await plain.close();
      await (await tls?.catch(() => undefined))?.close();
    },
  };
}

function createDenoClient(options: HttpClientOptions): HttpClient {
  const needsClient = (options.caCertificates?.length ?? 0) > 0 ||
    options.certificate !== undefined;
  const client = needsClient ? Deno.createHttpClient(denoTlsOptions(options)) : undefined;
  const connectTimeout = options.connectTimeout;
  // Requests but lists go over sockets of our own, unless a proxy may be set for fetch.
  const direct = proxyMaybeConfigured() ? undefined : new Http1Agent(options);
  const pinning = options.caCertificates?.length
    ? new CaPinning({ ...options, caCertificates: options.caCertificates })
    : undefined;
  const send = (url: string, init: HttpRequestInit | undefined): Promise<Response> => {
    if (direct !== undefined && init !== undefined && !init.compressed) {
      const sent = init.stream ? direct.stream(url, init) : direct.fetch(url, init);
      if (sent !== undefined) return sent;
    }
    // Without a connect timeout or a stream to guard, the request goes as it is: `fetch`
    // ignores the `stream` field, and nothing per request is wrapped or copied.
    if (connectTimeout === undefined && !init?.stream) {
      return fetch(url, client ? { ...init, client } : init);
    }
    return fetchGuarded(url, init, client, connectTimeout);
  };
  return {
    fetch: (url, init) => {
      // Checked when first used (and now and then), not per request: see ca_pinning.ts.
      const checking = url.startsWith("https:")
        ? pinning?.before(url, init?.signal ?? undefined)
        : undefined;
      return checking === undefined ? send(url, init) : checking.then(() => send(url, init));
    },
    caveat: (url) => pinning === undefined ? undefined : caPinningCaveat(url),
    close: () => {
      direct?.close();
      client?.close();
      return Promise.resolve();
    },
  };
}

/**
 * Whether Deno's `fetch` may send requests through a proxy: one of the variables it reads
 * is set, or cannot be read without asking for the permission (which is never asked).
 */
function proxyMaybeConfigured(): boolean {
  return PROXY_ENV_VARIABLES.some((name) => {
    try {
      return Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted" ||
        (getEnv(name) ?? "") !== "";
    } catch {
      return true;
    }
  });
}

/** A fetch within the connect timeout, and a stream's body guarded by the signal. */
async function fetchGuarded(
  url: string,
  init: HttpRequestInit | undefined,
  client: Deno.HttpClient | undefined,
  connectTimeout: number | undefined,
): Promise<Response> {
  let used: AbortSignal | undefined;
  const { stream, ...plain } = init ?? {};
  const request = (signal: AbortSignal | undefined) => {
    used = signal;
    return fetch(url, { ...plain, signal, ...(client ? { client } : {}) });
  };
  const outer = init?.signal ?? undefined;
  const response = await withHeadersTimeout(request, outer, connectTimeout);
  // A body read at once ends with the request (and fails with its abort): only a
  // stream needs the guard, whose wrapping costs a Response and a copy of the headers.
  return stream ? guardBody(response, used) : response;
}

async function createUndiciClient(options: HttpClientOptions): Promise<HttpClient> {
  if (typeof Deno !== "undefined") {
    // Fail now, with Deno's own permission error naming the variable, rather than later
    // inside undici, where it would surface as a vague network failure.
    for (const name of UNDICI_ENV_VARIABLES) Deno.env.get(name);
  }
  const undici = await loadUndici();
  const agent = new undici.Agent({
    // Timeouts are the caller's: a watch may stay silent for long, which undici's default
    // five-minute body timeout would break.
    bodyTimeout: 0,
    headersTimeout: 0,
    connect: {
      ...(options.caCertificates?.length ? { ca: [...options.caCertificates] } : {}),
      ...(options.certificate !== undefined ? { cert: options.certificate } : {}),
      ...(options.privateKey !== undefined ? { key: options.privateKey } : {}),
      rejectUnauthorized: !options.insecure,
      ...(options.connectTimeout !== undefined
        ? { timeout: Math.max(1, Math.round(options.connectTimeout * 1000)) }
        : {}),
    },
  });
  return {
    fetch: async (url, init) => {
      const { stream: _stream, ...plain } = init ?? {};
      const response = await undici.fetch(url, {
        ...(plain as Parameters<UndiciModule["fetch"]>[1]),
        dispatcher: agent,
      });
      return response as unknown as Response;
    },
    close: () => agent.close(),
  };
}

/**
 * Make the body fail when the signal aborts. Deno's fetch stops erroring the body of an
 * aborted request once its internal request state has been garbage-collected (a
 * long-lived watch stream hangs forever on `read()`), so the abort is enforced by a
 * response that holds the signal itself.
 */
function guardBody(response: Response, signal: AbortSignal | undefined): Response {
  if (!signal || !response.body) return response;
  return new GuardedResponse(response, signal);
}

/**
 * A response whose body reads end when the signal aborts. Whole-body reads (`text()`, ...)
 * stay Deno's own, which read the body at once into a buffer of its size; only `body`,
 * for streaming, goes through a stream of ours. (Piping every body, as before, cost a
 * 64 KiB buffer per chunk of every response -- most of an operator's memory at scale.)
 */
class GuardedResponse extends Response {
  readonly #source: Response;
  readonly #signal: AbortSignal;
  #body: ReadableStream<Uint8Array<ArrayBuffer>> | undefined;

  constructor(source: Response, signal: AbortSignal) {
    super(null, { status: source.status, statusText: source.statusText, headers: source.headers });
    this.#source = source;
    this.#signal = signal;
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> {
    return this.#body ??= guardStream(this.#source.body!, this.#signal);
  }

  override get bodyUsed(): boolean {
    return this.#source.bodyUsed || this.#body !== undefined;
  }

  override text(): Promise<string> {
    return untilAborted(this.#source.text(), this.#signal);
  }

  override async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    return untilAborted(this.#source.arrayBuffer(), this.#signal);
  }

  override bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return untilAborted(this.#source.bytes(), this.#signal);
  }

  override blob(): Promise<Blob> {
    return untilAborted(this.#source.blob(), this.#signal);
  }

  override formData(): Promise<FormData> {
    return untilAborted(this.#source.formData(), this.#signal);
  }

  override clone(): Response {
    return new GuardedResponse(this.#source.clone(), this.#signal);
  }
}

/** The promise's outcome, or the signal's reason if it aborts first. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {}); // its failure, if any, is no longer anyone's business
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {});
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * A copy of the stream that errors when the signal aborts (and then cancels the source).
 *
 * The source is read into pooled buffers and each chunk is copied out at its exact size:
 * a plain read of Deno's body allocates a fresh 64 KiB buffer per chunk, however small --
 * with one watch event per chunk, ~100x the data in garbage outside the JS heap, which V8
 * collects lazily and the allocator rarely gives back.
 *
 * The copy's chunks can also be taken directly (see {@link chunkReaderOf}), with the same
 * outcomes: the chunks, then the end, or the source's error, or the signal's reason. Those
 * are not copied: each is lent in its read buffer until the next read (or the cancel), and
 * that buffer is read into next, so a watch decoding its chunks as they come copies none.
 */
function guardStream(
  source: ReadableStream<Uint8Array<ArrayBuffer>>,
  signal: AbortSignal,
): ReadableStream<Uint8Array<ArrayBuffer>> {
  let byob: ReadableStreamBYOBReader | undefined;
  try {
    byob = source.getReader({ mode: "byob" });
  } catch {
    // Not a byte stream: its chunks are passed on as they come.
  }
  const plain = byob ? undefined : source.getReader();
  const reader = byob ?? plain!;
  let controller!: ReadableStreamDefaultController<Uint8Array<ArrayBuffer>>;
  let finished = false;
  /** How the reads failed, if they did: the source's error or the signal's reason. */
  let failure: { error: unknown } | undefined;
  const finish = () => {
    finished = true;
    signal.removeEventListener("abort", onAbort);
  };
  const fail = (error: unknown) => {
    finish();
    failure = { error };
    controller.error(error);
  };
  const onAbort = () => {
    if (finished) return;
    fail(signal.reason);
    reader.cancel(signal.reason).catch(() => {});
  };
  /** The buffer of the chunk last taken directly, lent to its reader until the next read. */
  let lent: ArrayBuffer | undefined;
  /**
   * The next chunk, or `undefined` at the end; nothing once finished. Copied out of its
   * read buffer, unless `lend`: then the chunk is a view of the buffer, kept as `lent`.
   */
  const next = async (lend: boolean): Promise<Uint8Array<ArrayBuffer> | undefined> => {
    const buffer = lent;
    lent = undefined;
    if (finished) {
      if (buffer !== undefined) releaseBuffer(buffer);
      return undefined;
    }
    try {
      let chunk: Uint8Array<ArrayBuffer> | undefined;
      if (byob === undefined) chunk = (await plain!.read()).value;
      else if (!lend) chunk = await readCopy(byob);
      else {
        // The read transfers the buffer into the stream; it comes back as `value.buffer`.
        const { done, value } = await byob.read(new Uint8Array(buffer ?? takeBuffer()));
        chunk = done ? undefined : value;
        if (value !== undefined) {
          if (chunk === undefined) releaseBuffer(value.buffer);
          else lent = value.buffer;
        }
      }
      if (chunk === undefined && !finished) {
        finish();
        controller.close();
      }
      return finished && chunk !== undefined ? undefined : chunk;
    } catch (e) {
      if (!finished) fail(e);
      return undefined;
    }
  };
  const cancel = (reason: unknown) => {
    finish();
    if (lent !== undefined) releaseBuffer(lent);
    lent = undefined;
    return reader.cancel(reason);
  };
  const stream = new ReadableStream<Uint8Array<ArrayBuffer>>({
    start(c) {
      controller = c;
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort);
    },
    async pull(c) {
      const chunk = await next(false);
      if (chunk !== undefined) c.enqueue(chunk);
    },
    cancel,
  }, { highWaterMark: 0 });
  lendChunks(stream, {
    read: async () => {
      const chunk = await next(true);
      if (chunk === undefined && failure !== undefined) throw failure.error;
      return chunk;
    },
    cancel,
  });
  return stream;
}

/** Read buffers kept for reuse; one is lent to each read in progress. */
const readBuffers: ArrayBuffer[] = [];
const READ_BUFFER_SIZE = 64 * 1024;
const READ_BUFFERS_KEPT = 16;

/** A read buffer from the pool, or a new one. */
function takeBuffer(): ArrayBuffer {
  return readBuffers.pop() ?? new ArrayBuffer(READ_BUFFER_SIZE);
}

/** Give a read buffer back to the pool (or to the garbage collector if it is full). */
function releaseBuffer(buffer: ArrayBuffer): void {
  if (readBuffers.length < READ_BUFFERS_KEPT) readBuffers.push(buffer);
}

/** One read into a pooled buffer; the bytes read are copied out (`undefined` at the end). */
async function readCopy(
  reader: ReadableStreamBYOBReader,
): Promise<Uint8Array<ArrayBuffer> | undefined> {
  // The read transfers the buffer into the stream; it comes back as `value.buffer` (if the
  // read fails, it is left to the garbage collector).
  const { done, value } = await reader.read(new Uint8Array(takeBuffer()));
  const copy = done || value === undefined ? undefined : value.slice();
  if (value !== undefined) releaseBuffer(value.buffer as ArrayBuffer);
  return copy;
}

/** Abort the request if its response headers do not arrive in time. */
async function withHeadersTimeout(
  request: (signal: AbortSignal | undefined) => Promise<Response>,
  outer: AbortSignal | undefined,
  timeout: number | undefined,
): Promise<Response> {
  if (timeout === undefined) return await request(outer);
  const controller = new AbortController();
  const forward = () => controller.abort(outer?.reason);
  if (outer?.aborted) forward();
  outer?.addEventListener("abort", forward, { once: true });
  const timer = setTimeout(() => {
    controller.abort(new ResponseTimeoutError(`No answer within ${timeout} seconds.`));
  }, timeout * 1000);
  try {
    return await request(controller.signal);
  } catch (e) {
    if (controller.signal.reason instanceof ConnectTimeoutError && !outer?.aborted) {
      throw controller.signal.reason;
    }
    throw e;
  } finally {
    // The outer signal stays attached: it must still abort the body stream later.
    clearTimeout(timer);
  }
}

/**
 * Error codes of failures to connect, before anything is written: refused, a name that does
 * not resolve (Node's and undici's codes; Deno's socket errors carry the same), or undici's
 * connect timeout. Resets, broken pipes and unreachable hosts are not among them: those
 * may also break a connection on which the request went out.
 */
const UNSENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_CONNECT_TIMEOUT"]);

/**
 * The words of Deno's own failures to connect: `fetch`'s (its client's `Connect` errors --
 * TCP, DNS, TLS handshake -- come before the request is written) and a socket's DNS failure.
 */
const UNSENT_MESSAGE =
  /client error \(Connect\)|tcp connect error|failed to lookup address information/i;

/** Classify and describe an error thrown by an {@link HttpClient}'s `fetch`. */
export function describeNetworkError(error: unknown): NetworkErrorDescription {
  const messages: string[] = [];
  const codes: string[] = [];
  let connectTimeout = false;
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    if (current instanceof Error) {
      const code = (current as { code?: unknown }).code;
      if (typeof code === "string") codes.push(code);
      if (current instanceof ConnectTimeoutError && !(current instanceof ResponseTimeoutError)) {
        connectTimeout = true;
      }
      const message = current.message.replace(/\s+/g, " ").trim();
      if (message && !messages.some((m) => m.includes(message))) messages.push(message);
      current = (current as { cause?: unknown }).cause;
    } else {
      messages.push(String(current));
      break;
    }
  }
  const detail = messages.filter((m) => m !== "fetch failed").join(": ") || "fetch failed";
  const isTimeout = error instanceof ConnectTimeoutError ||
    codes.some((c) => c === "UND_ERR_CONNECT_TIMEOUT" || c === "ETIMEDOUT");
  const isCertificate = error instanceof UntrustedCertificateError ||
    codes.some((c) => CERTIFICATE_CODES.has(c)) ||
    /invalid peer certificate|certificate verify failed|self[- ]signed certificate|unable to verify/i
      .test(detail);
  const unsent = deliveryOf(error).unsent || connectTimeout ||
    codes.some((c) => UNSENT_CODES.has(c)) || messages.some((m) => UNSENT_MESSAGE.test(m));
  const kind = isCertificate ? "certificate" : isTimeout ? "timeout" : "network";
  return { kind, detail, unsent };
}
