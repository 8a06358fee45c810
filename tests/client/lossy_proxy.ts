/**
 * An HTTP/1.1 proxy on 127.0.0.1 in front of a server (the fake cluster, usually) that
 * loses requests or replies on demand: a lost reply's request is forwarded and answered
 * upstream — it takes effect — and then the client's connection is closed without a byte
 * of the answer, as when a network cuts off a reply; a lost request is never forwarded.
 * Either way, the client cannot tell which. Every answer closes its connection, so that
 * each request arrives on a connection of its own.
 */

/** One request as the proxy saw it. */
export interface ProxiedRequest {
  readonly method: string;
  readonly path: string;
  readonly body: string;
  /** Whether it, or its reply, was lost. */
  lost: boolean;
}

/**
 * What to lose of this request: its `reply` (after the upstream server handled it), the
 * `request` itself (never forwarded), or nothing (`false`).
 */
export type LoseReply = (request: ProxiedRequest, index: number) => "reply" | "request" | false;

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** Headers not passed on: the proxy's own connection management. */
const HOP_HEADERS = new Set(["host", "connection", "keep-alive", "content-length", "te"]);
/** The most a request head or body may take. */
const MAX_BYTES = 4 * 1024 * 1024;

/** A running lossy proxy; see the module docs. */
export class LossyProxy {
  readonly requests: ProxiedRequest[] = [];
  readonly url: string;
  readonly #listener: Deno.Listener;
  readonly #upstream: string;
  readonly #lose: LoseReply;
  readonly #connections = new Set<Deno.Conn>();
  readonly #serving: Promise<void>;

  constructor(upstream: string, lose: LoseReply) {
    this.#upstream = upstream.replace(/\/+$/, "");
    this.#lose = lose;
    this.#listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    this.url = `http://127.0.0.1:${(this.#listener.addr as Deno.NetAddr).port}`;
    this.#serving = this.#serve();
  }

  async #serve(): Promise<void> {
    const handling: Promise<void>[] = [];
    try {
      for await (const connection of this.#listener) {
        this.#connections.add(connection);
        handling.push(
          this.#handle(connection).catch(() => {}).finally(() => {
            this.#connections.delete(connection);
            try {
              connection.close();
            } catch {
              // closed already
            }
          }),
        );
      }
    } catch {
      // the listener is closed
    }
    await Promise.all(handling);
  }

  async #handle(connection: Deno.Conn): Promise<void> {
    const raw = await readRequest(connection);
    if (raw === undefined) return;
    const request: ProxiedRequest = { ...raw.request, lost: false };
    const index = this.requests.push(request) - 1;
    const loss = this.#lose(request, index);
    request.lost = loss !== false;
    if (loss === "request") return; // never forwarded; the connection closes
    const headers = new Headers();
    for (const [name, value] of raw.headers) {
      if (!HOP_HEADERS.has(name.toLowerCase())) headers.append(name, value);
    }
    const response = await fetch(this.#upstream + request.path, {
      method: request.method,
      headers,
      body: request.body === "" ? undefined : request.body,
    });
    const text = await response.text();
    if (loss === "reply") return; // handled upstream; the connection closes without an answer
    const bytes = encoder.encode(text);
    let head = `HTTP/1.1 ${response.status} ${response.statusText || "-"}\r\n`;
    for (const [name, value] of response.headers) {
      if (!HOP_HEADERS.has(name) && name !== "transfer-encoding") head += `${name}: ${value}\r\n`;
    }
    head += `content-length: ${bytes.length}\r\nconnection: close\r\n\r\n`;
    await writeAll(connection, encoder.encode(head));
    await writeAll(connection, bytes);
  }

  async close(): Promise<void> {
    this.#listener.close();
    for (const connection of this.#connections) {
      try {
        connection.close();
      } catch {
        // closed already
      }
    }
    await this.#serving;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

async function writeAll(connection: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let written = 0; written < bytes.length;) {
    written += await connection.write(bytes.subarray(written));
  }
}

/** One request from the connection (head and a `Content-Length` body); none at its end. */
async function readRequest(connection: Deno.Conn): Promise<
  { request: Omit<ProxiedRequest, "lost">; headers: [string, string][] } | undefined
> {
  let buffer = new Uint8Array(0);
  const chunk = new Uint8Array(64 * 1024);
  const more = async (): Promise<boolean> => {
    const count = await connection.read(chunk);
    if (count === null) return false;
    const next = new Uint8Array(buffer.length + count);
    next.set(buffer);
    next.set(chunk.subarray(0, count), buffer.length);
    buffer = next;
    if (buffer.length > MAX_BYTES) throw new Error("request too large");
    return true;
  };
  let end = -1;
  while ((end = decoder.decode(buffer).indexOf("\r\n\r\n")) < 0) {
    if (!(await more())) return undefined;
  }
  const lines = decoder.decode(buffer.subarray(0, end)).split("\r\n");
  const [method, path] = lines[0].split(" ");
  const headers = lines.slice(1).map((line): [string, string] => {
    const colon = line.indexOf(":");
    return [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
  });
  const length = Number(
    headers.find(([name]) => name.toLowerCase() === "content-length")?.[1] ?? "0",
  );
  const start = end + 4;
  while (buffer.length < start + length) {
    if (!(await more())) throw new Error("the request body was cut short");
  }
  const body = decoder.decode(buffer.subarray(start, start + length));
  return { request: { method, path, body }, headers };
}
