/**
 * The responses of the HTTP/1.1 agent (`http1_agent.ts`) whose bodies are streams (the
 * watches): the body is read from the connection's buffer in parts as they arrive, lent to
 * a direct reader (`chunk_readers.ts`) without a web stream's promises and copies per part;
 * `body` is a stream of the same parts for any other reader. The response owns its
 * connection: it is closed when the body ends, is cancelled, or the signal aborts (the
 * reads then fail with the signal's reason).
 *
 * @module
 */
import { type ChunkReader, lendChunks } from "./chunk_readers.ts";
import type { Connection } from "./http1_connections.ts";
import type { StreamedResponse } from "./http1_parser.ts";
import { Http1Response } from "./http1_responses.ts";

/** A successful response whose body is read from its connection as it comes. */
export class Http1StreamResponse extends Http1Response {
  readonly #source: BodySource;
  #body: ReadableStream<Uint8Array<ArrayBuffer>> | undefined;

  /** The response of this head; `done` is called once its connection is closed. */
  constructor(
    streamed: StreamedResponse,
    connection: Connection,
    signal: AbortSignal | undefined,
    done: () => void,
  ) {
    const { head } = streamed;
    super(null, head.status, head.statusText, head.fields);
    this.#source = new BodySource(streamed, connection, signal, done);
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> {
    if (this.#body === undefined) {
      const source = this.#source;
      this.#body = new ReadableStream<Uint8Array<ArrayBuffer>>({
        async pull(controller) {
          const part = await source.read();
          if (part === undefined) controller.close();
          else controller.enqueue(part.slice());
        },
        cancel: () => source.cancel(),
      }, { highWaterMark: 0 });
      lendChunks(this.#body, source);
    }
    return this.#body;
  }

  override get bodyUsed(): boolean {
    return this.#body !== undefined;
  }

  override text(): Promise<string> {
    return new Response(this.body).text();
  }

  override json(): Promise<unknown> {
    return new Response(this.body).json();
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    return new Response(this.body).arrayBuffer();
  }

  override bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return new Response(this.body).bytes();
  }

  override blob(): Promise<Blob> {
    return new Response(this.body).blob();
  }

  override formData(): Promise<FormData> {
    return new Response(this.body).formData();
  }

  override clone(): Response {
    throw new TypeError("A streamed response cannot be cloned.");
  }
}

/** The parts of a streamed body, from its connection, until it ends, fails or is cancelled. */
class BodySource implements ChunkReader {
  readonly #streamed: StreamedResponse;
  readonly #connection: Connection;
  readonly #signal: AbortSignal | undefined;
  readonly #done: () => void;
  #closed = false;
  /** Why the reads failed, if they did: every later read fails so too, as a stream's would. */
  #failure: TypeError | undefined;

  constructor(
    streamed: StreamedResponse,
    connection: Connection,
    signal: AbortSignal | undefined,
    done: () => void,
  ) {
    this.#streamed = streamed;
    this.#connection = connection;
    this.#signal = signal;
    this.#done = done;
    if (signal?.aborted) this.#close();
    else signal?.addEventListener("abort", this.#close);
  }

  /** The next part, lent until the next read; `undefined` at the end. */
  async read(): Promise<Uint8Array | undefined> {
    if (this.#closed) {
      this.#signal?.throwIfAborted();
      if (this.#failure !== undefined) throw this.#failure;
      return undefined;
    }
    try {
      const part = await this.#connection.part(this.#streamed.framing);
      if (part === undefined) this.#close();
      return part;
    } catch (e) {
      this.#close();
      this.#signal?.throwIfAborted();
      const detail = e instanceof Error ? e.message : String(e);
      this.#failure = new TypeError(`error reading a body from connection: ${detail}`, {
        cause: e,
      });
      throw this.#failure;
    }
  }

  cancel(): Promise<void> {
    this.#close();
    return Promise.resolve();
  }

  readonly #close = (): void => {
    if (this.#closed) return;
    this.#closed = true;
    this.#signal?.removeEventListener("abort", this.#close);
    this.#connection.close();
    this.#done();
  };
}
