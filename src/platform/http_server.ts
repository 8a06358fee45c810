/**
 * A small HTTP(S) server on web-standard `Request`/`Response` objects: `Deno.serve` on
 * Deno, `node:http`/`node:https` on Node. Response bodies may be streams; they are sent
 * chunk by chunk as they are produced (watch streams rely on that).
 *
 * A server given {@link HttpServerLimits} holds every client to them: a body cap, read
 * timeouts for the head and the body, an idle timeout, and connection slots shared per
 * client address (see `connection_slots.ts`: one client's sockets cannot refuse another's
 * request). `Deno.serve` has none of these (it keeps a connection that trickles its head,
 * or sends nothing, open for good), so such a server runs on `node:http`/`node:https` on
 * both runtimes: Deno's implementation of them honours Node's `headersTimeout`,
 * `requestTimeout`, `keepAliveTimeout` and `handshakeTimeout` as Node does.
 *
 * Every connection is bounded by time whatever it sends: one that sends nothing (not even
 * a TLS handshake) or trickles its head is closed `headerTimeout` after it opened; one
 * that trickles its body gets a 408 at `bodyTimeout`; one idle between the requests of a
 * kept-alive connection is closed after `idleTimeout`.
 *
 * @module
 */
import type * as nodeHttp from "node:http";
import type * as nodeHttps from "node:https";
import type { AddressInfo } from "node:net";
import { ConfigurationError } from "../structs/errors.ts";
import type { Logger } from "../structs/loggers.ts";
import { ConnectionSlots } from "./connection_slots.ts";
import { categoryLogger } from "./logging.ts";

/** The client certificate a TLS client presented, as the server saw it. */
export interface PeerCertificate {
  /** Whether it was issued by the server's client CA (and is valid now). */
  readonly authorized: boolean;
  /** The subject's common name: the user name, for Kubernetes. */
  readonly commonName?: string;
  /** The subject's organizations: the user's groups, for Kubernetes. */
  readonly organizations: readonly string[];
}

/** Facts about one request's connection. */
export interface HttpRequestInfo {
  /** The client's address, e.g. `127.0.0.1`. */
  readonly remoteAddress: string;
  /** The client's certificate, when client certificates are requested and one was sent. */
  readonly peerCertificate?: PeerCertificate;
}

/** The function that answers every request. */
export type HttpHandler = (
  request: Request,
  info: HttpRequestInfo,
) => Response | Promise<Response>;

/** The certificate and key to serve HTTPS with, both PEM text. */
export interface HttpServerTls {
  /** The server's certificate chain, PEM. */
  readonly certificate: string;
  /** The server's private key, PEM. */
  readonly privateKey: string;
  /**
   * Ask clients for certificates and check them against this CA (PEM); requests still
   * come without one. Served by `node:https` (also under Deno, whose `Deno.serve` cannot
   * ask for client certificates).
   */
  readonly clientCa?: string;
}

/**
 * The bounds a server holds every client to. A request over a bound is answered with one
 * plain-text line and its connection closed: 413 for a body over `bodyLimit` (at once when
 * its `Content-Length` says so, else as soon as the bytes read pass it: the rest is never
 * read), 503 when the bodies held at once would pass `bufferLimit`, 408 for a body that
 * does not arrive in time (Node's own 408 for a late head).
 */
export interface HttpServerLimits {
  /** The largest request body, in bytes; `0` accepts none. */
  readonly bodyLimit: number;
  /** The most bytes of request bodies held at once across all connections; no bound if omitted. */
  readonly bufferLimit?: number;
  /**
   * Seconds from a connection's start (TLS handshake included) to its first request's
   * complete head; for a later request of a kept-alive connection, from its first byte.
   */
  readonly headerTimeout: number;
  /**
   * Seconds from a request's head to the end of its body; and from the handler's answer to
   * the end of the response (such servers answer briefly, never with endless streams).
   */
  readonly bodyTimeout: number;
  /** Seconds a kept-alive connection may wait for its next request. */
  readonly idleTimeout: number;
  /**
   * The most connections open at once from one client address; more from it are closed as
   * soon as they arrive, while other clients are still served.
   */
  readonly clientConnectionLimit: number;
  /**
   * The most connections open at once in all, a backstop several times a client's share;
   * more are closed as soon as they arrive.
   */
  readonly connectionLimit: number;
}

/** Options of {@link startHttpServer}. */
export interface HttpServerOptions {
  /** The address to listen on; `127.0.0.1` by default. */
  readonly hostname?: string;
  /** The port; `0` (the default) picks a free one. */
  readonly port?: number;
  /** Serve HTTPS with this certificate and key; plain HTTP when omitted. */
  readonly tls?: HttpServerTls;
  /** Answers every request. */
  readonly handler: HttpHandler;
  /**
   * Hold the clients to these bounds (served by `node:http`/`node:https`, also under Deno);
   * none when omitted, for servers whose clients are trusted (the fake cluster's).
   */
  readonly limits?: HttpServerLimits;
  /**
   * What the server is, in its log lines (e.g. `The webhook server`); its address is added.
   * `The HTTP server` by default.
   */
  readonly name?: string;
  /** Where the server reports the connections it refuses; the `kopf.server` logger by default. */
  readonly logger?: Logger;
}

/** A running server. */
export interface HttpServer {
  /** The address listened on. */
  readonly hostname: string;
  /** The port listened on (the real one when `0` was asked for). */
  readonly port: number;
  /** `http://host:port` or `https://host:port`. */
  readonly url: string;
  /**
   * Stop listening and close the connections; resolves when the server is down.
   * Responses still streaming are waited for: end them first.
   */
  close(): Promise<void>;
}

/** Start listening; resolves once the port is bound. */
export async function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  try {
    return typeof Deno !== "undefined" && !options.tls?.clientCa && !options.limits
      ? await startDenoServer(options)
      : await startNodeHttpServer(options);
  } catch (error) {
    throw explainListenError(error, options);
  }
}

/** A port in use or not allowed becomes an error that says what to do. */
function explainListenError(error: unknown, options: HttpServerOptions): unknown {
  const where = `${options.hostname ?? "127.0.0.1"}:${options.port ?? 0}`;
  const code = (error as { code?: string }).code;
  if (
    (typeof Deno !== "undefined" && error instanceof Deno.errors.AddrInUse) || code === "EADDRINUSE"
  ) {
    return new ConfigurationError(
      `Cannot listen on ${where}: the port is in use; pick another port, or 0 for any free one.`,
      { cause: error },
    );
  }
  if (
    (typeof Deno !== "undefined" && error instanceof Deno.errors.PermissionDenied) ||
    code === "EACCES"
  ) {
    return new ConfigurationError(
      `Cannot listen on ${where}: not permitted (a privileged port, or --allow-net is missing).`,
      { cause: error },
    );
  }
  return error;
}

function urlOf(scheme: string, hostname: string, port: number): string {
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  return `${scheme}://${host}:${port}`;
}

async function startDenoServer(options: HttpServerOptions): Promise<HttpServer> {
  const hostname = options.hostname ?? "127.0.0.1";
  let resolveListening: (port: number) => void = () => {};
  const listening = new Promise<number>((resolve) => (resolveListening = resolve));
  const serveOptions = {
    hostname,
    port: options.port ?? 0,
    onListen: (addr: { port: number }) => resolveListening(addr.port),
    // Errors thrown by the handler become plain 500s; the handler reports its own.
    onError: (error: unknown) =>
      new Response(`Internal error: ${error instanceof Error ? error.message : error}`, {
        status: 500,
      }),
    ...(options.tls ? { cert: options.tls.certificate, key: options.tls.privateKey } : {}),
  };
  const server = Deno.serve(
    serveOptions,
    (request, info) => {
      const addr = info.remoteAddr as { hostname?: string };
      return options.handler(request, { remoteAddress: addr.hostname ?? "" });
    },
  );
  const port = await listening;
  let closing: Promise<void> | undefined;
  return {
    hostname,
    port,
    url: urlOf(options.tls ? "https" : "http", hostname, port),
    close(): Promise<void> {
      // A graceful shutdown: responses in flight (e.g. ending watch streams) finish first.
      closing ??= server.shutdown().then(() => server.finished);
      return closing;
    },
  };
}

/**
 * The Node implementation (`node:http`/`node:https`); {@link startHttpServer} picks it on
 * Node, and on Deno for client certificates or limits. Exported so that both
 * implementations can be tested under Deno too.
 */
export async function startNodeHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const hostname = options.hostname ?? "127.0.0.1";
  const scheme = options.tls ? "https" : "http";
  const sockets = new Set<{ destroy(): void }>();
  const guard = options.limits === undefined ? undefined : new RequestGuard(options.limits);
  let port = options.port ?? 0; // the real one once listening
  const listener = (req: nodeHttp.IncomingMessage, res: nodeHttp.ServerResponse) => {
    void answerNode(options.handler, scheme, req, res, guard);
  };
  const timeouts = nodeTimeouts(options.limits);
  // `node:http(s)` load when a server starts: an operator without one never pays for them.
  const server: nodeHttp.Server = options.tls
    ? (await import("node:https")).createServer(
      {
        cert: options.tls.certificate,
        key: options.tls.privateKey,
        ...(options.tls.clientCa
          ? { ca: options.tls.clientCa, requestCert: true, rejectUnauthorized: false }
          : {}),
        ...timeouts,
      },
      listener,
    )
    : (await import("node:http")).createServer(timeouts, listener);
  if (guard !== undefined) {
    const slots = new ConnectionSlots(guard.limits, {
      logger: options.logger ?? categoryLogger(["kopf", "server"]),
      server: () => `${options.name ?? "The HTTP server"} at ${urlOf(scheme, hostname, port)}`,
    });
    // Node counts a head's deadline from its first byte: a first request must also come
    // within the deadline of the connection's start, handshake and all.
    server.on("connection", (socket) => slots.admit(socket) && guard.opened(socket));
    server.on("request", (req) => guard.heard(req.socket));
    // `Expect: 100-continue`: a body over the limit is refused before the client sends it.
    server.on("checkContinue", (req, res) => {
      guard.heard(req.socket);
      if (!guard.admits(req, res)) return;
      res.writeContinue();
      listener(req, res);
    });
  }
  server.on(options.tls ? "secureConnection" : "connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, hostname, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    hostname,
    port,
    url: urlOf(scheme, hostname, port),
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}

/** Node's own read timeouts for the limits: the head, the whole request, the idle wait, TLS. */
function nodeTimeouts(limits: HttpServerLimits | undefined): nodeHttps.ServerOptions {
  if (limits === undefined) return {};
  const head = limits.headerTimeout * 1000;
  return {
    headersTimeout: head,
    // A backstop: the body has its own deadline (see RequestGuard).
    requestTimeout: head + limits.bodyTimeout * 1000,
    keepAliveTimeout: limits.idleTimeout * 1000,
    // How often the head and request deadlines are checked: their precision (30 s by default).
    connectionsCheckingInterval: Math.min(1000, Math.max(50, head / 4)),
    handshakeTimeout: head,
  };
}

/**
 * Holds the requests of one server to its {@link HttpServerLimits}: reads each body up to
 * the cap and within its deadline, keeps the total of the bodies held, and answers the
 * requests over a bound (closing their connections).
 */
class RequestGuard {
  readonly limits: HttpServerLimits;
  /** Bytes of request bodies held now, across all connections. */
  #held = 0;
  /** The deadlines of connections still waiting for their first head, by peer. */
  readonly #firstHeads = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(limits: HttpServerLimits) {
    this.limits = limits;
  }

  /**
   * A connection came: unless its first request's head is in within the header timeout,
   * it is closed (Node's own deadline only starts with the head's first byte).
   */
  opened(socket: NodeSocket): void {
    const key = peerKey(socket);
    const timer = setTimeout(() => socket.destroy(), this.limits.headerTimeout * 1000);
    this.#firstHeads.set(key, timer);
    socket.once("close", () => {
      clearTimeout(timer);
      if (this.#firstHeads.get(key) === timer) this.#firstHeads.delete(key);
    });
  }

  /** A head was read on the connection (plain, or TLS over the one {@link opened} saw). */
  heard(socket: NodeSocket): void {
    if (this.#firstHeads.size === 0) return;
    const key = peerKey(socket);
    clearTimeout(this.#firstHeads.get(key));
    this.#firstHeads.delete(key);
  }

  /** Whether the request's announced length is within the cap; if not, it is answered (413). */
  admits(req: nodeHttp.IncomingMessage, res: nodeHttp.ServerResponse): boolean {
    const length = Number(req.headers["content-length"] ?? 0);
    if (!(length > this.limits.bodyLimit)) return true;
    refuse(res, 413, `The request body of ${length} bytes is over the limit of ${this.#cap()}.`);
    return false;
  }

  /**
   * The request's body (`null` if empty), read within the limits; `undefined` when the
   * request was refused (and answered) or its client went away.
   */
  read(
    req: nodeHttp.IncomingMessage,
    res: nodeHttp.ServerResponse,
  ): Promise<Uint8Array<ArrayBuffer> | null | undefined> {
    if (!this.admits(req, res)) return Promise.resolve(undefined);
    const { bodyLimit, bufferLimit, bodyTimeout } = this.limits;
    const chunks: Uint8Array[] = [];
    let size = 0;
    res.once("close", () => (this.#held -= size));
    return new Promise((resolve) => {
      /** The body is complete (no refusal), over a bound (refused), or gone (`null`). */
      let finished = false;
      const finish = (refusal?: [status: number, message: string] | null) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        req.removeAllListeners("data");
        if (refusal === undefined) return resolve(chunks.length > 0 ? concat(chunks) : null);
        req.pause(); // read no further: the rest of the body stays unread, the connection closes
        if (refusal === null) res.destroy();
        else refuse(res, ...refusal);
        resolve(undefined);
      };
      const timer = setTimeout(
        () => finish([408, `The request body did not arrive within ${bodyTimeout}s.`]),
        bodyTimeout * 1000,
      );
      req.on("data", (chunk: Uint8Array) => {
        if (size + chunk.length > bodyLimit) {
          return finish([413, `The request body is over the limit of ${this.#cap()}.`]);
        }
        if (bufferLimit !== undefined && this.#held + chunk.length > bufferLimit) {
          return finish([503, "Too many request bodies at once; retry later."]);
        }
        size += chunk.length;
        this.#held += chunk.length;
        chunks.push(chunk);
      });
      req.once("end", () => finish());
      req.once("close", () => req.complete || finish(null));
    });
  }

  /** The response must be sent within the body timeout, else its connection is dropped. */
  bound(res: nodeHttp.ServerResponse): void {
    const timer = setTimeout(() => res.destroy(), this.limits.bodyTimeout * 1000);
    res.once("close", () => clearTimeout(timer));
  }

  #cap(): string {
    return `${this.limits.bodyLimit} bytes`;
  }
}

/** What the guard needs of a socket, plain or TLS. */
interface NodeSocket {
  readonly remoteAddress?: string;
  readonly remotePort?: number;
  destroy(): void;
  once(event: "close", listener: () => void): unknown;
}

/**
 * A connection's peer, `address:port`: the same for a TLS socket and the TCP socket under
 * it, and unique among the connections open at once.
 */
function peerKey(socket: NodeSocket): string {
  return `${socket.remoteAddress}:${socket.remotePort}`;
}

/** Answer with one plain-text line and close the connection (its request is left unread). */
function refuse(res: nodeHttp.ServerResponse, status: number, message: string): void {
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" });
  res.end(`${message}\n`);
}

/** The whole body of a request of a server without limits (`null` if empty). */
async function readAll(req: nodeHttp.IncomingMessage): Promise<Uint8Array<ArrayBuffer> | null> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of req) chunks.push(chunk as Uint8Array);
  return chunks.length > 0 ? concat(chunks) : null;
}

async function answerNode(
  handler: HttpHandler,
  scheme: string,
  req: nodeHttp.IncomingMessage,
  res: nodeHttp.ServerResponse,
  guard: RequestGuard | undefined,
): Promise<void> {
  const aborter = new AbortController();
  res.on("close", () => aborter.abort());
  try {
    const body = guard === undefined ? await readAll(req) : await guard.read(req, res);
    if (body === undefined) return; // refused, and answered
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (Array.isArray(value)) { for (const v of value) headers.append(name, v); }
      else if (value !== undefined) headers.set(name, value);
    }
    const method = req.method ?? "GET";
    const hasBody = method !== "GET" && method !== "HEAD" && body !== null;
    const request = new Request(`${scheme}://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, {
      method,
      headers,
      body: hasBody ? body : undefined,
      signal: aborter.signal,
    });
    const response = await handler(request, {
      remoteAddress: req.socket.remoteAddress ?? "",
      peerCertificate: peerOf(req.socket),
    });
    guard?.bound(res);
    await sendNode(response, res);
  } catch (error) {
    if (!res.headersSent) {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(`Internal error: ${error instanceof Error ? error.message : error}`);
    } else {
      res.destroy();
    }
  }
}

/** Write a response: the head at once, then the body chunk by chunk as it is produced. */
async function sendNode(response: Response, res: nodeHttp.ServerResponse): Promise<void> {
  const outHeaders: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => (outHeaders[name] = value));
  res.writeHead(response.status, outHeaders);
  res.flushHeaders();
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  res.on("close", () => void reader.cancel().catch(() => {}));
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      // Backpressure: a client that reads slowly (or not at all) slows the stream down,
      // rather than the response piling up in memory.
      if (!res.write(value) && !(await drained(res))) return;
    }
    res.end();
  } catch {
    // A stream that fails mid-flight drops the connection, as a broken server would.
    res.destroy();
  }
}

/** Resolves once the response can take more (true), or when it closed (false). */
function drained(res: nodeHttp.ServerResponse): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (writable: boolean) => {
      res.off("drain", onDrain);
      res.off("close", onClose);
      resolve(writable);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    res.on("drain", onDrain);
    res.on("close", onClose);
  });
}

interface TlsSocketLike {
  authorized?: boolean;
  getPeerCertificate?: () => { subject?: Record<string, string | string[]> } | undefined;
}

function peerOf(socket: unknown): PeerCertificate | undefined {
  const tls = socket as TlsSocketLike;
  const subject = tls.getPeerCertificate?.()?.subject;
  if (!subject || !Object.keys(subject).length) return undefined;
  const cn = subject.CN;
  const o = subject.O;
  return {
    authorized: tls.authorized === true,
    commonName: Array.isArray(cn) ? cn[0] : cn,
    organizations: o === undefined ? [] : Array.isArray(o) ? o : [o],
  };
}

function concat(chunks: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const total = chunks.reduce((n, c) => n + c.length, 0);
  const out = new Uint8Array(new ArrayBuffer(total));
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.length;
  }
  return out;
}
