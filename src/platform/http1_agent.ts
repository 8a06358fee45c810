/**
 * HTTP/1.1 over Deno's own TCP and TLS sockets, on keep-alive connections: the path that
 * `createHttpClient` (`http_client.ts`) takes on Deno for the requests that change objects
 * (`POST`, `PUT`, `PATCH`, `DELETE`) and the reads of one object or of discovery (`GET`),
 * whose bodies are small and read at once, and for the watches, whose bodies stream for
 * long. A program that lists nothing never loads `fetch`: about 15 ms of start-up.
 *
 * Why: Deno's `fetch` costs about 25 us of CPU per request beyond the exchange itself -- a
 * `Request`, two `Headers`, WebIDL conversions of each field, a body stream, a URL parse.
 * An operator makes one such write per object it handles, so that was about a sixth of its
 * CPU. Here a request is one string written to a socket and its response is read from one
 * buffer per connection. A watch's body costs `fetch` a web stream's read -- a read
 * request, its promises, a buffer -- per chunk, and a chunk per event; here one socket read
 * takes whatever has come, many events in a burst, and they are decoded from the buffer.
 *
 * What stays with `fetch`: the reads of lists (`compressed`: they may be large, and `fetch`
 * asks for compression), proxies (`HTTP_PROXY` and its kin), HTTP/2, skipping certificate
 * verification (undici's), and whatever this agent does not take (see
 * {@link Http1Agent.fetch}). Redirects are not followed: the Kubernetes API does not
 * redirect these requests, and a 3xx reaches the caller as it is.
 *
 * @module
 */
import { realClock, settlesWithin } from "../structs/clock.ts";
import { ConnectTimeoutError } from "./connect_timeout.ts";
import { DEFAULT_MAX_BODY_BYTES } from "./http1_parser.ts";
import { Connection, isConnectionLoss, ReadTimeoutError } from "./http1_connections.ts";
import { plainHeaders, requestBytes } from "./http1_requests.ts";
import { Http1StreamResponse } from "./http1_streams.ts";
import { type Delivery, deliveryOf, markDelivery } from "./request_delivery.ts";

/** The TLS and connection settings of an {@link Http1Agent}. */
export interface Http1AgentOptions {
  /** PEM CA certificates to trust, besides the default roots. */
  caCertificates?: readonly string[];
  /** The PEM client certificate (chain) for mutual TLS. */
  certificate?: string;
  /** The PEM private key of the client certificate. */
  privateKey?: string;
  /** Seconds to wait for a new connection (TCP, then the TLS handshake). */
  connectTimeout?: number;
  /** Seconds an unused connection is kept; 90 (Go's and client-go's) by default. */
  idleTimeout?: number;
  /**
   * Seconds a request may go without progress -- no byte of it taken by the server, no byte
   * of its answer received -- before it fails; 60 by default. Without a `connectTimeout`,
   * it bounds the making of a new connection too.
   */
  readTimeout?: number;
  /**
   * Seconds a whole exchange may take, from sending the request to the last byte of its
   * answer; 300 by default. A server trickling its answer a byte at a time ends there.
   */
  responseTimeout?: number;
  /** The most bytes a response body may have; 64 MiB by default. */
  maxBodyBytes?: number;
}

/** Deno's TLS options (for `fetch`'s clients and for sockets alike) of the settings. */
export function denoTlsOptions(
  options: Http1AgentOptions,
): { caCerts?: string[]; cert?: string; key?: string } {
  return {
    ...(options.caCertificates?.length ? { caCerts: [...options.caCertificates] } : {}),
    ...(options.certificate !== undefined
      ? { cert: options.certificate, key: options.privateKey ?? "" }
      : {}),
  };
}

/** The methods sent here: writes, with small bodies and responses, and reads. */
const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);

/**
 * A request target that the URL parser would leave as it is: unreserved and reserved
 * characters and percent escapes, no fragment (and no dot segments, see below). Anything
 * else goes through `fetch`.
 */
const PLAIN_PATH = /^\/[A-Za-z0-9\-._~:/?@!$&()*+,;=%[\]]*$/;
/** Dot segments, which the URL parser would resolve. */
const DOT_SEGMENT = /\/\.\.?(?:[/?]|$)/;

/** How long an unused connection is kept: the idle timeout of Go's and client-go's clients. */
const IDLE_SECONDS = 90;
/** How long a request may go without progress. */
const READ_SECONDS = 60;
/**
 * How long a whole exchange may take: the API client's default request timeout, for when
 * its caller has none (it then aborts the request itself, usually before).
 */
const RESPONSE_SECONDS = 300;
/** The watchdog looks this many times per timeout: a timeout fires at most a quarter late. */
const CHECKS_PER_TIMEOUT = 8;

/**
 * Sends writes over pooled HTTP/1.1 connections, one pool per origin (scheme, host and
 * port). A connection serves one request at a time; more concurrent requests open more
 * connections, which stay in the pool for the next ones until idle for 90 seconds. An idle
 * connection that the server closes (or writes to) leaves the pool at once.
 *
 * A request is sent once at most: when it fails, its error says what is known of its
 * delivery (`request_delivery.ts`), and the caller decides whether to send it again.
 */
export class Http1Agent {
  readonly #options: Http1AgentOptions;
  readonly #origins = new Map<string, Origin>();
  readonly #limits: { readonly maxBodyBytes: number };
  /** The timeouts in milliseconds: idle connections', a request's without progress, all. */
  readonly #idleMs: number;
  readonly #readMs: number;
  readonly #responseMs: number;
  /** The watchdog: it closes the connections idle or stalled for too long. */
  #sweeper: ReturnType<typeof setInterval> | undefined;
  #closed = false;

  constructor(options: Http1AgentOptions = {}) {
    this.#options = options;
    this.#limits = { maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES };
    this.#idleMs = (options.idleTimeout ?? IDLE_SECONDS) * 1000;
    this.#readMs = (options.readTimeout ?? READ_SECONDS) * 1000;
    this.#responseMs = (options.responseTimeout ?? RESPONSE_SECONDS) * 1000;
  }

  /**
   * Send the request if this agent takes it, else return `undefined` (and the caller uses
   * `fetch`). It takes `GET`, `POST`, `PUT`, `PATCH` and `DELETE` requests to `http:` or
   * `https:` URLs with no fragment and a plain ASCII path, with a string body or none (none
   * for a `GET`) and headers in a plain record of ASCII values. The response is complete
   * when returned: its body is in memory. A failure is marked with what is known of the
   * request's delivery (see `markDelivery`); the request is never sent again here.
   */
  fetch(url: string, init: RequestInit): Promise<Response> | undefined {
    const method = init.method;
    const body = init.body ?? undefined;
    if (
      method === undefined || !METHODS.has(method) ||
      (body !== undefined && (typeof body !== "string" || method === "GET"))
    ) return undefined;
    const target = this.#target(url, init);
    if (target === undefined) return undefined;
    const { origin, path, headers } = target;
    return this.#send(
      origin,
      url,
      method,
      requestBytes(method, path, origin.host, headers, body),
      init.signal ?? undefined,
      false,
    );
  }

  /**
   * Send a `GET` whose body is to be read as a stream for long (a watch) if this agent
   * takes it, else return `undefined`; it takes the URLs and headers that {@link fetch}
   * takes. A successful response with a body is returned once its head has come: its body
   * is read from the connection as it arrives, the connection is its own until the body
   * ends (then closed), is cancelled, or the signal aborts; the watchdog's timeouts end
   * with the head (the reader has timeouts of its own). Any other response comes whole.
   */
  stream(url: string, init: RequestInit): Promise<Response> | undefined {
    if ((init.method !== undefined && init.method !== "GET") || init.body != null) {
      return undefined;
    }
    const target = this.#target(url, init);
    if (target === undefined) return undefined;
    const { origin, path, headers } = target;
    const request = requestBytes("GET", path, origin.host, headers, undefined);
    return this.#send(origin, url, "GET", request, init.signal ?? undefined, true);
  }

  /** Where the request goes, if this agent takes its URL and headers. */
  #target(
    url: string,
    init: RequestInit,
  ): { origin: Origin; path: string; headers: Record<string, string> } | undefined {
    const headers = init.headers ?? {};
    if (
      this.#closed || Array.isArray(headers) || headers instanceof Headers ||
      !plainHeaders(headers as Record<string, string>)
    ) return undefined;
    const originEnd = url.indexOf("/", url.indexOf("//") + 2);
    const path = originEnd < 0 ? "/" : url.slice(originEnd);
    if (!PLAIN_PATH.test(path) || DOT_SEGMENT.test(path)) return undefined;
    const origin = this.#origin(originEnd < 0 ? url : url.slice(0, originEnd));
    if (origin === undefined) return undefined;
    return { origin, path, headers: headers as Record<string, string> };
  }

  /** How many connections wait, idle, for the next request. */
  get kept(): number {
    let kept = 0;
    for (const origin of this.#origins.values()) kept += origin.idle.length;
    return kept;
  }

  /** Close every connection; requests still running fail, and later ones go to `fetch`. */
  close(): void {
    this.#closed = true;
    if (this.#sweeper !== undefined) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
    for (const origin of this.#origins.values()) {
      for (const connection of origin.idle) connection.close();
      origin.idle.length = 0;
      for (const connection of origin.busy) connection.close();
      origin.busy.clear();
      for (const connection of origin.streams) connection.close();
      origin.streams.clear();
    }
  }

  /** The pool of the origin; `undefined` if it is not a plain `http:`/`https:` one. */
  #origin(text: string): Origin | undefined {
    const known = this.#origins.get(text);
    if (known !== undefined) return known;
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return undefined;
    }
    const tls = url.protocol === "https:";
    if (
      (!tls && url.protocol !== "http:") || url.username || url.password ||
      url.pathname !== "/" || url.search || url.hash || `${url.protocol}//${url.host}` !== text
    ) return undefined;
    const origin: Origin = {
      tls,
      host: url.host,
      hostname: url.hostname.replace(/^\[(.*)\]$/, "$1"),
      port: Number(url.port || (tls ? 443 : 80)),
      idle: [],
      busy: new Set(),
      streams: new Set(),
    };
    this.#origins.set(text, origin);
    return origin;
  }

  async #send(
    origin: Origin,
    url: string,
    method: string,
    request: Uint8Array,
    signal: AbortSignal | undefined,
    stream: boolean,
  ): Promise<Response> {
    let connection: Connection | undefined;
    let reused = false;
    const onAbort = () => connection?.close();
    signal?.addEventListener("abort", onAbort);
    try {
      signal?.throwIfAborted();
      connection = this.#takeIdle(origin);
      reused = connection !== undefined;
      connection ??= await this.#connect(origin, signal);
      signal?.throwIfAborted(); // aborted as the connection came: nothing closed it
      return await this.#exchange(origin, connection, reused, method, request, stream, signal);
    } catch (e) {
      connection?.close();
      throw this.#failure(e, url, signal, connection, reused);
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /**
   * Send the request on the connection and read its response; for a `stream`, only the
   * head of a successful one, its body to be read until it ends or the signal aborts.
   */
  async #exchange(
    origin: Origin,
    connection: Connection,
    reused: boolean,
    method: string,
    request: Uint8Array,
    stream: boolean,
    signal: AbortSignal | undefined,
  ): Promise<Response> {
    connection.take();
    origin.busy.add(connection);
    this.#watch();
    try {
      await connection.write(request);
      const answer = stream ? await connection.streamed(method) : await connection.response(method);
      if (!("response" in answer)) {
        origin.streams.add(connection);
        const done = () => origin.streams.delete(connection);
        return new Http1StreamResponse(answer, connection, signal, done);
      }
      const { response, keepAlive } = answer;
      if (keepAlive && !this.#closed) this.#release(origin, connection);
      else connection.close();
      return response;
    } catch (e) {
      // A kept connection lost before any answer was let go by the server or by something
      // between (a load balancer's idle timeout): those kept as long are likely gone too.
      if (reused && !connection.answered && isConnectionLoss(e)) {
        closeKeptSince(origin, connection.idleSince);
      }
      throw e;
    } finally {
      origin.busy.delete(connection);
    }
  }

  /** The error to throw for a failed request, marked with what is known of its delivery. */
  #failure(
    error: unknown,
    url: string,
    signal: AbortSignal | undefined,
    connection: Connection | undefined,
    reused: boolean,
  ): unknown {
    const unsent = connection === undefined || connection.unsent;
    if (signal?.aborted) return marked(signal.reason, { unsent, staleConnection: false });
    const staleConnection = reused && !connection!.answered && !this.#closed &&
      (isConnectionLoss(error) || error instanceof ReadTimeoutError);
    let thrown = error;
    if (!(error instanceof ConnectTimeoutError || isPermissionError(error))) {
      const detail = error instanceof Error ? error.message : String(error);
      thrown = new TypeError(`error sending request for url (${url}): ${detail}`, {
        cause: error,
      });
    }
    return marked(thrown, { unsent, staleConnection });
  }

  /**
   * A kept connection of the origin, if one is left. One that something came to while it
   * waited (the server's end, most likely, not yet seen by its watch) is closed unused,
   * with all the others kept as long, and a new connection is made instead.
   */
  #takeIdle(origin: Origin): Connection | undefined {
    if (this.#closed) throw new Error("the HTTP client is closed");
    const connection = origin.idle.pop();
    if (connection === undefined || connection.quiet) return connection;
    connection.close();
    closeKeptSince(origin, connection.idleSince);
    return undefined;
  }

  /** A new connection to the origin, within the connect timeout. */
  async #connect(origin: Origin, signal: AbortSignal | undefined): Promise<Connection> {
    const options = this.#options;
    const connecting = (async () => {
      if (!origin.tls) return await Deno.connect({ hostname: origin.hostname, port: origin.port });
      const socket = await Deno.connectTls({
        hostname: origin.hostname,
        port: origin.port,
        alpnProtocols: ["http/1.1"],
        ...denoTlsOptions(options),
      });
      try {
        await socket.handshake(); // certificate errors surface here, as connection errors
      } catch (e) {
        socket.close();
        throw e;
      }
      return socket;
    })();
    const timeout = options.connectTimeout ?? options.readTimeout ?? READ_SECONDS;
    if (await settlesWithin(connecting, timeout, realClock, signal)) {
      return new Connection(await connecting, this.#limits);
    }
    connecting.then((socket) => socket.close(), () => {}); // made too late: not wanted
    signal?.throwIfAborted();
    throw new ConnectTimeoutError(`No connection within ${timeout} seconds.`);
  }

  /** Keep the connection for the next request, watching it while it waits. */
  #release(origin: Origin, connection: Connection): void {
    connection.rest(() => {
      const at = origin.idle.indexOf(connection);
      if (at >= 0) origin.idle.splice(at, 1);
    });
    origin.idle.push(connection);
  }

  /** Have the watchdog run while any connection is in use or kept. */
  #watch(): void {
    if (this.#sweeper !== undefined) return;
    const period = Math.min(
      this.#idleMs / 3,
      this.#readMs / CHECKS_PER_TIMEOUT,
      this.#responseMs / CHECKS_PER_TIMEOUT,
    );
    const sweeper = setInterval(() => this.#sweep(), Math.max(10, period));
    Deno.unrefTimer(sweeper); // it never keeps a program running: busy connections do
    this.#sweeper = sweeper;
  }

  /** Fail the requests stalled or too long, close the connections idle for too long. */
  #sweep(): void {
    const now = performance.now();
    const oldest = now - this.#idleMs;
    let watched = false;
    for (const origin of this.#origins.values()) {
      // The idle connections are in the order they went idle: the first is the oldest.
      if (origin.idle.length > 0 && origin.idle[0].idleSince <= oldest) {
        origin.idle = origin.idle.filter((c) => c.idleSince > oldest || (c.close(), false));
      }
      for (const connection of origin.busy) {
        connection.check(now, this.#readMs, this.#responseMs);
      }
      watched ||= origin.idle.length > 0 || origin.busy.size > 0;
    }
    if (!watched) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }
}

/** Close the origin's idle connections kept since `since` or longer. */
function closeKeptSince(origin: Origin, since: number): void {
  origin.idle = origin.idle.filter((c) => c.idleSince > since || (c.close(), false));
}

/** The errors this agent marked: marked again (a signal's reason), the marks are and-ed. */
const markedHere = new WeakSet<object>();

/**
 * Mark the error with its request's delivery. The same object (an abort's reason) may end
 * several requests: then it tells only what holds for all of them.
 */
function marked(error: unknown, delivery: Delivery): unknown {
  if (typeof error !== "object" || error === null) return error;
  if (markedHere.has(error)) {
    const known = deliveryOf(error);
    delivery = {
      unsent: known.unsent && delivery.unsent,
      staleConnection: known.staleConnection && delivery.staleConnection,
    };
  }
  markedHere.add(error);
  return markDelivery(error, delivery);
}

/** The connections to one origin. */
interface Origin {
  readonly tls: boolean;
  /** The `Host` header: the host name (bracketed if IPv6) and the port if not the default. */
  readonly host: string;
  readonly hostname: string;
  readonly port: number;
  /** Waiting for a request; the most recently used last (taken first). */
  idle: Connection[];
  /** Serving a request: closed if the agent closes. */
  readonly busy: Set<Connection>;
  /** Streaming a response's body, past the watchdog's care: closed if the agent closes. */
  readonly streams: Set<Connection>;
}

function isPermissionError(error: unknown): boolean {
  return error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied;
}
