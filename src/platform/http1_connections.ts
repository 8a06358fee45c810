/**
 * One keep-alive connection of the HTTP/1.1 agent (`http1_agent.ts`): a socket and the
 * reader of its responses, serving one request at a time, and knowing how far the request
 * under way got, for the agent's watchdog and for what the request's error says of its
 * delivery.
 *
 * @module
 */
import {
  type BodyFraming,
  ConnectionLost,
  type ReadResponse,
  ResponseReader,
  type StreamedResponse,
} from "./http1_parser.ts";

/** A request that made no progress, or whose answer did not end, in time. */
export class ReadTimeoutError extends Error {
  override name = "ReadTimeoutError";
  /** As the system says of a connection timed out: `describeNetworkError` sees a timeout. */
  readonly code = "ETIMEDOUT";
}

/**
 * What a connection uses of its socket (a `Deno.Conn`, plain or TLS): named here so that
 * the declarations Node users get do not need Deno's namespace.
 */
export interface Socket {
  /** Read into the buffer: the count of bytes read, or `null` at the end. */
  read(into: Uint8Array): Promise<number | null>;
  /** Write the bytes: the count of bytes written. */
  write(bytes: Uint8Array): Promise<number>;
  /** Close the socket. */
  close(): void;
  /** Keep the process alive while the socket is open (a request is in flight). */
  ref(): void;
  /** Let the process exit while the socket idles. */
  unref(): void;
}

/**
 * One socket and the reader of its responses; it serves one request at a time, and knows
 * how far the request under way got: whether any byte of it may have left, whether any
 * byte of its answer came, and when it last made progress (for the agent's watchdog).
 */
export class Connection {
  readonly #socket: Socket;
  readonly #reader: ResponseReader;
  #idle = false;
  #closed = false;
  /** Why the watchdog closed it under its request. */
  #failure: ReadTimeoutError | undefined;
  /** Whether a byte of the request under way may have left. */
  #maybeSent = false;
  #writing = false;
  /** Bytes written in all; with the bytes received, how the watchdog sees progress. */
  #written = 0;
  #receivedBefore = 0;
  #takenAt = 0;
  #progress = 0;
  #progressAt = 0;
  /** When it last went idle (`performance.now()`). */
  idleSince = 0;

  constructor(socket: Socket, limits: { readonly maxBodyBytes: number }) {
    this.#socket = socket;
    this.#reader = new ResponseReader((into) => socket.read(into), limits);
  }

  /** Whether it may serve a request: open, and nothing came since its last response. */
  get quiet(): boolean {
    return !this.#closed && this.#reader.quiet;
  }

  /** Whether any byte of the current request's response has come. */
  get answered(): boolean {
    return this.#reader.received > this.#receivedBefore;
  }

  /** Whether no byte of the current request has left. */
  get unsent(): boolean {
    return !this.#maybeSent;
  }

  /** Put the connection to work: it keeps the program running again. */
  take(): void {
    this.#idle = false;
    this.#maybeSent = false;
    this.#receivedBefore = this.#reader.received;
    this.#progress = this.#receivedBefore + this.#written;
    this.#takenAt = this.#progressAt = performance.now();
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
    this.#socket.unref();
    const lost = () => {
      if (!this.#idle) return; // the read now belongs to a response
      this.close();
      onLost();
    };
    this.#reader.watch().then(lost, lost);
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

  /** Write the whole request. */
  async write(bytes: Uint8Array): Promise<void> {
    if (this.#closed) throw new ConnectionLost("the connection closed before the request was sent");
    this.#maybeSent = this.#writing = true;
    let written = 0;
    try {
      while (written < bytes.length) {
        const count = await this.#socket.write(written === 0 ? bytes : bytes.subarray(written));
        written += count;
        this.#written += count;
      }
    } catch (e) {
      // A failed write call wrote nothing: if it was the first, no byte left -- unless the
      // socket was closed under it, when it may have written before it could say so.
      if (written === 0 && !this.#closed && isConnectionLoss(e)) this.#maybeSent = false;
      throw this.#failure ?? e;
    } finally {
      this.#writing = false;
    }
  }

  /** Read the response to the request just written (skipping interim 1xx ones). */
  async response(method: string): Promise<ReadResponse> {
    try {
      return await this.#reader.response(method);
    } catch (e) {
      throw this.#failure ?? e;
    }
  }

  /**
   * Read the head of the response to the request just written: a successful one with a
   * body comes with the body left to be read in parts ({@link part}); others are whole.
   */
  async streamed(method: string): Promise<ReadResponse | StreamedResponse> {
    try {
      return await this.#reader.streamed(method);
    } catch (e) {
      throw this.#failure ?? e;
    }
  }

  /** The next part of a streamed body (lent until the next read); `undefined` at its end. */
  part(framing: BodyFraming): Promise<Uint8Array | undefined> {
    return this.#reader.part(framing);
  }

  /**
   * The watchdog's look at the request under way (times in milliseconds): fail it if it
   * made no progress for `readMs`, or has taken `responseMs` in all.
   */
  check(now: number, readMs: number, responseMs: number): void {
    const progress = this.#reader.received + this.#written;
    if (progress !== this.#progress) {
      this.#progress = progress;
      this.#progressAt = now;
    } else if (now - this.#progressAt >= readMs) {
      const what = this.#writing
        ? "the server took no byte of the request"
        : this.answered
        ? "the response stopped coming"
        : "no answer came";
      this.#fail(`${what} for ${readMs / 1000} s (readTimeout)`);
    }
    if (now - this.#takenAt >= responseMs) {
      this.#fail(`the response did not end within ${responseMs / 1000} s (responseTimeout)`);
    }
  }

  /** Close the connection under its request, which fails with this message. */
  #fail(message: string): void {
    if (this.#closed) return;
    this.#failure = new ReadTimeoutError(message);
    this.close();
  }
}

/** Errors of a socket the peer closed or reset. */
export function isConnectionLoss(error: unknown): boolean {
  return error instanceof ConnectionLost || error instanceof Deno.errors.BrokenPipe ||
    error instanceof Deno.errors.ConnectionReset ||
    error instanceof Deno.errors.ConnectionAborted ||
    error instanceof Deno.errors.NotConnected ||
    error instanceof Deno.errors.BadResource;
}
