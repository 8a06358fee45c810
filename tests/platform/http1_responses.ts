/**
 * Random HTTP/1.1 responses for fuzzing the agent's parsing (`fast-check` arbitraries):
 * valid ones built from templates — bodies by length, in chunks (extensions, trailers) or
 * until the connection ends, interim answers, headers and reason phrases with bytes beyond
 * ASCII — each with what must be read from it; and the same mutated by byte flips,
 * truncations, insertions, duplications and huge declared lengths, for which only a
 * bounded outcome is required. Every case also says where to split its bytes into reads.
 */
import fc from "fast-check";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** What must be read from a valid response. */
export interface Expected {
  status: number;
  statusText: string;
  /** The final head's fields as `Headers` hold them. */
  headers: [string, string][];
  text: string;
  /** Whether the connection may serve another request after it. */
  keepAlive: boolean;
}

/** One response to read: its bytes, where they are split, and (if valid) what to read. */
export interface ResponseCase {
  bytes: Uint8Array;
  /** Offsets (ascending, within the bytes) where one read (or write) ends and the next begins. */
  cuts: number[];
  /** Whether the server ends the connection after the bytes (else it holds it open). */
  close: boolean;
  /** For responses left valid, what must be read; none for mutated ones. */
  expected?: Expected;
  /** The mutations applied, to tell a failing case. */
  mutations: string[];
}

/** Framing-related names: the templates set those themselves. */
const RESERVED = new Set([
  "content-length",
  "transfer-encoding",
  "content-encoding",
  "connection",
  "trailer",
]);

const tokenChar = fc.constantFrom(
  ..."!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
);
const headerName = fc.string({ unit: tokenChar, minLength: 1, maxLength: 12 })
  .filter((name) => !RESERVED.has(name.toLowerCase()));
/** Visible ASCII and bytes beyond it (UTF-8 text included); a space or tab only inside. */
const valueByte = fc.oneof(
  fc.integer({ min: 0x21, max: 0x7e }),
  fc.integer({ min: 0x80, max: 0xff }),
  fc.constantFrom(0x20, 0x09),
);
const headerValue = fc.oneof(
  fc.array(valueByte, { maxLength: 40 }).map((bytes) => trimmed(new Uint8Array(bytes))),
  fc.string({ unit: "grapheme", maxLength: 12 }).map((text) => trimmed(encoder.encode(text))),
);
const header = fc.tuple(headerName, headerValue);
const headers = fc.array(header, { maxLength: 6 });
const reason = fc.array(valueByte, { maxLength: 24 }).map((bytes) => new Uint8Array(bytes));
const body = fc.oneof(
  fc.uint8Array({ maxLength: 3000 }),
  fc.string({ unit: "grapheme", maxLength: 400 }).map((text) => encoder.encode(text)),
);

/** The shape of a valid response. */
interface Template {
  version: "1.0" | "1.1";
  status: number;
  reason: Uint8Array;
  headers: [string, Uint8Array][];
  interims: { status: number; headers: [string, Uint8Array][] }[];
  framing: "length" | "chunked" | "close";
  closes: boolean;
  body: Uint8Array;
  /** Chunk sizes (cycled), extensions and hex case, and trailers, when chunked. */
  chunks: number[];
  extensions: boolean;
  upper: boolean;
  trailers: [string, Uint8Array][];
  /** Whether the server holds a connection open when it may. */
  holds: boolean;
}

const template: fc.Arbitrary<Template> = fc.record({
  version: fc.constantFrom("1.0" as const, "1.1" as const, "1.1" as const),
  status: fc.oneof(fc.integer({ min: 200, max: 599 }), fc.constantFrom(200, 201, 204, 304, 503)),
  reason,
  headers,
  interims: fc.array(
    fc.record({ status: fc.constantFrom(100, 102, 103, 199), headers }),
    { maxLength: 3 },
  ),
  framing: fc.constantFrom("length" as const, "chunked" as const, "close" as const),
  closes: fc.boolean(),
  body,
  chunks: fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 5 }),
  extensions: fc.boolean(),
  upper: fc.boolean(),
  trailers: fc.array(header, { maxLength: 3 }),
  holds: fc.boolean(),
});

/** Build the template's bytes and what must be read from them. */
function build(t: Template): { bytes: Uint8Array; close: boolean; expected: Expected } {
  const parts: Uint8Array[] = [];
  const text = (s: string) => parts.push(encoder.encode(s));
  const fields = (list: [string, Uint8Array][]) => {
    for (const [name, value] of list) {
      text(`${name}: `);
      parts.push(value);
      text("\r\n");
    }
  };
  for (const interim of t.interims) {
    text(`HTTP/${t.version} ${interim.status} Interim\r\n`);
    fields(interim.headers);
    text("\r\n");
  }
  text(`HTTP/${t.version} ${t.status}`);
  if (t.reason.length > 0 || t.status % 2 === 0) {
    text(" ");
    parts.push(t.reason);
  }
  text("\r\n");
  const final: [string, Uint8Array][] = [...t.headers];
  const bodiless = t.status === 204 || t.status === 205 || t.status === 304;
  const framing = bodiless ? "none" : t.framing;
  if (framing === "length") final.push(["Content-Length", encoder.encode(`${t.body.length}`)]);
  if (framing === "chunked") final.push(["Transfer-Encoding", encoder.encode("chunked")]);
  if (t.closes) final.push(["Connection", encoder.encode("close")]);
  fields(final);
  text("\r\n");
  if (framing === "length" || framing === "close") parts.push(t.body);
  if (framing === "chunked") {
    for (let at = 0, i = 0; at < t.body.length; i++) {
      const size = Math.min(t.chunks[i % t.chunks.length], t.body.length - at);
      const hex = size.toString(16);
      text(`${t.upper ? hex.toUpperCase() : hex}${t.extensions ? `;n=${i};q="x"` : ""}\r\n`);
      parts.push(t.body.subarray(at, at + size));
      text("\r\n");
      at += size;
    }
    text("0\r\n");
    fields(t.trailers);
    text("\r\n");
  }
  const closes = t.version === "1.0" || t.closes || framing === "close";
  const expectedHeaders = new Headers();
  for (const [name, value] of final) expectedHeaders.append(name, latin1(value));
  return {
    bytes: concat(parts),
    close: framing === "close" || !t.holds,
    expected: {
      status: t.status,
      statusText: latin1(t.reason),
      headers: [...expectedHeaders],
      text: framing === "none" ? "" : decoder.decode(t.body),
      keepAlive: !closes,
    },
  };
}

/** A change to a response's bytes. */
type Mutation =
  | { kind: "flip"; at: number; mask: number }
  | { kind: "truncate"; at: number }
  | { kind: "insert"; at: number; bytes: Uint8Array }
  | { kind: "duplicate"; at: number; length: number }
  | { kind: "huge"; which: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    kind: fc.constant("flip" as const),
    at: fc.nat(),
    mask: fc.integer({ min: 1, max: 255 }),
  }),
  fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant("insert" as const),
    at: fc.nat(),
    bytes: fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 8 }),
      fc.constantFrom("\r\n", "\r\n\r\n", "\n", "\r", ":", " ", "\0", ";", "0\r\n\r\n")
        .map((s) => encoder.encode(s)),
    ),
  }),
  fc.record({
    kind: fc.constant("duplicate" as const),
    at: fc.nat(),
    length: fc.integer({ min: 1, max: 64 }),
  }),
  fc.record({ kind: fc.constant("huge" as const), which: fc.nat(3) }),
);

/** Huge declared lengths, in place of the first one declared. */
const HUGE_LENGTHS = ["4000000000", "999999999999999", "18446744073709551616", "67108865"];
const HUGE_CHUNKS = ["ffffffffffff", "FFFFFFF", "4000001", "10000000000000"];

function mutate(bytes: Uint8Array, m: Mutation): Uint8Array {
  const n = bytes.length;
  switch (m.kind) {
    case "flip": {
      if (n === 0) return bytes;
      const copy = bytes.slice();
      copy[m.at % n] ^= m.mask;
      return copy;
    }
    case "truncate":
      return bytes.slice(0, m.at % (n + 1));
    case "insert": {
      const at = m.at % (n + 1);
      return concat([bytes.subarray(0, at), m.bytes, bytes.subarray(at)]);
    }
    case "duplicate": {
      const at = m.at % (n + 1);
      return concat([bytes.subarray(0, at), bytes.subarray(at, at + m.length), bytes.subarray(at)]);
    }
    case "huge": {
      const text = latin1(bytes);
      const length = /content-length: *[0-9]+/i.exec(text);
      if (length !== null) {
        return bytesOf(text.replace(length[0], `Content-Length: ${HUGE_LENGTHS[m.which]}`));
      }
      const chunk = /\r\n\r\n[0-9a-fA-F]+/.exec(text);
      if (chunk === null) return bytes;
      return bytesOf(text.replace(chunk[0], `\r\n\r\n${HUGE_CHUNKS[m.which]}`));
    }
  }
}

/**
 * Responses to read: a fifth left valid (with what must be read), the rest mutated one to
 * four times; each split at up to eight random places.
 */
export const responseCases: fc.Arbitrary<ResponseCase> = fc.record({
  template,
  mutations: fc.oneof(
    { weight: 1, arbitrary: fc.constant([] as Mutation[]) },
    { weight: 4, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 4 }) },
  ),
  cuts: fc.array(fc.nat(), { maxLength: 8 }),
}).map(({ template, mutations, cuts }) => {
  const valid = build(template);
  let bytes = valid.bytes;
  for (const m of mutations) bytes = mutate(bytes, m);
  return {
    bytes,
    cuts: [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b),
    close: valid.close,
    ...(mutations.length === 0 ? { expected: valid.expected } : {}),
    mutations: mutations.map((m) => m.kind),
  };
});

/** The bytes split at the cuts (no empty parts). */
export function partsOf(c: ResponseCase): Uint8Array[] {
  const parts: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...c.cuts, c.bytes.length]) {
    if (cut > from) parts.push(c.bytes.subarray(from, cut));
    from = Math.max(from, cut);
  }
  return parts;
}

/** The run's size and seed: `KOPF_FUZZ_RUNS` and `KOPF_FUZZ_SEED` change them. */
export function fuzzSettings(defaultRuns: number): { numRuns: number; seed: number } {
  const runs = Number(Deno.env.get("KOPF_FUZZ_RUNS") ?? defaultRuns);
  const seed = Number(Deno.env.get("KOPF_FUZZ_SEED") ?? 20261127);
  if (!Number.isInteger(runs) || runs <= 0) throw new Error("KOPF_FUZZ_RUNS: a positive integer");
  if (!Number.isInteger(seed)) throw new Error("KOPF_FUZZ_SEED: an integer");
  return { numRuns: runs, seed };
}

/** The value without the spaces and tabs around it. */
function trimmed(bytes: Uint8Array): Uint8Array {
  let from = 0;
  let to = bytes.length;
  while (from < to && (bytes[from] === 0x20 || bytes[from] === 0x09)) from++;
  while (to > from && (bytes[to - 1] === 0x20 || bytes[to - 1] === 0x09)) to--;
  return bytes.slice(from, to);
}

function latin1(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return text;
}

function bytesOf(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

function concat(parts: Uint8Array[]): Uint8Array {
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}
