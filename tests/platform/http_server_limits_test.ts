/**
 * The platform HTTP server's limits against real misbehaving clients over raw TCP (and
 * TLS): oversized bodies are refused unread, silent connections and trickling heads and
 * bodies are cut off at their deadlines, idle connections are closed, a client's
 * connections past its share are closed while other clients are served, and a response
 * nobody reads is dropped.
 */
import {
  type HttpHandler,
  type HttpServer,
  type HttpServerLimits,
  startHttpServer,
} from "../../src/platform/http_server.ts";
import {
  generateCertificateAuthority,
  issueServerCertificate,
} from "../../src/platform/certificates.ts";
import type { Logger } from "../../src/structs/loggers.ts";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { ATTACKER, IdleClient } from "./idle_clients.ts";

const MiB = 1024 * 1024;

/** Small bounds, so that the deadlines pass quickly. */
const LIMITS: HttpServerLimits = {
  bodyLimit: MiB,
  headerTimeout: 1,
  bodyTimeout: 1,
  idleTimeout: 1,
  clientConnectionLimit: 4,
  connectionLimit: 4,
};

/** The handler's calls: a refused request never reaches it. */
function echo(): { handler: HttpHandler; calls: number[] } {
  const calls: number[] = [];
  return {
    calls,
    handler: async (request) => {
      const size = (await request.arrayBuffer()).byteLength;
      calls.push(size);
      return new Response(`got ${size}`);
    },
  };
}

async function serve(
  limits: Partial<HttpServerLimits> = {},
  handler: HttpHandler = echo().handler,
  logger?: Logger,
): Promise<HttpServer & AsyncDisposable> {
  const server = await startHttpServer({ handler, logger, limits: { ...LIMITS, ...limits } });
  return Object.assign(server, { [Symbol.asyncDispose]: () => server.close() });
}

/**
 * A raw client: it writes what it is told and reads everything the server sends, until the
 * server closes the connection (or breaks it).
 */
class RawClient {
  readonly opened = performance.now();
  /** Bytes written successfully. */
  sent = 0;
  /** What the server sent, as text. */
  received = "";
  /** Resolves with the milliseconds since opening when the server has closed the connection. */
  readonly closed: Promise<number>;
  /** Resolves once the first bytes of an answer came. */
  readonly answered: Promise<void>;
  readonly #conn: Deno.Conn;

  constructor(conn: Deno.Conn) {
    this.#conn = conn;
    let answer!: () => void;
    this.answered = new Promise((resolve) => (answer = resolve));
    this.closed = (async () => {
      const buffer = new Uint8Array(65536);
      try {
        while (true) {
          const n = await conn.read(buffer);
          if (n === null) break;
          this.received += new TextDecoder().decode(buffer.subarray(0, n));
          answer();
        }
      } catch {
        // reset by the server: closed all the same
      }
      return performance.now() - this.opened;
    })();
  }

  static async open(port: number, tls?: { ca: string }): Promise<RawClient> {
    const conn = tls
      ? await Deno.connectTls({ hostname: "127.0.0.1", port, caCerts: [tls.ca] })
      : await Deno.connect({ hostname: "127.0.0.1", port });
    return new RawClient(conn);
  }

  /** Write all the bytes; false if the connection broke. */
  async write(data: string | Uint8Array): Promise<boolean> {
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    try {
      for (let offset = 0; offset < bytes.length;) {
        const n = await this.#conn.write(bytes.subarray(offset));
        offset += n;
        this.sent += n;
      }
      return true;
    } catch {
      return false;
    }
  }

  /** Write one byte every `interval` ms until the server closes or all is sent. */
  async trickle(data: string, interval: number): Promise<void> {
    let closed = false;
    void this.closed.then(() => (closed = true));
    for (const char of data) {
      if (closed || !(await this.write(char))) return;
      await new Promise((resolve) => setTimeout(resolve, interval));
    }
  }

  /** The status code of the first answer. */
  get status(): number | undefined {
    const match = /^HTTP\/1\.1 (\d{3})/.exec(this.received);
    return match === null ? undefined : Number(match[1]);
  }

  [Symbol.dispose](): void {
    try {
      this.#conn.close();
    } catch {
      // closed already
    }
  }
}

/** Resolves with `undefined` after `ms`: for racing an event that should come sooner. */
function after(ms: number): Promise<undefined> {
  return new Promise((resolve) => {
    // Unref'd: a race won by the event does not wait for the timer.
    Deno.unrefTimer(Number(setTimeout(() => resolve(undefined), ms)));
  });
}

/** Wait (10 seconds at most) until the server has closed the connection. */
async function closedBy(client: RawClient): Promise<void> {
  const closed = await Promise.race([client.closed, after(10_000)]);
  assert(closed !== undefined, `the server left the connection open: ${client.received}`);
}

/** Wait (10 seconds at most) for the server's answer. */
async function answerOf(client: RawClient): Promise<void> {
  const answered = await Promise.race([client.answered.then(() => true), after(10_000)]);
  assert(answered, "no answer within 10 s");
}

/**
 * Stream a body of `total` bytes (1 MiB at a time) until the server answers or breaks the
 * connection; the client reads the whole time, as the API server does.
 */
async function stream(client: RawClient, total: number, chunk: Uint8Array): Promise<void> {
  let answered = false;
  void client.answered.then(() => (answered = true));
  while (client.sent < total && !answered) {
    if (!(await client.write(chunk))) break;
  }
}

Deno.test("a body announced over the cap gets 413 before it is read; the memory stays flat", async () => {
  const { handler, calls } = echo();
  await using server = await serve({}, handler);
  using client = await RawClient.open(server.port);
  const rss = Deno.memoryUsage().rss;
  const total = 600 * MiB;
  await client.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${total}\r\n\r\n`);
  await stream(client, total, new Uint8Array(MiB).fill(97));
  await closedBy(client);
  assertEquals(client.status, 413, client.received);
  assertStringIncludes(client.received, "connection: close");
  assertStringIncludes(client.received, `over the limit of ${MiB} bytes`);
  // The server stopped reading: the client could only fill the sockets' buffers.
  assert(client.sent < 64 * MiB, `the client sent ${client.sent / MiB} MiB`);
  const growth = (Deno.memoryUsage().rss - rss) / MiB;
  assert(growth < 100, `the process grew by ${growth} MiB`);
  assertEquals(calls, []);
});

Deno.test("a chunked body is cut off with 413 once it passes the cap; the rest is never read", async () => {
  const { handler, calls } = echo();
  await using server = await serve({}, handler);
  using client = await RawClient.open(server.port);
  const size = `${MiB.toString(16)}\r\n`;
  const chunk = new TextEncoder().encode(`${size}${"a".repeat(MiB)}\r\n`);
  await client.write("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
  await stream(client, 600 * MiB, chunk);
  await closedBy(client);
  assertEquals(client.status, 413, client.received);
  assert(client.sent < 64 * MiB, `the client sent ${client.sent / MiB} MiB`);
  assertEquals(calls, []);
});

Deno.test("Expect: 100-continue over the cap gets 413 before the body is sent", async () => {
  await using server = await serve();
  using client = await RawClient.open(server.port);
  await client.write(
    `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${8 * MiB}\r\nExpect: 100-continue\r\n\r\n`,
  );
  await closedBy(client);
  assertEquals(client.status, 413, client.received);
});

Deno.test("bodies within the cap reach the handler whole; a server for no bodies refuses any", async () => {
  const { handler, calls } = echo();
  await using server = await serve({}, handler);
  const small = await fetch(server.url, { method: "POST", body: "x".repeat(1000) });
  assertEquals([small.status, await small.text()], [200, "got 1000"]);
  const full = await fetch(server.url, { method: "POST", body: new Uint8Array(MiB) });
  assertEquals([full.status, await full.text()], [200, `got ${MiB}`]);
  assertEquals(calls, [1000, MiB]);

  await using bodiless = await serve({ bodyLimit: 0 });
  const get = await fetch(bodiless.url);
  assertEquals([get.status, await get.text()], [200, "got 0"]);
  const post = await fetch(bodiless.url, { method: "POST", body: "x" });
  assertEquals(post.status, 413);
  await post.body?.cancel();
});

Deno.test("the bodies held at once are bounded: a request past the buffer gets 503", async () => {
  await using server = await serve({ bodyLimit: 600_000, bufferLimit: MiB });
  using first = await RawClient.open(server.port);
  await first.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 600000\r\n\r\n`);
  await first.write(new Uint8Array(590_000)); // held while the rest is awaited
  using second = await RawClient.open(server.port);
  await second.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 600000\r\n\r\n`);
  await second.write(new Uint8Array(600_000));
  await closedBy(second);
  assertEquals(second.status, 503, second.received);
  await first.write(new Uint8Array(10_000));
  await answerOf(first);
  assertEquals(first.status, 200, first.received);
  assertStringIncludes(first.received, "got 600000");
});

Deno.test("a head trickled byte by byte is cut off at the header timeout", async () => {
  await using server = await serve({ headerTimeout: 1 });
  using client = await RawClient.open(server.port);
  void client.trickle(`GET / HTTP/1.1\r\nHost: x\r\nX-Long: ${"a".repeat(100)}\r\n\r\n`, 100);
  const closedAt = await Promise.race([client.closed, after(5000)]);
  assert(closedAt !== undefined, "the connection is still open after 5 s");
  assert(closedAt >= 900 && closedAt < 3000, `closed after ${closedAt} ms`);
  assertEquals(client.received, "", "the handler never answered");
});

Deno.test("a first head counts from the connection's start, a later one from its first byte", async () => {
  await using server = await serve({ headerTimeout: 2, idleTimeout: 5 });
  const head = `GET / HTTP/1.1\r\nHost: x\r\nX-Long: ${"a".repeat(100)}\r\n\r\n`;
  using late = await RawClient.open(server.port);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  void late.trickle(head, 100); // Node's own deadline would end 2 s after this first byte
  const closedAt = await Promise.race([late.closed, after(6000)]);
  assert(closedAt !== undefined, "the connection is still open after 6 s");
  assert(closedAt >= 1900 && closedAt < 3000, `closed after ${closedAt} ms`);

  using kept = await RawClient.open(server.port);
  await kept.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  await answerOf(kept);
  await new Promise((resolve) => setTimeout(resolve, 1500)); // idle, within idleTimeout
  const started = performance.now();
  void kept.trickle(head, 100);
  await closedBy(kept);
  const elapsed = performance.now() - started;
  assert(elapsed >= 1900 && elapsed < 4000, `the second head was cut off after ${elapsed} ms`);
});

Deno.test("a TLS connection that never completes its handshake is closed at the header timeout", async () => {
  const authority = await generateCertificateAuthority({ commonName: "test-ca" });
  const issued = await issueServerCertificate(authority, { hostnames: ["127.0.0.1"] });
  const server = await startHttpServer({
    handler: () => new Response("ok"),
    tls: { certificate: issued.certPem, privateKey: issued.keyPem },
    limits: { ...LIMITS, headerTimeout: 1 },
  });
  try {
    const served = await fetch(server.url, {
      client: Deno.createHttpClient({ caCerts: [authority.certPem] }),
    });
    assertEquals(await served.text(), "ok");
    using silent = await RawClient.open(server.port); // TCP only: no ClientHello
    const closedAt = await Promise.race([silent.closed, after(5000)]);
    assert(closedAt !== undefined, "the connection is still open after 5 s");
    assert(closedAt >= 900 && closedAt < 3000, `closed after ${closedAt} ms`);
  } finally {
    await server.close();
  }
});

Deno.test("a body trickled after its head gets 408 at the body timeout", async () => {
  const { handler, calls } = echo();
  await using server = await serve({ bodyTimeout: 1 }, handler);
  using client = await RawClient.open(server.port);
  await client.write("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n");
  const started = performance.now();
  void client.trickle("a".repeat(100), 100);
  await closedBy(client);
  const elapsed = performance.now() - started;
  assertEquals(client.status, 408, client.received);
  assert(elapsed >= 900 && elapsed < 3000, `closed after ${elapsed} ms`);
  assertEquals(calls, []);
});

Deno.test("a kept-alive connection is closed after the idle timeout, not before", async () => {
  await using server = await serve({ idleTimeout: 1 });
  using client = await RawClient.open(server.port);
  await client.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  await answerOf(client);
  const answeredAt = performance.now() - client.opened;
  const closedAt = await Promise.race([client.closed, after(5000)]);
  assert(closedAt !== undefined, "the idle connection is still open after 5 s");
  const idle = closedAt - answeredAt;
  // Node keeps an idle connection a second beyond its keep-alive timeout.
  assert(idle >= 900 && idle < 3500, `closed after ${idle} ms idle`);
  assertEquals(client.status, 200);
});

Deno.test("connections past the total limit are closed at once; those within are served", async () => {
  await using server = await serve({ connectionLimit: 2, headerTimeout: 5 });
  using first = await RawClient.open(server.port);
  using second = await RawClient.open(server.port);
  await first.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n"); // the server has seen both now
  await answerOf(first);
  using third = await RawClient.open(server.port);
  const closedAt = await Promise.race([third.closed, after(3000)]);
  assert(closedAt !== undefined && closedAt < 1000, `the third was closed after ${closedAt} ms`);
  assertEquals(third.received, "");
  await second.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  await answerOf(second);
  assertEquals([first.status, second.status], [200, 200]);
});

Deno.test("a response the client does not read is dropped at the body timeout", async () => {
  let cancelled: (() => void) | undefined;
  const stopped = new Promise<void>((resolve) => (cancelled = resolve));
  const endless: HttpHandler = () =>
    new Response(
      new ReadableStream<Uint8Array>({
        pull: (controller) => controller.enqueue(new Uint8Array(65536)),
        cancel: () => cancelled?.(),
      }),
    );
  await using server = await serve({ bodyTimeout: 1 }, endless);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
  try {
    await conn.write(new TextEncoder().encode("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
    const started = performance.now();
    const result = await Promise.race([stopped.then(() => "stopped"), after(5000)]);
    const elapsed = performance.now() - started;
    assertEquals(result, "stopped", "the server still writes after 5 s");
    assert(elapsed >= 900 && elapsed < 3000, `dropped after ${elapsed} ms`);
  } finally {
    conn.close();
  }
});

/** A logger that keeps its warnings. */
function recorder(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const none = () => {};
  return { warnings, debug: none, info: none, error: none, warning: (m) => warnings.push(m) };
}

Deno.test("a connection that never sends a byte is closed at the header timeout, unanswered", async () => {
  await using server = await serve({ headerTimeout: 1, idleTimeout: 5 });
  using silent = await RawClient.open(server.port);
  const closedAt = await Promise.race([silent.closed, after(5000)]);
  assert(closedAt !== undefined, "the silent connection is still open after 5 s");
  assert(closedAt >= 900 && closedAt < 3000, `closed after ${closedAt} ms`);
  assertEquals(silent.received, "");
});

Deno.test("one client's connections past its share are closed at once; other clients are served", async () => {
  const logger = recorder();
  await using server = await serve(
    { clientConnectionLimit: 3, connectionLimit: 64, headerTimeout: 5 },
    echo().handler,
    logger,
  );
  // As many as the server takes in all: only the share per client leaves room for others.
  using idle = await IdleClient.open(server.port, 64);
  assert(await idle.closedAtLeast(61), `the server closed ${idle.closed} of 64`);
  for (let i = 0; i < 5; i++) {
    const answer = await fetch(server.url, { signal: AbortSignal.timeout(1000) });
    assertEquals([answer.status, await answer.text()], [200, "got 0"]);
  }
  assertEquals(idle.open, 3, "the idle client keeps its share");
  // 61 refusals, one line: the client, what it holds, and what to raise.
  assertEquals(logger.warnings.length, 1, logger.warnings.join("\n"));
  assertStringIncludes(logger.warnings[0], `closed a connection from ${ATTACKER} unanswered`);
  assertStringIncludes(logger.warnings[0], "holds 3 connections already");
  assertStringIncludes(logger.warnings[0], "clientConnectionLimit");
});

Deno.test("a client's slots are given back as its connections close", async () => {
  await using server = await serve({ clientConnectionLimit: 2, connectionLimit: 64 });
  using first = await IdleClient.open(server.port, 3);
  assert(await first.closedAtLeast(1));
  assertEquals(first.open, 2);
  first[Symbol.dispose]();
  // Its closes reach the server soon after: then the same address has its share again.
  let open = 0;
  for (let tries = 0; tries < 50 && open < 2; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    using again = await IdleClient.open(server.port, 2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    open = again.open;
  }
  assertEquals(open, 2);
});

Deno.test("the share holds over TLS too: past it, no handshake is made", async () => {
  const authority = await generateCertificateAuthority({ commonName: "test-ca" });
  const issued = await issueServerCertificate(authority, { hostnames: ["127.0.0.1"] });
  const server = await startHttpServer({
    handler: () => new Response("ok"),
    tls: { certificate: issued.certPem, privateKey: issued.keyPem },
    limits: { ...LIMITS, clientConnectionLimit: 2, connectionLimit: 64, headerTimeout: 5 },
    logger: recorder(),
  });
  try {
    using idle = await IdleClient.open(server.port, 10);
    assert(await idle.closedAtLeast(8), `the server closed ${idle.closed} of 10`);
    const client = Deno.createHttpClient({ caCerts: [authority.certPem] });
    for (let i = 0; i < 3; i++) {
      const served = await fetch(server.url, { client, signal: AbortSignal.timeout(1000) });
      assertEquals(await served.text(), "ok");
    }
    client.close();
    assertEquals(idle.open, 2);
  } finally {
    await server.close();
  }
});
