/**
 * A small HTTP(S) server on web-standard `Request`/`Response` objects: `Deno.serve` on
 * Deno, `node:http`/`node:https` on Node. Response bodies may be streams; they are sent
 * chunk by chunk as they are produced (watch streams rely on that).
 *
 * @module
 */
import * as nodeHttp from "node:http";
import * as nodeHttps from "node:https";
import type { AddressInfo } from "node:net";
import { ConfigurationError } from "../structs/errors.ts";

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
    return typeof Deno !== "undefined" && !options.tls?.clientCa
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
 * Node. Exported so that both implementations can be tested under Deno too.
 */
export async function startNodeHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const hostname = options.hostname ?? "127.0.0.1";
  const scheme = options.tls ? "https" : "http";
  const sockets = new Set<{ destroy(): void }>();
  const listener = (req: nodeHttp.IncomingMessage, res: nodeHttp.ServerResponse) => {
    void answerNode(options.handler, scheme, req, res);
  };
  const server: nodeHttp.Server = options.tls
    ? nodeHttps.createServer(
      {
        cert: options.tls.certificate,
        key: options.tls.privateKey,
        ...(options.tls.clientCa
          ? { ca: options.tls.clientCa, requestCert: true, rejectUnauthorized: false }
          : {}),
      },
      listener,
    )
    : nodeHttp.createServer(listener);
  server.on(options.tls ? "secureConnection" : "connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, hostname, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
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

async function answerNode(
  handler: HttpHandler,
  scheme: string,
  req: nodeHttp.IncomingMessage,
  res: nodeHttp.ServerResponse,
): Promise<void> {
  const aborter = new AbortController();
  res.on("close", () => aborter.abort());
  try {
    const chunks: Uint8Array[] = [];
    for await (const chunk of req) chunks.push(chunk as Uint8Array);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (Array.isArray(value)) { for (const v of value) headers.append(name, v); }
      else if (value !== undefined) headers.set(name, value);
    }
    const method = req.method ?? "GET";
    const hasBody = method !== "GET" && method !== "HEAD" && chunks.length > 0;
    const request = new Request(`${scheme}://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, {
      method,
      headers,
      body: hasBody ? concat(chunks) : undefined,
      signal: aborter.signal,
    });
    const response = await handler(request, {
      remoteAddress: req.socket.remoteAddress ?? "",
      peerCertificate: peerOf(req.socket),
    });
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
        res.write(value);
      }
      res.end();
    } catch {
      // A stream that fails mid-flight drops the connection, as a broken server would.
      res.destroy();
    }
  } catch (error) {
    if (!res.headersSent) {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(`Internal error: ${error instanceof Error ? error.message : error}`);
    } else {
      res.destroy();
    }
  }
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
