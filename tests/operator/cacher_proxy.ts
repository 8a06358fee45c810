/**
 * An HTTP proxy on 127.0.0.1 in front of a server (the fake cluster) that rewrites only
 * the `DELETED` events of watches as kube-apiserver's cacher sends them
 * (staging/src/k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go, `convertToWatchEvent`):
 * the object's previous content as this watch last delivered it, stamped with the
 * `DELETED` event's resourceVersion. Whatever the server behind it sends for an object
 * that stops matching the watch's selectors, the client sees what a real server sends.
 * Every other request and line passes unchanged.
 */

/** Headers not passed on: the connections' own. */
const HOP_HEADERS = new Set(["host", "connection", "keep-alive", "content-length", "te"]);

/** A JSON object of a watch line. */
type Json = Record<string, unknown>;

/** A running proxy; see the module docs. */
export class CacherProxy {
  readonly url: string;
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  readonly #upstream: string;
  readonly #aborts = new Set<AbortController>();

  constructor(upstream: string) {
    this.#upstream = upstream.replace(/\/+$/, "");
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (request) => this.#forward(request),
    );
    this.url = `http://127.0.0.1:${this.#server.addr.port}`;
  }

  async #forward(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const headers = new Headers();
    for (const [name, value] of request.headers) {
      if (!HOP_HEADERS.has(name.toLowerCase())) headers.append(name, value);
    }
    const abort = new AbortController();
    this.#aborts.add(abort);
    const body = request.body === null ? undefined : await request.arrayBuffer();
    const response = await fetch(this.#upstream + url.pathname + url.search, {
      method: request.method,
      headers,
      body,
      signal: abort.signal,
    });
    const watching = ["true", "1"].includes(url.searchParams.get("watch") ?? "");
    const passed = new Headers(response.headers);
    passed.delete("content-length");
    if (!watching || response.body === null || response.status !== 200) {
      this.#aborts.delete(abort);
      return new Response(response.body, { status: response.status, headers: passed });
    }
    const reader = response.body.pipeThrough(new TextDecoderStream())
      .pipeThrough(this.#rewriting()).pipeThrough(new TextEncoderStream()).getReader();
    // The client's end of the watch ends the upstream one; the proxy's close ends both.
    const lines = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch {
          controller.close();
        }
      },
      cancel: () => {
        abort.abort();
        this.#aborts.delete(abort);
      },
    });
    return new Response(lines, { status: 200, headers: passed });
  }

  /** The lines of one watch, its `DELETED` events given the previous content. */
  #rewriting(): TransformStream<string, string> {
    const last = new Map<string, Json>(); // by uid: the object as this watch last sent it
    let buffer = "";
    const rewrite = (line: string): string => {
      const event = JSON.parse(line) as { type: string; object: Json };
      const meta = (event.object.metadata ?? {}) as Json;
      const uid = typeof meta.uid === "string" ? meta.uid : undefined;
      if (uid === undefined || event.type === "BOOKMARK" || event.type === "ERROR") return line;
      if (event.type !== "DELETED") {
        last.set(uid, event.object);
        return line;
      }
      const previous = last.get(uid);
      last.delete(uid);
      if (previous === undefined) return line;
      const version = meta.resourceVersion;
      const stamped = {
        ...previous,
        metadata: { ...previous.metadata as Json, resourceVersion: version },
      };
      return JSON.stringify({ type: "DELETED", object: stamped });
    };
    return new TransformStream<string, string>({
      transform(chunk, controller) {
        buffer += chunk;
        let newline: number;
        while ((newline = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          controller.enqueue(line.trim() === "" ? "\n" : `${rewrite(line)}\n`);
        }
      },
      flush(controller) {
        if (buffer.trim() !== "") controller.enqueue(rewrite(buffer));
      },
    });
  }

  async close(): Promise<void> {
    for (const abort of this.#aborts) abort.abort();
    await this.#server.shutdown();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
