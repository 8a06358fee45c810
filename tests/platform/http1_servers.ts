/**
 * Scripted TCP servers for the tests of the HTTP/1.1 agent: they read requests as they
 * come and answer each with the bytes a script says, whole or in parts, so that every
 * shape of answer (and of misbehaviour) can be played.
 */
import { assert } from "../assert.ts";
import type { Http1Agent } from "../../src/platform/http1_agent.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A request as a scripted server read it. */
export interface Received {
  head: string;
  body: string;
  /** The connection it came on, counted from 0. */
  connection: number;
}

/** What a scripted server sends back: bytes, then maybe the end of the connection. */
export interface Answer {
  bytes: string | Uint8Array;
  /** Sent after `bytes`, one write each, until the client goes (or they end). */
  parts?: AsyncIterable<string | Uint8Array>;
  close?: boolean;
  /** Wait before answering (an answer never sent while this stays unresolved). */
  until?: Promise<void>;
}

/**
 * A TCP server that answers each request as the script says, and records them; `ended(n)`
 * settles once the client has closed connection `n` (or the script did).
 */
export async function withScriptedServer(
  script: (request: Received, index: number) => Answer,
  test: (
    url: string,
    received: Received[],
    connections: () => number,
    ended: (connection: number) => Promise<void>,
  ) => Promise<void>,
): Promise<void> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const received: Received[] = [];
  const open = new Set<Deno.Conn>();
  const endings = new Map<number, PromiseWithResolvers<void>>();
  const ending = (connection: number) => {
    let known = endings.get(connection);
    if (known === undefined) endings.set(connection, known = Promise.withResolvers<void>());
    return known;
  };
  let connections = 0;
  const serving: Promise<void>[] = [];
  const accepting = (async () => {
    for await (const conn of listener) {
      open.add(conn);
      serving.push(serve(conn, connections++).finally(() => open.delete(conn)));
    }
  })();
  async function serve(conn: Deno.Conn, connection: number): Promise<void> {
    let buffer = new Uint8Array(0);
    const read = async () => {
      const chunk = new Uint8Array(65536);
      const n = await conn.read(chunk).catch(() => null);
      if (n === null) return false;
      const next = new Uint8Array(buffer.length + n);
      next.set(buffer);
      next.set(chunk.subarray(0, n), buffer.length);
      buffer = next;
      return true;
    };
    try {
      for (;;) {
        let end: number;
        while ((end = decoder.decode(buffer).indexOf("\r\n\r\n")) < 0) {
          if (!(await read())) return;
        }
        const head = decoder.decode(buffer).slice(0, end);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        const start = encoder.encode(head).length + 4;
        while (buffer.length < start + length) if (!(await read())) return;
        const request = {
          head,
          body: decoder.decode(buffer.subarray(start, start + length)),
          connection,
        };
        buffer = buffer.slice(start + length);
        received.push(request);
        const answer = script(request, received.length - 1);
        await answer.until;
        if (!(await write(conn, answer.bytes))) return;
        if (answer.parts !== undefined) {
          for await (const part of answer.parts) if (!(await write(conn, part))) return;
        }
        if (answer.close) return;
      }
    } finally {
      closeQuietly(conn);
      ending(connection).resolve();
    }
  }
  try {
    await test(
      `http://127.0.0.1:${listener.addr.port}`,
      received,
      () => connections,
      (connection) => ending(connection).promise,
    );
  } finally {
    listener.close();
    for (const conn of open) closeQuietly(conn);
    await accepting.catch(() => {});
    await Promise.allSettled(serving);
  }
}

/** Write all the bytes; `false` if the client has gone. */
async function write(conn: Deno.Conn, bytes: string | Uint8Array): Promise<boolean> {
  const data = typeof bytes === "string" ? encoder.encode(bytes) : bytes;
  try {
    for (let at = 0; at < data.length;) at += await conn.write(data.subarray(at));
    return true;
  } catch {
    return false;
  }
}

/** Close the connection unless already closed. */
export function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // Closed already, by its other end of the test.
  }
}

/** A plain answer with a length. */
export function ok(body: string, extra = ""): Answer {
  return {
    bytes: `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n${extra}` +
      `content-length: ${encoder.encode(body).length}\r\n\r\n${body}`,
  };
}

/** Send a write through the agent (which must take it): a PATCH unless told. */
export function patch(
  agent: Http1Agent,
  url: string,
  body = "{}",
  signal?: AbortSignal,
  method = "PATCH",
): Promise<Response> {
  const sent = agent.fetch(url, {
    method,
    headers: Object.freeze({
      "content-type": "application/merge-patch+json",
      "user-agent": "kopf",
    }),
    body,
    ...(signal ? { signal } : {}),
  });
  assert(sent !== undefined, `the agent should take a ${method}`);
  return sent;
}

/** A server that takes requests and never answers; `arrived` once the first came. */
export async function withSilentServer(
  test: (url: string, arrived: Promise<void>) => Promise<void>,
): Promise<void> {
  const never = Promise.withResolvers<void>();
  const arrived = Promise.withResolvers<void>();
  await withScriptedServer(() => {
    arrived.resolve();
    return { ...ok("{}"), until: never.promise };
  }, async (url) => {
    try {
      await test(url, arrived.promise);
    } finally {
      never.resolve();
    }
  });
}

/** The parts, one every `ms` milliseconds, at most `count` of them. */
export async function* paced(
  part: string | Uint8Array,
  ms: number,
  count: number,
): AsyncGenerator<string | Uint8Array> {
  for (let i = 0; i < count; i++) {
    if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
    yield part;
  }
}
