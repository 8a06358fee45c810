/**
 * The heads of HTTP/1.1 responses, as the agent (`http1_agent.ts`) reads them: the status
 * line and the header fields, with the framing they declare (length, chunking, the end of
 * the connection) and the checks `fetch`'s parser makes of them.
 *
 * @module
 */

/** The characters of a token (RFC 9110, 5.6.2) by their codes: 1 for each one that is. */
const TOKEN_CODES = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
  TOKEN_CODES[c.charCodeAt(0)] = 1;
}
const STATUS_LINE = /^HTTP\/1\.([01]) ([0-9]{3})(?: (.*))?$/;
const DIGITS = /^[0-9]{1,15}$/;
/**
 * Bytes that no head may hold (as `fetch`'s parser says): controls other than a tab, and
 * a CR or LF but in a CRLF pair. A tab, visible ASCII and bytes 0x80-0xFF are allowed.
 */
// deno-lint-ignore no-control-regex -- control characters are what it looks for
const FORBIDDEN_IN_HEAD = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\r(?!\n)|(?<!\r)\n/;

/** What a scan for the end of a head has seen of it so far (see {@link scanHead}). */
export interface HeadScan {
  /** All the bytes scanned, or-ed: 0x80 or more if any is beyond ASCII. */
  bits: number;
  /** Whether each byte scanned is one a head may hold (see {@link parseHead}'s `plain`). */
  plain: boolean;
  /** Where the next scan starts (an index of the buffer); set only while the end is to come. */
  next: number;
}

/**
 * Scan the bytes of a head from `scan.next` up to `end` for the blank line that ends it;
 * the head starts at `start`. Returns the index just after the blank line, or -1 if it has
 * not come yet: then `scan.next` says where to go on once more bytes are in (a CR whose LF
 * has not come is scanned again). The same pass notes, in `scan`, whether any byte is beyond
 * ASCII and whether each is one a head may hold, so that the text is not scanned again.
 */
export function scanHead(bytes: Uint8Array, start: number, end: number, scan: HeadScan): number {
  let bits = scan.bits;
  let plain = scan.plain;
  let i = scan.next;
  for (; i < end; i++) {
    const byte = bytes[i];
    if (byte > 0x1f && byte !== 0x7f) {
      bits |= byte;
    } else if (byte === 10) {
      if (i === start || bytes[i - 1] !== 13) {
        plain = false; // a LF but in a CRLF pair
      } else if (i - start >= 3 && bytes[i - 2] === 10 && bytes[i - 3] === 13) {
        scan.bits = bits;
        scan.plain = plain;
        return i + 1;
      }
    } else if (byte === 13) {
      if (i + 1 === end) break; // its LF has not come yet: scanned again with it
      if (bytes[i + 1] !== 10) plain = false; // a CR but in a CRLF pair
    } else if (byte !== 9) {
      plain = false; // a control other than a tab
    }
  }
  scan.bits = bits;
  scan.plain = plain;
  scan.next = i;
  return -1;
}

/** The status line and headers of a response. */
export interface ResponseHead {
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

/**
 * Parse a response's status line and headers (each character one byte). `plain`: the caller
 * has found none of the bytes no head may hold (above), as it scanned the bytes for the
 * head's end, and the text is not scanned for them again.
 */
export function parseHead(text: string, plain = false): ResponseHead {
  if (!plain && FORBIDDEN_IN_HEAD.test(text)) {
    const lines = text.split("\r\n");
    const at = lines.findIndex((line) => FORBIDDEN_IN_HEAD.test(line));
    const what = at <= 0 ? "status line" : "response header";
    throw new Error(`malformed ${what} ${JSON.stringify(lines[Math.max(at, 0)])}`);
  }
  // Line by line with indexOf() rather than split(), which is a call into V8's runtime.
  const firstEnd = lineEnd(text, 0);
  const firstLine = text.slice(0, firstEnd);
  const status = STATUS_LINE.exec(firstLine);
  if (status === null) throw new Error(`malformed status line ${JSON.stringify(firstLine)}`);
  const code = Number(status[2]);
  if (code < 100 || code > 599) {
    throw new Error(
      `malformed status line ${JSON.stringify(firstLine)}: the status must be within 100\u2013599`,
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
  for (let start = firstEnd + 2; start <= text.length;) {
    const end = lineEnd(text, start);
    field(head, text.slice(start, end));
    start = end + 2;
  }
  head.transferEncoding = head.transferEncoding?.toLowerCase();
  head.contentEncoding = head.contentEncoding?.toLowerCase();
  return head;
}

/** Where the line from `start` ends: at its CRLF, or at the end of the text. */
function lineEnd(text: string, start: number): number {
  const end = text.indexOf("\r\n", start);
  return end < 0 ? text.length : end;
}

/** Take one header line into the head. */
function field(head: ResponseHead, line: string): void {
  const colon = line.indexOf(":");
  if (!isToken(line, colon)) {
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

/**
 * Whether the text's first `end` characters (all of it by default) are a token, as header
 * names are: one character or more, each one of {@link TOKEN_CODES}. A loop, not a regular
 * expression: it runs for every header of every response, and most names are short.
 */
export function isToken(text: string, end: number = text.length): boolean {
  if (end <= 0) return false;
  for (let i = 0; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code > 127 || TOKEN_CODES[code] === 0) return false;
  }
  return true;
}

/** The text without the spaces and tabs around it (and nothing else: not Latin-1's). */
export function trimWhitespace(text: string): string {
  let from = 0;
  let to = text.length;
  while (from < to && (text.charCodeAt(from) === 32 || text.charCodeAt(from) === 9)) from++;
  while (to > from && (text.charCodeAt(to - 1) === 32 || text.charCodeAt(to - 1) === 9)) to--;
  return from === 0 && to === text.length ? text : text.slice(from, to);
}

/** The bytes as text, each byte one character (as `fetch` takes header bytes). */
export function latin1(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 4096) {
    text += String.fromCharCode(...bytes.subarray(i, i + 4096));
  }
  return text;
}
