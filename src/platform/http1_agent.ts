/**
 * HTTP/1.1 over Deno's own TCP and TLS sockets, on keep-alive connections: the path that
 * `createHttpClient` (`http_client.ts`) takes on Deno for the requests that change objects
 * (`POST`, `PUT`, `PATCH`, `DELETE`), whose bodies are small and read at once.
 *
 * Why: Deno's `fetch` costs about 25 µs of CPU per request beyond the exchange itself — a
 * `Request`, two `Headers`, WebIDL conversions of each field, a body stream, a URL parse.
 * An operator makes one such write per object it handles, so that was about a sixth of its
 * CPU. Here a request is one string written to a socket and its response is read from one
 * buffer per connection.
 *
 * What stays with `fetch`: reads (lists may be large: `fetch` streams them and asks for
 * compression), watches, proxies (`HTTP_PROXY` and its kin), HTTP/2, skipping certificate
 * verification (undici's), and whatever this agent does not take (see
 * {@link Http1Agent.fetch}). Redirects are not followed: the Kubernetes API does not
 * redirect writes, and a 3xx reaches the caller as it is.
 *
 * @module
 */
import { realClock, settlesWithin } from "../structs/clock.ts";
import { ConnectTimeoutError } from "./connect_timeout.ts";

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

/** The methods sent here: writes, with small bodies and responses. */
const METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
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
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible ASCII, space and tab: anything else in a header value goes through `fetch`. */
const PLAIN_VALUE = /^[\t\x20-\x7e]*$/;
/**
 * A request target that the URL parser would leave as it is: unreserved and reserved
 * characters and percent escapes, no fragment (and no dot segments, see below). Anything
 * else goes through `fetch`.
 */
const PLAIN_PATH = /^\/[A-Za-z0-9\-._~:/?@!$&()*+,;=%[\]]*$/;
/** Dot segments, which the URL parser would resolve. */
const DOT_SEGMENT = /\/\.\.?(?:[/?]|$)/;
const NON_ASCII = /[\u0080-\uffff]/;
/** Frozen header records already checked: the API client reuses one per credentials. */
const checkedHeaders = new WeakSet<object>();

/** How long an unused connection is kept: the idle timeout of Go's and client-go's clients. */
const IDLE_SECONDS = 90;
/** The read buffer of a new connection; it grows for larger responses. */
const BUFFER_BYTES = 16 * 1024;
/** Beyond this, a connection's grown buffer is dropped when it goes idle. */
const KEPT_BUFFER_BYTES = 256 * 1024;
/** The most a response's status line and headers (or one chunk-size line) may take. */
const MAX_HEAD_BYTES = 256 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Sends writes over pooled HTTP/1.1 connections, one pool per origin (scheme, host and
 * port). A connection serves one request at a time; more concurrent requests open more
 * connections, which stay in the pool for the next ones until idle for 90 seconds. An idle
 * connection that the server closes (or writes to) leaves the pool at once.
 */
export class Http1Agent {
  readonly #options: Http1AgentOptions;
  readonly #origins = new Map<string, Origin>();
  #sweeper: ReturnType<typeof setInterval> | undefined;
  #closed = false;

  constructor(options: Http1AgentOptions = {}) {
    this.#options = options;
  }

  /**
   * Send the request if this agent takes it, else return `undefined` (and the caller uses
   * `fetch`). It takes `POST`, `PUT`, `PATCH` and `DELETE` requests to `http:` or
   * `https:` URLs with no fragment and a plain ASCII path, with a string body or none and
   * headers in a plain record of ASCII values. The response is complete when returned: its
   * body is in memory.
   */
  fetch(url: string, init: RequestInit): Promise<Response> | undefined {
    const method = init.method;
    const body = init.body ?? undefined;
    const headers = init.headers ?? {};
    if (
      this.#closed || method === undefined || !METHODS.has(method) ||
      (body !== undefined && typeof body !== "string") ||
      Array.isArray(headers) || headers instanceof Headers ||
      !plainHeaders(headers as Record<string, string>)
    ) return undefined;
    const originEnd = url.indexOf("/", url.indexOf("//") + 2);
    const path = originEnd < 0 ? "/" : url.slice(originEnd);
    if (!PLAIN_PATH.test(path) || DOT_SEGMENT.test(path)) return undefined;
    const origin = this.#origin(originEnd < 0 ? url : url.slice(0, originEnd));
    if (origin === undefined) return undefined;
    return this.#send(
      origin,
      url,
      method,
      requestBytes(method, path, origin.host, headers as Record<string, string>, body),
      init.signal ?? undefined,
    );
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
  ): Promise<Response> {
    signal?.throwIfAborted();
    let connection: Connection | undefined;
    const onAbort = () => connection?.close();
    signal?.addEventListener("abort", onAbort);
    try {
      for (;;) {
        // Checked again after a kept connection turned out closed: it may have been us.
        signal?.throwIfAborted();
        if (this.#closed) throw new Error("the HTTP client is closed");
        connection = origin.idle.pop();
        const reused = connection !== undefined;
        connection ??= await this.#connect(origin, signal);
        connection.take();
        origin.busy.add(connection);
        try {
          if (!(await connection.write(request))) {
            throw new ConnectionLost("the connection closed while the request was being sent");
          }
          const response = await connection.response(method);
          if (response.keepAlive && !this.#closed) this.#release(origin, connection);
          else connection.close();
          return response.response;
        } catch (e) {
          // A kept connection lost before any answer was let go by the server or by
          // something between (a load balancer's idle timeout): the others kept as long
          // are likely gone too. The request goes once more, on a new connection; the API
          // client would send it again anyway, only later and with a warning.
          if (!reused || connection.answered || !isConnectionLoss(e) || signal?.aborted) throw e;
          connection.close();
          for (const stale of origin.idle.splice(0)) stale.close();
        } finally {
          origin.busy.delete(connection);
        }
      }
    } catch (e) {
      connection?.close();
      if (signal?.aborted) throw signal.reason;
      if (e instanceof ConnectTimeoutError || isPermissionError(e)) throw e;
      const detail = e instanceof Error ? e.message : String(e);
      throw new TypeError(`error sending request for url (${url}): ${detail}`, { cause: e });
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
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
    const timeout = options.connectTimeout;
    if (await settlesWithin(connecting, timeout ?? Infinity, realClock, signal)) {
      return new Connection(await connecting);
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
    if (this.#sweeper === undefined) {
      const idle = this.#options.idleTimeout ?? IDLE_SECONDS;
      const sweeper = setInterval(() => this.#sweep(idle), idle * 1000 / 3);
      Deno.unrefTimer(sweeper); // idle connections never keep a program running
      this.#sweeper = sweeper;
    }
  }

  /** Close the connections idle for too long. */
  #sweep(idle: number): void {
    const oldest = performance.now() - idle * 1000;
    for (const origin of this.#origins.values()) {
      origin.idle = origin.idle.filter((c) => c.idleSince > oldest || (c.close(), false));
    }
    if (this.kept === 0) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }
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
}

/** Whether every header is one this agent can send as it is (checked once if frozen). */
function plainHeaders(headers: Record<string, string>): boolean {
  if (checkedHeaders.has(headers)) return true;
  for (const name in headers) {
    const value = headers[name];
    if (
      typeof value !== "string" || !TOKEN.test(name) || !PLAIN_VALUE.test(value) ||
      RESERVED_HEADERS.has(name.toLowerCase())
    ) return false;
  }
  if (Object.isFrozen(headers)) checkedHeaders.add(headers);
  return true;
}

/** The request's bytes: the request line, the headers and the body, ready to write. */
function requestBytes(
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
  if (!NON_ASCII.test(body)) {
    return encoder.encode(`${head}content-length: ${body.length}\r\n\r\n${body}`);
  }
  const payload = encoder.encode(body);
  head += `content-length: ${payload.length}\r\n\r\n`;
  const bytes = new Uint8Array(head.length + payload.length);
  encoder.encodeInto(head, bytes);
  bytes.set(payload, head.length);
  return bytes;
}

function isPermissionError(error: unknown): boolean {
  return error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied;
}

/** A response read whole, and whether its connection may serve another request. */
interface ReadResponse {
  response: Response;
  keepAlive: boolean;
}

/** The status line and headers of a response. */
interface ResponseHead {
  status: number;
  statusText: string;
  /** Names (lower-case) and values, alternating, in the order received. */
  fields: string[];
  /** HTTP/1.0, or `Connection: close`: the connection ends with this response. */
  closes: boolean;
  contentLength: number | undefined;
  /** The `Transfer-Encoding` header, lower-case, if any. */
  transferEncoding: string | undefined;
  /** The `Content-Encoding` header, lower-case, if any. */
  contentEncoding: string | undefined;
}

/** One socket and its read buffer; it serves one request at a time. */
class Connection {
  readonly #socket: Deno.Conn;
  #buffer = new Uint8Array(BUFFER_BYTES);
  /** The unread bytes are `#buffer[#start, #end)`. */
  #start = 0;
  #end = 0;
  /** The read under way, if any: a response's, or the watch of an idle connection. */
  #reading: Promise<number | null> | undefined;
  #idle = false;
  #closed = false;
  #answered = false;
  /** When it last went idle (`performance.now()`). */
  idleSince = 0;

  constructor(socket: Deno.Conn) {
    this.#socket = socket;
  }

  /** Whether any byte of the current request's response has come. */
  get answered(): boolean {
    return this.#answered;
  }

  /** Put the connection to work: it keeps the program running again. */
  take(): void {
    this.#idle = false;
    this.#answered = false;
    this.#socket.ref();
  }

  /**
   * Let the connection wait for a request without keeping the program running, and close
   * it if anything comes meanwhile: the server's end (it closed an idle connection), or
   * bytes no request asked for.
   */
  rest(onLost: () => void): void {
    this.#idle = true;
    this.idleSince = performance.now();
    if (this.#buffer.length > KEPT_BUFFER_BYTES) this.#buffer = new Uint8Array(BUFFER_BYTES);
    this.#socket.unref();
    const lost = () => {
      if (!this.#idle) return; // the read now belongs to a response
      this.close();
      onLost();
    };
    this.#read().then(lost, lost);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#idle = false;
    try {
      this.#socket.close();
    } catch {
      // Already closed by the runtime.
    }
  }

  /**
   * Write the whole request; `false` if the connection turned out closed before any
   * response came (on a kept connection: the server had let it go).
   */
  async write(bytes: Uint8Array): Promise<boolean> {
    // Bytes unread before a request: they came while it rested, and its watch is about to
    // close it.
    if (this.#closed || (this.#reading === undefined && this.#end > this.#start)) return false;
    try {
      for (let written = 0; written < bytes.length;) {
        written += await this.#socket.write(bytes.subarray(written));
      }
    } catch (e) {
      if (this.#closed || isConnectionLoss(e)) return false;
      throw e;
    }
    return true;
  }

  /** Read the response to the request just written (skipping interim 1xx ones). */
  async response(method: string): Promise<ReadResponse> {
    let head: ResponseHead;
    do head = parseHead(await this.#head()); while (head.status < 200 && head.status !== 101);
    if (head.status === 101 || head.status > 599) {
      throw new Error(`unexpected HTTP status ${head.status} in the response`);
    }
    if (head.contentEncoding !== undefined && head.contentEncoding !== "identity") {
      throw new Error(`unexpected Content-Encoding "${head.contentEncoding}" in the response`);
    }
    let body: string | null;
    let keepAlive = !head.closes;
    if (method === "HEAD" || head.status === 204 || head.status === 205 || head.status === 304) {
      body = null;
    } else if (head.transferEncoding !== undefined) {
      // Nothing but chunking was asked for (no TE header), nor any compression.
      if (head.transferEncoding !== "chunked") {
        throw new Error(`unexpected Transfer-Encoding "${head.transferEncoding}" in the response`);
      }
      body = await this.#chunked();
    } else if (head.contentLength !== undefined) body = await this.#exactly(head.contentLength);
    else {
      body = await this.#untilClosed();
      keepAlive = false;
    }
    // Bytes beyond the response were never asked for: the connection is out of step.
    if (this.#end > this.#start) keepAlive = false;
    return {
      response: new Http1Response(body, head.status, head.statusText, head.fields),
      keepAlive,
    };
  }

  /** The status line and headers, as text (without the blank line ending them). */
  async #head(): Promise<string> {
    let scanned = 0;
    for (;;) {
      const buffer = this.#buffer;
      const end = this.#end;
      for (let i = this.#start + scanned; i + 3 < end; i++) {
        if (
          buffer[i] === 13 && buffer[i + 1] === 10 && buffer[i + 2] === 13 && buffer[i + 3] === 10
        ) {
          const text = decoder.decode(buffer.subarray(this.#start, i));
          this.#consume(i + 4 - this.#start);
          return text;
        }
      }
      scanned = Math.max(0, end - this.#start - 3);
      if (end - this.#start > MAX_HEAD_BYTES) throw new Error("the response headers are too large");
      await this.#more("before the response");
    }
  }

  /** The next `length` bytes as text. */
  async #exactly(length: number): Promise<string> {
    await this.#fill(length);
    const text = decoder.decode(this.#buffer.subarray(this.#start, this.#start + length));
    this.#consume(length);
    return text;
  }

  /** A chunked body as text; its trailers are read and dropped. */
  async #chunked(): Promise<string> {
    const parts: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const line = await this.#line();
      const size = line.replace(/;.*$/, "").trim();
      if (!/^[0-9a-fA-F]{1,12}$/.test(size)) {
        throw new Error(`malformed chunk size ${JSON.stringify(line)}`);
      }
      const length = parseInt(size, 16);
      if (length === 0) break;
      await this.#fill(length + 2);
      const at = this.#start + length;
      if (this.#buffer[at] !== 13 || this.#buffer[at + 1] !== 10) {
        throw new Error("malformed chunk end");
      }
      parts.push(this.#buffer.slice(this.#start, at));
      total += length;
      this.#consume(length + 2);
    }
    while ((await this.#line()) !== ""); // trailers
    if (parts.length === 1) return decoder.decode(parts[0]);
    const bytes = new Uint8Array(total);
    let offset = 0;
    for (const part of parts) {
      bytes.set(part, offset);
      offset += part.length;
    }
    return decoder.decode(bytes);
  }

  /** A body that ends with the connection. */
  async #untilClosed(): Promise<string> {
    while ((await this.#read()) !== null);
    const text = decoder.decode(this.#buffer.subarray(this.#start, this.#end));
    this.#consume(this.#end - this.#start);
    return text;
  }

  /** The next line (without its CRLF), as text. */
  async #line(): Promise<string> {
    let scanned = 0;
    for (;;) {
      const buffer = this.#buffer;
      for (let i = this.#start + scanned; i + 1 < this.#end; i++) {
        if (buffer[i] === 13 && buffer[i + 1] === 10) {
          const text = decoder.decode(buffer.subarray(this.#start, i));
          this.#consume(i + 2 - this.#start);
          return text;
        }
      }
      scanned = Math.max(0, this.#end - this.#start - 1);
      if (scanned > MAX_HEAD_BYTES) throw new Error("a chunk line of the response is too long");
      await this.#more("in the response");
    }
  }

  /** Wait until `length` unread bytes are buffered. */
  async #fill(length: number): Promise<void> {
    while (this.#end - this.#start < length) await this.#more("in the response body", length);
  }

  /** Read more bytes; fail if the connection ends. */
  async #more(where: string, want = 0): Promise<void> {
    if ((await this.#read(want)) === null) {
      throw new ConnectionLost(`the connection closed ${where}`);
    }
  }

  /** Drop the first `count` unread bytes. */
  #consume(count: number): void {
    this.#start += count;
    if (this.#start === this.#end && this.#reading === undefined) this.#start = this.#end = 0;
  }

  /**
   * The read under way, or a new one into the buffer's free end (made room for first: at
   * least `want` unread bytes must fit). Resolves to the bytes read, `null` at the end.
   */
  #read(want = 0): Promise<number | null> {
    if (this.#reading !== undefined) return this.#reading;
    if (this.#end === this.#buffer.length || this.#start + want > this.#buffer.length) {
      this.#makeRoom(want);
    }
    const reading = this.#socket.read(this.#buffer.subarray(this.#end)).then(
      (read) => {
        this.#reading = undefined;
        if (read !== null) {
          this.#end += read;
          this.#answered ||= !this.#idle && read > 0;
        }
        return read;
      },
      (error) => {
        this.#reading = undefined;
        throw error;
      },
    );
    // A read failing after its connection was closed under it is no one's concern.
    reading.catch(() => {});
    this.#reading = reading;
    return reading;
  }

  /** Move the unread bytes to the buffer's start, in a larger buffer if they need it. */
  #makeRoom(want: number): void {
    const unread = this.#end - this.#start;
    const needed = Math.max(unread + 1, want);
    if (needed > this.#buffer.length) {
      const larger = new Uint8Array(Math.max(needed, this.#buffer.length * 2));
      larger.set(this.#buffer.subarray(this.#start, this.#end));
      this.#buffer = larger;
    } else this.#buffer.copyWithin(0, this.#start, this.#end);
    this.#start = 0;
    this.#end = unread;
  }
}

/** The connection ended before the response did. */
class ConnectionLost extends Error {}

/** Errors of a socket the peer closed or reset. */
function isConnectionLoss(error: unknown): boolean {
  return error instanceof ConnectionLost || error instanceof Deno.errors.BrokenPipe ||
    error instanceof Deno.errors.ConnectionReset ||
    error instanceof Deno.errors.ConnectionAborted ||
    error instanceof Deno.errors.NotConnected ||
    error instanceof Deno.errors.BadResource;
}

const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/;
const DIGITS = /^\d{1,15}$/;

/** Parse a response's status line and headers. */
function parseHead(text: string): ResponseHead {
  const lines = text.split("\r\n");
  const status = STATUS_LINE.exec(lines[0]);
  if (status === null) throw new Error(`malformed status line ${JSON.stringify(lines[0])}`);
  const fields: string[] = [];
  let closes = status[1] === "0";
  let contentLength: number | undefined;
  let transferEncoding: string | undefined;
  let contentEncoding: string | undefined;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    const colon = line.indexOf(":");
    if (colon <= 0 || !TOKEN.test(line.slice(0, colon))) {
      throw new Error(`malformed response header ${JSON.stringify(line)}`);
    }
    const name = line.slice(0, colon).toLowerCase();
    const value = line.slice(colon + 1).trim();
    fields.push(name, value);
    if (name === "content-length" && contentLength === undefined && DIGITS.test(value)) {
      contentLength = Number(value); // the usual case: one plain number
    } else if (name === "content-length") {
      const values = new Set(value.split(",").map((v) => v.trim()));
      const [only] = values;
      if (
        values.size !== 1 || !DIGITS.test(only) ||
        (contentLength !== undefined && contentLength !== Number(only))
      ) {
        throw new Error(`malformed Content-Length ${JSON.stringify(value)}`);
      }
      contentLength = Number(only);
    } else if (name === "transfer-encoding" || name === "content-encoding") {
      const joined = (known: string | undefined) =>
        known === undefined ? value : `${known}, ${value}`;
      if (name === "transfer-encoding") transferEncoding = joined(transferEncoding);
      else contentEncoding = joined(contentEncoding);
    } else if (name === "connection") {
      const tokens = value.toLowerCase().split(",").map((v) => v.trim());
      if (tokens.includes("close")) closes = true;
      else if (tokens.includes("keep-alive")) closes = false;
    }
  }
  return {
    status: Number(status[2]),
    statusText: status[3] ?? "",
    fields,
    closes,
    contentLength,
    transferEncoding: transferEncoding?.toLowerCase(),
    contentEncoding: contentEncoding?.toLowerCase(),
  };
}

/**
 * A response read whole. Its `Headers` are made when first asked for: most callers only
 * read the status and the text, and building `Headers` costs more than the rest of it.
 */
class Http1Response extends Response {
  readonly #fields: string[];
  #headers: Headers | undefined;

  constructor(body: string | null, status: number, statusText: string, fields: string[]) {
    super(body, { status, statusText });
    this.#fields = fields;
  }

  override get headers(): Headers {
    if (this.#headers === undefined) {
      const headers = new Headers();
      for (let i = 0; i < this.#fields.length; i += 2) {
        headers.append(this.#fields[i], this.#fields[i + 1]);
      }
      this.#headers = headers;
    }
    return this.#headers;
  }
}
