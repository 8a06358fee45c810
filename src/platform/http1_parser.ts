/**
 * Reading HTTP/1.1 responses from a stream of bytes, as the agent (`http1_agent.ts`)
 * receives them: the head (`http1_heads.ts`), interim (1xx) answers, bodies by length, in
 * chunks or until the stream ends, and trailers. A write's body is read whole; a watch's is
 * taken in parts as it arrives, each a view of the read buffer, with no copy between the
 * socket and the decoder.
 *
 * Everything is bounded by what has arrived, never by what a server declares: the buffer
 * grows with the bytes received, up to the caps below (the body's is a setting), and a
 * response beyond a cap fails with one line saying which. Header bytes are read as `fetch`
 * reads them, each byte one Latin-1 character, so that no byte makes `Headers` throw.
 *
 * It knows neither sockets nor clocks: the connection feeds it bytes and times it out.
 *
 * @module
 */

import { Http1Response } from "./http1_responses.ts";
import {
  type HeadScan,
  latin1,
  parseHead,
  type ResponseHead,
  scanHead,
  trimWhitespace,
} from "./http1_heads.ts";

/** Reads bytes into the array given: how many it read, or `null` at the end of the stream. */
export type Receive = (into: Uint8Array) => Promise<number | null>;

/** The bounds of what a {@link ResponseReader} reads. */
export interface ResponseLimits {
  /** The most bytes a response body may have (after chunking is undone). */
  readonly maxBodyBytes: number;
}

/** A response read whole, and whether its connection may serve another request. */
export interface ReadResponse {
  response: Response;
  keepAlive: boolean;
}

/** A successful response whose body is to be read in parts ({@link ResponseReader.part}). */
export interface StreamedResponse {
  readonly head: ResponseHead;
  readonly framing: BodyFraming;
}

/** How a body read in parts is framed, and how far the reading got. */
export interface BodyFraming {
  /** In chunks (else by its length, or until the stream ends). */
  readonly chunked: boolean;
  /**
   * The bytes left: of the chunk under way (0 before a chunk-size line), of a body of known
   * length, or `Infinity` for a body that ends with the stream.
   */
  remaining: number;
  /** A chunk's data is over: its line end comes next. */
  crlf: boolean;
  /** The chunk framing beyond the allowance so far (see the reader's chunk sizes). */
  excess: number;
  /** How much of a chunk-size line not all come yet has been looked through. */
  scanned: number;
  /** The body has ended. */
  done: boolean;
}

/** The stream ended before the response did. */
export class ConnectionLost extends Error {
  override name = "ConnectionLost";
}

/** The default cap of a response body: writes are answered with one object. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;
/** The most a status line and its headers may take; also the trailers, all together. */
export const MAX_HEAD_BYTES = 256 * 1024;
/** The most interim (1xx) answers before the response. */
export const MAX_INTERIM_RESPONSES = 10;
/** The most a chunk-size line (with its extensions) may take. */
export const MAX_CHUNK_LINE_BYTES = 4096;
/**
 * How many bytes of chunk framing (size lines, extensions, line ends) beyond a small
 * allowance per chunk a chunked body may have: otherwise tiny chunks with long extensions
 * would keep a connection busy forever without ever growing the body.
 */
const MAX_CHUNK_FRAMING_EXCESS = 16 * 1024;
/** The read buffer of a new stream; it grows for larger responses. */
const BUFFER_BYTES = 16 * 1024;
/** Beyond this, a grown buffer is dropped between responses. */
const KEPT_BUFFER_BYTES = 256 * 1024;

const HEX = /^[0-9a-fA-F]{1,12}$/;
const decoder = new TextDecoder();
const CHUNK_LINE_TOO_LONG =
  `a chunk-size line of the response is longer than ${MAX_CHUNK_LINE_BYTES} bytes`;
/** What {@link ResponseReader} says of a streamed body's part that has not come yet. */
const MORE: unique symbol = Symbol("more");
/** What {@link ResponseReader} says once a streamed body's last chunk is announced. */
const TRAILERS: unique symbol = Symbol("trailers");
const ENDED: Promise<null> = Promise.resolve(null);

/**
 * The responses of one stream of bytes (one connection), read one after another into one
 * buffer; a read may be left waiting between responses (see {@link watch}).
 */
export class ResponseReader {
  readonly #receive: Receive;
  readonly #maxBody: number;
  /** The largest buffer needed: a body at its cap, with room to see one byte more. */
  readonly #maxBuffer: number;
  #buffer = new Uint8Array(BUFFER_BYTES);
  /** The unread bytes are `#buffer[#start, #end)`. */
  #start = 0;
  #end = 0;
  /** The read under way, if any. */
  #reading: Promise<number | null> | undefined;
  #ended = false;
  #received = 0;
  /** What the scan of the head under way (or last found) has seen of it. */
  readonly #scan: HeadScan = { bits: 0, plain: true, next: 0 };

  constructor(receive: Receive, limits: ResponseLimits) {
    this.#receive = receive;
    this.#maxBody = limits.maxBodyBytes;
    this.#maxBuffer = Math.max(BUFFER_BYTES, limits.maxBodyBytes + MAX_HEAD_BYTES + 2);
  }

  /** How many bytes were received in all: it grows while a response is coming. */
  get received(): number {
    return this.#received;
  }

  /** Whether nothing came since the last response: no byte, nor the end of the stream. */
  get quiet(): boolean {
    return !this.#ended && this.#end === this.#start;
  }

  /**
   * Wait, between responses, for whatever comes next: settles when bytes arrive, the
   * stream ends or its read fails. A response read after takes over the same read.
   */
  watch(): Promise<number | null> {
    if (
      this.#buffer.length > KEPT_BUFFER_BYTES && this.#reading === undefined &&
      this.#start === this.#end
    ) {
      this.#buffer = new Uint8Array(BUFFER_BYTES);
      this.#start = this.#end = 0;
    }
    return this.#read();
  }

  /** Read the next response (skipping interim 1xx ones) to a request of this method. */
  async response(method: string): Promise<ReadResponse> {
    // What is buffered already is taken without awaiting: most answers come in one read.
    const text = this.#head();
    let head = parseHead(typeof text === "string" ? text : await text, this.#scan.plain);
    if (head.status < 200) head = await this.#afterInterim(head);
    return this.#whole(method, checkedHead(head));
  }

  /**
   * Read the next response's head; a successful one with a body is returned with the body
   * left to be taken in parts as it comes ({@link part}, with its {@link BodyFraming}), for a
   * stream (a watch). Any other response is read whole, as {@link response} reads it.
   */
  async streamed(method: string): Promise<ReadResponse | StreamedResponse> {
    const text = this.#head();
    let head = parseHead(typeof text === "string" ? text : await text, this.#scan.plain);
    if (head.status < 200) head = await this.#afterInterim(head);
    checkedHead(head);
    if (head.status > 299 || bodiless(method, head.status)) return this.#whole(method, head);
    if (head.transferEncoding !== undefined) checkChunked(head.transferEncoding);
    const chunked = head.transferEncoding !== undefined;
    const remaining = chunked ? 0 : head.contentLength ?? Infinity;
    const done = !chunked && remaining === 0;
    return { head, framing: { chunked, remaining, crlf: false, excess: 0, scanned: 0, done } };
  }

  /**
   * The next part of a streamed body, as much of it as has arrived (waiting only when
   * nothing has); `undefined` at its end. The part is a view of the read buffer, valid
   * until the next read: decode or copy it before. No cap applies to the whole: a watch
   * streams for as long as it lasts, and no part is ever buffered beyond what has arrived.
   */
  async part(framing: BodyFraming): Promise<Uint8Array | undefined> {
    for (;;) {
      // A part already buffered (the usual case in a burst) costs no await but this one.
      const part = this.#partNow(framing);
      if (part === TRAILERS) {
        await this.#trailers();
        framing.done = true;
        return undefined;
      }
      if (part !== MORE) return part;
      if ((await this.#read()) !== null) continue;
      if (framing.chunked || framing.remaining !== Infinity) {
        throw this.#lost("in the response body");
      }
      framing.done = true;
      return undefined;
    }
  }

  /**
   * The next part of a streamed body if the buffer holds one; {@link MORE} if bytes must
   * come first; {@link TRAILERS} once the last chunk's size line is read.
   */
  #partNow(framing: BodyFraming): Uint8Array | undefined | typeof MORE | typeof TRAILERS {
    if (framing.done) return undefined;
    if (framing.chunked && framing.remaining === 0) {
      if (framing.crlf) {
        if (this.#end - this.#start < 2) return MORE;
        checkChunkEnd(this.#buffer, this.#start);
        this.#consume(2);
        framing.crlf = false;
      }
      const length = this.#lineNow(MAX_CHUNK_LINE_BYTES, CHUNK_LINE_TOO_LONG, framing);
      if (length < 0) return MORE;
      const size = this.#chunkSizeAt(length, framing);
      if (size === 0) return TRAILERS;
      framing.remaining = size;
    }
    if (this.#end === this.#start) return MORE;
    const length = Math.min(framing.remaining, this.#end - this.#start);
    const view = this.#buffer.subarray(this.#start, this.#start + length);
    this.#consume(length);
    framing.remaining -= length;
    if (framing.remaining === 0) {
      if (framing.chunked) framing.crlf = true;
      else framing.done = true;
    }
    return view;
  }

  /** The final head after an interim (1xx) one. */
  async #afterInterim(head: ResponseHead): Promise<ResponseHead> {
    for (let interim = 0; head.status < 200 && head.status !== 101; interim++) {
      if (interim === MAX_INTERIM_RESPONSES) {
        throw new Error(
          `more than ${MAX_INTERIM_RESPONSES} interim (1xx) answers before the response`,
        );
      }
      const next = this.#head();
      head = parseHead(typeof next === "string" ? next : await next, this.#scan.plain);
    }
    return head;
  }

  /** The rest of the response after its head, read whole: at once if it is buffered. */
  #whole(method: string, head: ResponseHead): ReadResponse | Promise<ReadResponse> {
    const keepAlive = !head.closes;
    if (bodiless(method, head.status)) return this.#answer(head, null, keepAlive);
    if (head.transferEncoding !== undefined) {
      // Nothing but chunking was asked for (no TE header), nor any compression.
      checkChunked(head.transferEncoding);
      // Both framings given: whoever sent it may disagree with us about where it ends.
      const kept = keepAlive && head.contentLength === undefined;
      return this.#chunked().then((body) => this.#answer(head, body, kept));
    }
    if (head.contentLength !== undefined) {
      const exactly = this.#exactly(head.contentLength);
      return typeof exactly === "string"
        ? this.#answer(head, exactly, keepAlive)
        : exactly.then((body) => this.#answer(head, body, keepAlive));
    }
    return this.#untilEnded().then((body) => this.#answer(head, body, false));
  }

  /** The response read whole, and whether its connection may serve another. */
  #answer(head: ResponseHead, body: string | null, keepAlive: boolean): ReadResponse {
    // Bytes beyond the response were never asked for: the stream is out of step.
    if (this.#end > this.#start || this.#ended) keepAlive = false;
    return {
      response: new Http1Response(body, head.status, head.statusText, head.fields),
      keepAlive,
    };
  }

  /**
   * The status line and headers, as text (without the blank line ending them): at once if
   * they are buffered, else once they are.
   */
  #head(): string | Promise<string> {
    const found = this.#findHead(0);
    return typeof found === "string" ? found : this.#headLater(found);
  }

  async #headLater(scanned: number): Promise<string> {
    for (;;) {
      if (scanned > MAX_HEAD_BYTES) {
        throw new Error(`the response head is larger than ${MAX_HEAD_BYTES} bytes`);
      }
      // The read itself, not through #more: one async frame less per response.
      if ((await this.#read()) === null) throw this.#lost("before the response");
      const found = this.#findHead(scanned);
      if (typeof found === "string") return found;
      scanned = found;
    }
  }

  /**
   * The head if the buffer holds it all (consumed, with its blank line), else how many of
   * the unread bytes were scanned: the next scan starts there ({@link scanHead}, which also
   * tells whether the head is ASCII and whether its bytes are all allowed).
   */
  #findHead(scanned: number): string | number {
    const start = this.#start;
    const scan = this.#scan;
    if (scanned === 0) {
      scan.bits = 0;
      scan.plain = true;
    }
    scan.next = start + scanned;
    const after = scanHead(this.#buffer, start, this.#end, scan);
    if (after < 0) return scan.next - start;
    const bytes = this.#buffer.subarray(start, after - 4); // without the blank line
    const text = scan.bits < 0x80 ? decoder.decode(bytes) : latin1(bytes);
    this.#consume(after - start);
    return text;
  }

  /** The next `length` bytes as text: at once if they are buffered, else once they are. */
  #exactly(length: number): string | Promise<string> {
    if (length > this.#maxBody) throw this.#tooLarge(`declares ${length} bytes, more than`);
    if (this.#end - this.#start >= length) return this.#take(length);
    return this.#fill(length).then(() => this.#take(length));
  }

  /** The next `length` unread bytes (buffered) as text, consumed. */
  #take(length: number): string {
    const text = decoder.decode(this.#buffer.subarray(this.#start, this.#start + length));
    this.#consume(length);
    return text;
  }

  /** A chunked body as text; its trailers are read and dropped. */
  async #chunked(): Promise<string> {
    const parts: Uint8Array[] = [];
    const framing = { excess: 0 };
    let total = 0;
    for (;;) {
      const line = await this.#lineLength(MAX_CHUNK_LINE_BYTES, CHUNK_LINE_TOO_LONG);
      const chunk = this.#chunkSizeAt(line, framing);
      if (chunk === 0) break;
      if (total + chunk > this.#maxBody) throw this.#tooLarge("is larger than");
      await this.#fill(chunk + 2);
      const at = this.#start + chunk;
      checkChunkEnd(this.#buffer, at);
      parts.push(this.#buffer.slice(this.#start, at));
      total += chunk;
      this.#consume(chunk + 2);
    }
    await this.#trailers();
    if (parts.length === 1) return decoder.decode(parts[0]);
    const bytes = new Uint8Array(total);
    let offset = 0;
    for (const part of parts) {
      bytes.set(part, offset);
      offset += part.length;
    }
    return decoder.decode(bytes);
  }

  /**
   * The size that the buffered chunk-size line of this length declares; the line consumed.
   * The framing beyond a small allowance per chunk is counted in `framing.excess`: tiny
   * chunks with long extensions would otherwise keep a connection busy for ever.
   */
  #chunkSizeAt(length: number, framing: { excess: number }): number {
    const line = decoder.decode(this.#buffer.subarray(this.#start, this.#start + length));
    this.#consume(length + 2);
    return chunkSizeOf(line, framing);
  }

  /** Skip the trailers of a chunked body, up to the blank line ending them. */
  async #trailers(): Promise<void> {
    let total = 0;
    for (;;) {
      const length = await this.#lineLength(
        Math.max(0, MAX_HEAD_BYTES - total),
        `the trailers of the response are larger than ${MAX_HEAD_BYTES} bytes`,
      );
      this.#consume(length + 2);
      if (length === 0) return;
      total += length + 2;
    }
  }

  /** A body that ends with the stream. */
  async #untilEnded(): Promise<string> {
    for (;;) {
      if (this.#end - this.#start > this.#maxBody) {
        throw this.#tooLarge("is larger than");
      }
      if ((await this.#read()) === null) break;
    }
    const text = decoder.decode(this.#buffer.subarray(this.#start, this.#end));
    this.#consume(this.#end - this.#start);
    return text;
  }

  /** The length of the next line (without its CRLF), once it is all buffered. */
  async #lineLength(limit: number, tooLong: string): Promise<number> {
    const scan = { scanned: 0 };
    for (;;) {
      const length = this.#lineNow(limit, tooLong, scan);
      if (length >= 0) return length;
      await this.#more("in the response body");
    }
  }

  /** The length of the next line if it is all buffered, else -1; see {@link lineEnd}. */
  #lineNow(limit: number, tooLong: string, scan: { scanned: number }): number {
    return lineEnd(this.#buffer, this.#start, this.#end, limit, tooLong, scan);
  }

  /** The error of a body beyond the cap: "the response body {what} the ... bytes allowed". */
  #tooLarge(what: string): Error {
    return new Error(
      `the response body ${what} the ${this.#maxBody} bytes allowed (the maxBodyBytes setting)`,
    );
  }

  /** Wait until `length` unread bytes are buffered. */
  async #fill(length: number): Promise<void> {
    while (this.#end - this.#start < length) await this.#more("in the response body", length);
  }

  /** Read more bytes; fail if the stream ends. */
  async #more(where: string, want = 0): Promise<void> {
    if ((await this.#read(want)) === null) throw this.#lost(where);
  }

  /** The failure of a stream that ended before the response did. */
  #lost(where: string): ConnectionLost {
    return new ConnectionLost(`the connection closed ${where}`);
  }

  /** Drop the first `count` unread bytes. */
  #consume(count: number): void {
    this.#start += count;
    if (this.#start === this.#end && this.#reading === undefined) this.#start = this.#end = 0;
  }

  /**
   * The read under way, or a new one into the buffer's free end (made room for first:
   * `want` unread bytes must fit). Resolves to the bytes read, `null` at the end.
   */
  #read(want = 0): Promise<number | null> {
    if (this.#reading !== undefined) return this.#reading;
    if (this.#ended) return ENDED;
    if (this.#end === this.#buffer.length || this.#start + want > this.#buffer.length) {
      this.#makeRoom(want);
    }
    const reading = this.#receive(this.#buffer.subarray(this.#end)).then(
      (read) => {
        this.#reading = undefined;
        if (read === null) this.#ended = true;
        else {
          this.#end += read;
          this.#received += read;
        }
        return read;
      },
      (error) => {
        this.#reading = undefined;
        throw error;
      },
    );
    // A read failing after its stream was closed under it is no one's concern.
    reading.catch(() => {});
    this.#reading = reading;
    return reading;
  }

  /**
   * Move the unread bytes to the buffer's start, into a larger buffer if they need it: one
   * twice as large (at most what is wanted), so that it grows with the bytes received and
   * never to a size a server only declared.
   */
  #makeRoom(want: number): void {
    const unread = this.#end - this.#start;
    const length = this.#buffer.length;
    // Without a known need, grow once the unread bytes fill three quarters of the buffer.
    if (want > 0 ? want <= length : unread + (length >> 2) <= length) {
      this.#buffer.copyWithin(0, this.#start, this.#end);
    } else {
      const doubled = Math.min(length * 2, this.#maxBuffer);
      const larger = new Uint8Array(
        Math.max(unread + 1, want > 0 ? Math.min(want, doubled) : doubled),
      );
      larger.set(this.#buffer.subarray(this.#start, this.#end));
      this.#buffer = larger;
    }
    this.#start = 0;
    this.#end = unread;
  }
}

/** The size a chunk-size line declares, its framing counted (see the reader's chunk sizes). */
function chunkSizeOf(line: string, framing: { excess: number }): number {
  const semicolon = line.indexOf(";");
  const size = trimWhitespace(semicolon < 0 ? line : line.slice(0, semicolon));
  if (!HEX.test(size)) throw new Error(`malformed chunk size ${JSON.stringify(line)}`);
  const chunk = parseInt(size, 16);
  // The size line and the data's line end, beyond 16 bytes and twice the data's size.
  framing.excess = Math.max(0, framing.excess + line.length + 4 - 16 - 2 * chunk);
  if (framing.excess > MAX_CHUNK_FRAMING_EXCESS) {
    throw new Error("the chunked response body has far more framing than data");
  }
  return chunk;
}

/**
 * The length of the line at `start` (without its CRLF) if the bytes up to `end` hold it,
 * else -1; the bytes scanned are noted in `scan`, where the next look begins. A line
 * longer than `limit` fails with `tooLong`.
 */
function lineEnd(
  buffer: Uint8Array,
  start: number,
  end: number,
  limit: number,
  tooLong: string,
  scan: { scanned: number },
): number {
  for (let i = start + scan.scanned; i + 1 < end; i++) {
    if (buffer[i] === 13 && buffer[i + 1] === 10) {
      if (i - start > limit) break;
      scan.scanned = 0;
      return i - start;
    }
  }
  scan.scanned = Math.max(0, end - start - 1);
  if (scan.scanned > limit) throw new Error(tooLong);
  return -1;
}

/** Check the line end after a chunk's data, at `at` in the buffer. */
function checkChunkEnd(buffer: Uint8Array, at: number): void {
  if (buffer[at] !== 13 || buffer[at + 1] !== 10) throw new Error("malformed chunk end");
}

/** The final head, if this reader can read what it says. */
function checkedHead(head: ResponseHead): ResponseHead {
  if (head.status === 101) throw new Error("unexpected HTTP status 101 in the response");
  if (head.contentEncoding !== undefined && head.contentEncoding !== "identity") {
    throw new Error(`unexpected Content-Encoding "${head.contentEncoding}" in the response`);
  }
  return head;
}

/** Whether a response to this method with this status has no body. */
function bodiless(method: string, status: number): boolean {
  return method === "HEAD" || status === 204 || status === 205 || status === 304;
}

/** Fail on a transfer coding other than chunking, which alone was asked for (no TE header). */
function checkChunked(transferEncoding: string): void {
  if (transferEncoding !== "chunked") {
    throw new Error(`unexpected Transfer-Encoding "${transferEncoding}" in the response`);
  }
}
