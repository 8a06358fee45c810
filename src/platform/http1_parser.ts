/**
 * Reading HTTP/1.1 responses from a stream of bytes, as the agent of writes
 * (`http1_agent.ts`) receives them: the status line and headers, interim (1xx) answers,
 * bodies by length, in chunks or until the stream ends, and trailers.
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

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const STATUS_LINE = /^HTTP\/1\.([01]) ([0-9]{3})(?: (.*))?$/;
const DIGITS = /^[0-9]{1,15}$/;
const HEX = /^[0-9a-fA-F]{1,12}$/;
/**
 * Bytes that no head may hold (as `fetch`'s parser says): controls other than a tab, and
 * a CR or LF but in a CRLF pair. A tab, visible ASCII and bytes 0x80-0xFF are allowed.
 */
// deno-lint-ignore no-control-regex -- control characters are what it looks for
const FORBIDDEN_IN_HEAD = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\r(?!\n)|(?<!\r)\n/;

const decoder = new TextDecoder();
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
    let text = this.#head();
    let head = parseHead(typeof text === "string" ? text : await text);
    for (let interim = 0; head.status < 200 && head.status !== 101; interim++) {
      if (interim === MAX_INTERIM_RESPONSES) {
        throw new Error(
          `more than ${MAX_INTERIM_RESPONSES} interim (1xx) answers before the response`,
        );
      }
      text = this.#head();
      head = parseHead(typeof text === "string" ? text : await text);
    }
    if (head.status === 101) throw new Error("unexpected HTTP status 101 in the response");
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
      // Both framings given: whoever sent it may disagree with us about where it ends.
      if (head.contentLength !== undefined) keepAlive = false;
    } else if (head.contentLength !== undefined) {
      const exactly = this.#exactly(head.contentLength);
      body = typeof exactly === "string" ? exactly : await exactly;
    } else {
      body = await this.#untilEnded();
      keepAlive = false;
    }
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
   * the unread bytes were scanned: the next scan starts there.
   */
  #findHead(scanned: number): string | number {
    const buffer = this.#buffer;
    const start = this.#start;
    const end = this.#end;
    // The blank line ends with a byte not scanned yet: the scan looks back from there.
    for (let i = start + scanned; i < end; i++) {
      if (
        buffer[i] === 10 && i - start >= 3 && buffer[i - 1] === 13 && buffer[i - 2] === 10 &&
        buffer[i - 3] === 13
      ) {
        let bits = 0; // all the bytes or-ed: whether any is beyond ASCII
        for (let k = start; k < i; k++) bits |= buffer[k];
        const bytes = buffer.subarray(start, i - 3);
        const text = bits < 0x80 ? decoder.decode(bytes) : latin1(bytes);
        this.#consume(i + 1 - start);
        return text;
      }
    }
    return end - start;
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
    let total = 0;
    let excess = 0;
    for (;;) {
      const length = await this.#lineLength(
        MAX_CHUNK_LINE_BYTES,
        `a chunk-size line of the response is longer than ${MAX_CHUNK_LINE_BYTES} bytes`,
      );
      const line = decoder.decode(this.#buffer.subarray(this.#start, this.#start + length));
      this.#consume(length + 2);
      const semicolon = line.indexOf(";");
      const size = trimWhitespace(semicolon < 0 ? line : line.slice(0, semicolon));
      if (!HEX.test(size)) throw new Error(`malformed chunk size ${JSON.stringify(line)}`);
      const chunk = parseInt(size, 16);
      // The size line and the data's line end, beyond 16 bytes and twice the data's size.
      excess = Math.max(0, excess + length + 4 - 16 - 2 * chunk);
      if (excess > MAX_CHUNK_FRAMING_EXCESS) {
        throw new Error("the chunked response body has far more framing than data");
      }
      if (chunk === 0) break;
      if (total + chunk > this.#maxBody) throw this.#tooLarge("is larger than");
      await this.#fill(chunk + 2);
      const at = this.#start + chunk;
      if (this.#buffer[at] !== 13 || this.#buffer[at + 1] !== 10) {
        throw new Error("malformed chunk end");
      }
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
    let scanned = 0;
    for (;;) {
      const buffer = this.#buffer;
      const start = this.#start;
      const end = this.#end;
      for (let i = start + scanned; i + 1 < end; i++) {
        if (buffer[i] === 13 && buffer[i + 1] === 10) {
          if (i - start > limit) break;
          return i - start;
        }
      }
      scanned = Math.max(0, end - start - 1);
      if (scanned > limit) throw new Error(tooLong);
      await this.#more("in the response body");
    }
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

/** Parse a response's status line and headers (each character one byte). */
export function parseHead(text: string): ResponseHead {
  const lines = text.split("\r\n");
  if (FORBIDDEN_IN_HEAD.test(text)) {
    const at = lines.findIndex((line) => FORBIDDEN_IN_HEAD.test(line));
    const what = at <= 0 ? "status line" : "response header";
    throw new Error(`malformed ${what} ${JSON.stringify(lines[Math.max(at, 0)])}`);
  }
  const status = STATUS_LINE.exec(lines[0]);
  if (status === null) throw new Error(`malformed status line ${JSON.stringify(lines[0])}`);
  const code = Number(status[2]);
  if (code < 100 || code > 599) {
    throw new Error(
      `malformed status line ${JSON.stringify(lines[0])}: the status must be within 100\u2013599`,
    );
  }
  const head: ResponseHead = {
    status: code,
    statusText: status[3] ?? "",
    fields: [],
    closes: status[1] === "0",
    contentLength: undefined,
    transferEncoding: undefined,
    contentEncoding: undefined,
  };
  for (let i = 1; i < lines.length; i++) field(head, lines[i]);
  head.transferEncoding = head.transferEncoding?.toLowerCase();
  head.contentEncoding = head.contentEncoding?.toLowerCase();
  return head;
}

/** Take one header line into the head. */
function field(head: ResponseHead, line: string): void {
  const colon = line.indexOf(":");
  if (colon <= 0 || !TOKEN.test(line.slice(0, colon))) {
    throw new Error(`malformed response header ${JSON.stringify(line)}`);
  }
  const name = line.slice(0, colon).toLowerCase();
  const value = trimWhitespace(line.slice(colon + 1));
  head.fields.push(name, value);
  if (name === "content-length" && head.contentLength === undefined && DIGITS.test(value)) {
    head.contentLength = Number(value); // the usual case: one plain number
  } else if (name === "content-length") {
    const values = new Set(value.split(",").map(trimWhitespace));
    const [only] = values;
    if (
      values.size !== 1 || !DIGITS.test(only) ||
      (head.contentLength !== undefined && head.contentLength !== Number(only))
    ) {
      throw new Error(`malformed Content-Length ${JSON.stringify(value)}`);
    }
    head.contentLength = Number(only);
  } else if (name === "transfer-encoding") {
    head.transferEncoding = head.transferEncoding === undefined
      ? value
      : `${head.transferEncoding}, ${value}`;
  } else if (name === "content-encoding") {
    head.contentEncoding = head.contentEncoding === undefined
      ? value
      : `${head.contentEncoding}, ${value}`;
  } else if (name === "connection") {
    const tokens = value.toLowerCase().split(",").map(trimWhitespace);
    if (tokens.includes("close")) head.closes = true;
    else if (tokens.includes("keep-alive")) head.closes = false;
  }
}

/** The text without the spaces and tabs around it (and nothing else: not Latin-1's). */
function trimWhitespace(text: string): string {
  let from = 0;
  let to = text.length;
  while (from < to && (text.charCodeAt(from) === 32 || text.charCodeAt(from) === 9)) from++;
  while (to > from && (text.charCodeAt(to - 1) === 32 || text.charCodeAt(to - 1) === 9)) to--;
  return from === 0 && to === text.length ? text : text.slice(from, to);
}

/** The bytes as text, each byte one character (as `fetch` takes header bytes). */
function latin1(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 4096) {
    text += String.fromCharCode(...bytes.subarray(i, i + 4096));
  }
  return text;
}
