/**
 * A scripted HTTP server on 127.0.0.1 for client tests: each test answers requests its
 * own way and inspects what was asked. Streaming bodies are written chunk by chunk.
 */
import type { ConnectionInfo } from "../../src/structs/credentials.ts";
import type { JsonValue, RawBody } from "../../src/structs/bodies.ts";
import { ApiClient, type ApiClientOptions } from "../../src/client/api.ts";
import { Vault } from "../../src/client/vault.ts";
import { Resource } from "../../src/structs/resources.ts";
import type { WatchingTuning } from "../../src/client/tuning.ts";
import { type WatchItem, watchObjects, type WatchObjectsOptions } from "../../src/client/watch.ts";
import { assertEquals } from "../assert.ts";

/** The example resource of the tests: namespaced, with a status subresource. */
export const KEX: Resource = new Resource({
  group: "kopf.dev",
  version: "v1",
  plural: "kopfexamples",
  kind: "KopfExample",
  namespaced: true,
  subresources: ["status"],
});

/** One request the server received. */
export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body: string;
}

/** Answers one request. */
export type Script = (request: Recorded, raw: Request) => Response | Promise<Response>;

/** A running scripted server. */
export class ScriptedServer {
  readonly requests: Recorded[] = [];
  readonly url: string;
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  readonly #streams = new Set<ChunkedBody>();
  #closing = false;

  private constructor(server: Deno.HttpServer<Deno.NetAddr>, requests: Recorded[]) {
    this.#server = server;
    this.requests = requests;
    this.url = `http://127.0.0.1:${server.addr.port}`;
  }

  static start(
    script: Script,
    tls?: { cert: string; key: string; clientCa?: string },
  ): ScriptedServer {
    const requests: Recorded[] = [];
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      onListen: () => {},
      ...(tls ? { cert: tls.cert, key: tls.key } : {}),
    }, async (raw) => {
      const url = new URL(raw.url);
      const recorded: Recorded = {
        method: raw.method,
        path: url.pathname,
        query: url.searchParams,
        headers: raw.headers,
        body: await raw.text(),
      };
      requests.push(recorded);
      return await script(recorded, raw);
    });
    return new ScriptedServer(server, requests);
  }

  /** A streaming body to return from a script; write to it, close it, or leave it open. */
  stream(): ChunkedBody {
    const body = new ChunkedBody(() => this.#streams.delete(body));
    // A stream asked for while the server stops would hold its graceful shutdown forever.
    if (this.#closing) body.close();
    else this.#streams.add(body);
    return body;
  }

  /** Credentials for this server. */
  info(extra: Partial<ConnectionInfo> = {}): ConnectionInfo {
    return { server: this.url, token: "test-token", ...extra };
  }

  /** A client with one login that always returns this server's credentials. */
  client(options: ApiClientOptions = {}): ApiClient {
    const vault = new Vault({ relogin: () => Promise.resolve({ test: this.info() }) });
    return new ApiClient(vault, { networking: { errorBackoffs: [] }, ...options });
  }

  async close(): Promise<void> {
    this.#closing = true;
    for (const stream of this.#streams) stream.close();
    await this.#server.shutdown();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** A response body written piece by piece by the test. */
export class ChunkedBody {
  readonly #encoder = new TextEncoder();
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #closed = false;
  readonly cancelled: Promise<void>;
  readonly readable: ReadableStream<Uint8Array>;

  constructor(onDone: () => void) {
    let cancelled!: () => void;
    this.cancelled = new Promise((resolve) => (cancelled = resolve));
    this.readable = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => {
        this.#closed = true;
        onDone();
        cancelled();
      },
    });
  }

  /** A 200 response with this body. */
  response(): Response {
    return new Response(this.readable, { headers: { "content-type": "application/json" } });
  }

  /** Write bytes (or text) as one chunk. */
  write(data: Uint8Array | string): void {
    if (this.#closed) return;
    this.#controller.enqueue(typeof data === "string" ? this.#encoder.encode(data) : data);
  }

  /** Write one watch event as a line. */
  event(type: string, object: unknown): void {
    this.write(JSON.stringify({ type, object }) + "\n");
  }

  /** End the body cleanly. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#controller.close();
  }
}

/** A JSON response. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** A Kubernetes `Status` error response. */
export function status(code: number, reason: string, message: string): Response {
  return json({ kind: "Status", apiVersion: "v1", status: "Failure", code, reason, message }, code);
}

/** A list response. */
export function list(items: unknown[], resourceVersion: string, cont?: string): Response {
  return json({
    kind: "KopfExampleList",
    apiVersion: "kopf.dev/v1",
    metadata: { resourceVersion, ...(cont ? { continue: cont } : {}) },
    items,
  });
}

/** A small object with a name and resourceVersion. */
export function obj(name: string, resourceVersion: string, spec: JsonValue = {}): RawBody {
  return { metadata: { name, namespace: "ns", resourceVersion }, spec };
}

/**
 * Take `count` items of a watch of KopfExamples in `ns` (with the options given), then stop
 * it. The items come by themselves; the timer only turns a stuck watch into a failure.
 */
export async function collectWatch(
  server: ScriptedServer,
  count: number,
  watching: WatchingTuning,
  options: Partial<WatchObjectsOptions> = {},
): Promise<WatchItem[]> {
  await using api = server.client({ watching });
  const controller = new AbortController();
  const items: WatchItem[] = [];
  const timer = setTimeout(() => controller.abort(), 10_000);
  try {
    const watch = watchObjects(api, KEX, {
      ...options,
      namespace: "ns",
      signal: controller.signal,
    });
    for await (const item of watch) {
      items.push(item);
      if (items.length >= count) controller.abort();
    }
  } finally {
    clearTimeout(timer);
  }
  assertEquals(items.length, count, `watch items within 10s: ${JSON.stringify(items)}`);
  return items;
}
