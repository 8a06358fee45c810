/**
 * The HTTP client's response bodies: streamed chunks sized to their data (not to Deno's
 * 64 KiB read buffers, which an operator at scale pays for in RSS), whole bodies read by
 * the runtime from its own response (no wrapper), and reads in progress ended by an abort — with no resource left open
 * (the test sanitizers check that). Streams go over the HTTP/1.1 agent's sockets; those it
 * does not take (a `Headers` object, here) over `fetch`: both are checked.
 */
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { chunkReaderOf } from "../../src/platform/chunk_readers.ts";
import { createHttpClient } from "../../src/platform/http_client.ts";
import { Http1StreamResponse } from "../../src/platform/http1_streams.ts";
import { Http1Response } from "../../src/platform/http1_responses.ts";

/** The two paths of a stream: the agent's sockets, or `fetch` (which the agent leaves). */
const PATHS = ["agent", "fetch"] as const;
type Path = typeof PATHS[number];

/** Headers that send a stream by this path. */
function headersFor(path: Path): HeadersInit {
  return path === "agent" ? { accept: "application/json" } : new Headers();
}

/** A loopback server whose responses stream the given parts, flushed one by one. */
async function withServer(
  parts: readonly string[],
  test: (url: string, release: () => void) => Promise<void>,
  options: { stall?: boolean } = {},
): Promise<void> {
  const encoder = new TextEncoder();
  const released = Promise.withResolvers<void>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        for (const part of parts) {
          controller.enqueue(encoder.encode(part));
          await new Promise((resolve) => setTimeout(resolve, 5)); // one network chunk each
        }
        if (options.stall) await released.promise;
        controller.close();
      },
    });
    return new Response(body, { headers: { "content-type": "application/json" } });
  });
  try {
    await test(`http://127.0.0.1:${server.addr.port}/`, () => released.resolve());
  } finally {
    released.resolve();
    await server.shutdown();
  }
}

const LINES = Array.from({ length: 20 }, (_, i) => `{"type":"ADDED","object":{"n":${i}}}\n`);

/** Run `test` with the response of a streamed request for the lines, by this path. */
async function withStream(
  path: Path,
  test: (response: Response) => Promise<void>,
): Promise<void> {
  await withServer(LINES, async (url) => {
    const client = await createHttpClient({});
    try {
      const signal = new AbortController().signal;
      const response = await client.fetch(url, { signal, stream: true, headers: headersFor(path) });
      assertEquals(response instanceof Http1StreamResponse, path === "agent");
      await test(response);
    } finally {
      await client.close();
    }
  });
}

for (const path of PATHS) {
  Deno.test(`${path}: streamed chunks are buffers of their own size, not read buffers`, async () => {
    await withStream(path, async (response) => {
      const decoder = new TextDecoder();
      let text = "";
      let chunks = 0;
      for await (const chunk of response.body!) {
        chunks++;
        assertEquals(chunk.buffer.byteLength, chunk.byteLength, "a chunk pins a larger buffer");
        text += decoder.decode(chunk, { stream: true });
      }
      assertEquals(text, LINES.join(""));
      assert(chunks > 1, `the server's flushes should arrive as several chunks, got ${chunks}`);
    });
  });
}

Deno.test("fetch: a streamed body's chunks taken directly are the same, lent in their read buffers", async () => {
  await withStream("fetch", async (response) => {
    const body = response.body!;
    const reader = chunkReaderOf(body);
    assert(body.locked, "the stream is locked once its chunks are taken directly");
    const decoder = new TextDecoder();
    let text = "";
    const buffers = new Set<number>();
    let chunks = 0;
    for (let chunk = await reader.read(); chunk !== undefined; chunk = await reader.read()) {
      // Not copied out: a view of the read buffer, which the next read reuses.
      chunks++;
      buffers.add(chunk.buffer.byteLength);
      assertEquals(chunk.byteOffset, 0);
      text += decoder.decode(chunk, { stream: true });
    }
    assertEquals(text, LINES.join(""));
    assert(chunks > 1, `the server's flushes should arrive as several chunks, got ${chunks}`);
    assertEquals([...buffers], [64 * 1024], "the chunks are lent in pooled read buffers");
    assertEquals(await reader.read(), undefined);
  });
});

Deno.test("agent: a streamed body's chunks taken directly are the same, lent in the connection's buffer", async () => {
  await withStream("agent", async (response) => {
    const body = response.body!;
    const reader = chunkReaderOf(body);
    assert(body.locked, "the stream is locked once its chunks are taken directly");
    const decoder = new TextDecoder();
    let text = "";
    const buffers = new Set<ArrayBufferLike>();
    let chunks = 0;
    for (let chunk = await reader.read(); chunk !== undefined; chunk = await reader.read()) {
      // Not copied out: a view of the connection's read buffer, which the next read reuses.
      chunks++;
      buffers.add(chunk.buffer);
      text += decoder.decode(chunk, { stream: true });
    }
    assertEquals(text, LINES.join(""));
    assert(chunks > 1, `the server's flushes should arrive as several chunks, got ${chunks}`);
    assertEquals(buffers.size, 1, "the chunks are lent in the connection's one read buffer");
    assertEquals(await reader.read(), undefined);
  });
});

Deno.test("agent: a stream's error status comes whole, its body read for the error", async () => {
  // As kube-apiserver answers a watch from a version its watch cache no longer holds:
  // apiserver/pkg/storage/cacher/watch_cache.go, errors.NewResourceExpired (apimachinery's
  // api/errors/errors.go: a Failure, reason Expired, code 410).
  const status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: "too old resource version: 1 (5)",
    reason: "Expired",
    code: 410,
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    return Response.json(status, { status: 410 });
  });
  const client = await createHttpClient({});
  try {
    const url = `http://127.0.0.1:${server.addr.port}/`;
    const response = await client.fetch(url, { stream: true, headers: headersFor("agent") });
    assertEquals(response.status, 410);
    assertEquals(response instanceof Http1StreamResponse, false);
    assertEquals(await response.json(), status);
  } finally {
    await client.close();
    await server.shutdown();
  }
});

Deno.test("whole bodies are read as sent, with the response's status and headers", async () => {
  await withServer(LINES, async (url) => {
    const client = await createHttpClient({});
    try {
      const signal = new AbortController().signal;
      const response = await client.fetch(url, { signal });
      // Read at once, a body needs no guard: the runtime's own response, not a wrapper.
      assertEquals(Object.getPrototypeOf(response), Response.prototype);
      assertEquals(response.status, 200);
      assertEquals(response.headers.get("content-type"), "application/json");
      assertEquals(response.bodyUsed, false);
      assertEquals(await response.text(), LINES.join(""));
      assertEquals(response.bodyUsed, true);
      const again = await client.fetch(url, { signal });
      assertEquals(new TextDecoder().decode(await again.bytes()), LINES.join(""));
    } finally {
      await client.close();
    }
  });
});

/**
 * A response from a server that sends the first line and then stalls; `abort` aborts its
 * request with the error given.
 */
async function withStalledResponse(
  stream: boolean,
  check: (response: Response, abort: (reason: Error) => void) => Promise<void>,
  path: Path = "fetch",
): Promise<void> {
  await withServer(LINES.slice(0, 1), async (url, release) => {
    const client = await createHttpClient({});
    try {
      const controller = new AbortController();
      const headers = headersFor(path);
      const response = await client.fetch(url, { signal: controller.signal, stream, headers });
      await check(response, (reason) => controller.abort(reason));
    } finally {
      release();
      await client.close();
    }
  }, { stall: true });
}

for (const path of PATHS) {
  Deno.test(`${path}: an abort ends a streamed read waiting for a stalled server`, async () => {
    await withStalledResponse(true, async (response, abort) => {
      const reader = response.body!.getReader();
      assertEquals(new TextDecoder().decode((await reader.read()).value), LINES[0]);
      const pending = reader.read();
      abort(new Error("enough"));
      await assertRejects(() => pending, Error, "enough");
    }, path);
  });

  Deno.test(`${path}: an abort ends a direct read of a stream waiting for a stalled server`, async () => {
    await withStalledResponse(true, async (response, abort) => {
      const reader = chunkReaderOf(response.body!);
      assertEquals(new TextDecoder().decode(await reader.read()), LINES[0]);
      const pending = reader.read();
      abort(new Error("enough"));
      await assertRejects(() => pending, Error, "enough");
      await assertRejects(() => reader.read(), Error, "enough");
    }, path);
  });
}

Deno.test("an abort ends a whole-body read waiting for a stalled server", async () => {
  await withStalledResponse(false, async (response, abort) => {
    const pending = response.text();
    await new Promise((resolve) => setTimeout(resolve, 20)); // the read waits on the server
    abort(new Error("enough"));
    await assertRejects(() => pending, Error, "enough");
  });
});

Deno.test("agent: a read is answered whole over the client's own connection; a compressed one by fetch", async () => {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    return Response.json({ encoding: request.headers.get("accept-encoding") });
  });
  const client = await createHttpClient({});
  try {
    const url = `http://127.0.0.1:${server.addr.port}/`;
    const plain = await client.fetch(url, { method: "GET", headers: headersFor("agent") });
    assert(plain instanceof Http1Response, "a read goes over the agent");
    assertEquals(await plain.json(), { encoding: null });
    const large = await client.fetch(url, {
      method: "GET",
      headers: headersFor("agent"),
      compressed: true,
    });
    assertEquals(large instanceof Http1Response, false, "a compressed read goes over fetch");
    const { encoding } = await large.json() as { encoding: string };
    assert(encoding.includes("gzip"), `fetch asks for compression: ${encoding}`);
  } finally {
    await client.close();
    await server.shutdown();
  }
});
