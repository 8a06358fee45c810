/**
 * A small DER (ASN.1 Distinguished Encoding Rules) encoder and reader: just enough to
 * build and inspect X.509 certificates and PKCS#8 keys without an `openssl` binary.
 *
 * @module
 */

/** Universal and context-specific tag numbers used by X.509. */
export const Tag = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  UTF8_STRING: 0x0c,
  PRINTABLE_STRING: 0x13,
  IA5_STRING: 0x16,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const;

/** Concatenate byte arrays. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function encodeLength(length: number): Uint8Array {
  if (length < 0x80) return Uint8Array.of(length);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
  return Uint8Array.of(0x80 | bytes.length, ...bytes);
}

/** A tag-length-value element with raw content. */
export function tlv(tag: number, content: Uint8Array): Uint8Array {
  return concatBytes([Uint8Array.of(tag), encodeLength(content.length), content]);
}

/** A SEQUENCE of already-encoded elements. */
export function sequence(...items: Uint8Array[]): Uint8Array {
  return tlv(Tag.SEQUENCE, concatBytes(items));
}

/** A SET of already-encoded elements, sorted as DER requires for SET OF. */
export function set(...items: Uint8Array[]): Uint8Array {
  const sorted = [...items].sort(compareBytes);
  return tlv(Tag.SET, concatBytes(sorted));
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i] - b[i];
  }
  return a.length - b.length;
}

/** A constructed context-specific element `[n]` (EXPLICIT tagging). */
export function explicit(n: number, inner: Uint8Array): Uint8Array {
  return tlv(0xa0 | n, inner);
}

/** A primitive context-specific element `[n]` (IMPLICIT tagging of a primitive). */
export function implicit(n: number, content: Uint8Array): Uint8Array {
  return tlv(0x80 | n, content);
}

/** An unsigned big-endian integer given as bytes (leading zeros trimmed, sign kept). */
export function unsignedInteger(bytes: Uint8Array): Uint8Array {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  const content = trimmed[0] & 0x80 ? concatBytes([Uint8Array.of(0), trimmed]) : trimmed;
  return tlv(Tag.INTEGER, content);
}

/** A small non-negative INTEGER. */
export function smallInteger(value: number): Uint8Array {
  const bytes: number[] = [];
  let n = value;
  do {
    bytes.unshift(n & 0xff);
    n = Math.floor(n / 256);
  } while (n > 0);
  return unsignedInteger(Uint8Array.from(bytes));
}

/** A BOOLEAN. */
export function boolean(value: boolean): Uint8Array {
  return tlv(Tag.BOOLEAN, Uint8Array.of(value ? 0xff : 0x00));
}

/** An OCTET STRING. */
export function octetString(content: Uint8Array): Uint8Array {
  return tlv(Tag.OCTET_STRING, content);
}

/** A BIT STRING with no unused bits. */
export function bitString(content: Uint8Array): Uint8Array {
  return tlv(Tag.BIT_STRING, concatBytes([Uint8Array.of(0), content]));
}

/** A named-bit BIT STRING (e.g. KeyUsage) from the numbers of the bits that are set. */
export function namedBits(bits: readonly number[]): Uint8Array {
  if (bits.length === 0) return tlv(Tag.BIT_STRING, Uint8Array.of(0));
  const highest = Math.max(...bits);
  const bytes = new Uint8Array(Math.floor(highest / 8) + 1);
  for (const bit of bits) bytes[Math.floor(bit / 8)] |= 0x80 >> (bit % 8);
  // DER drops trailing zero bits; the first content byte counts them.
  const unused = 7 - (highest % 8);
  return tlv(Tag.BIT_STRING, concatBytes([Uint8Array.of(unused), bytes]));
}

/** An OBJECT IDENTIFIER from its dotted form, e.g. `"2.5.4.3"`. */
export function oid(dotted: string): Uint8Array {
  const arcs = dotted.split(".").map(Number);
  const bytes: number[] = [40 * arcs[0] + arcs[1]];
  for (const arc of arcs.slice(2)) {
    const chunk: number[] = [arc & 0x7f];
    for (let n = Math.floor(arc / 128); n > 0; n = Math.floor(n / 128)) {
      chunk.unshift(0x80 | (n & 0x7f));
    }
    bytes.push(...chunk);
  }
  return tlv(Tag.OID, Uint8Array.from(bytes));
}

/** A UTF8String. */
export function utf8String(text: string): Uint8Array {
  return tlv(Tag.UTF8_STRING, new TextEncoder().encode(text));
}

/**
 * An X.509 Time: UTCTime up to 2049 and GeneralizedTime from 2050, as RFC 5280 requires.
 */
export function time(date: Date): Uint8Array {
  const iso = date.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const digits = iso.slice(0, 19).replace(/[-:T]/g, "") + "Z";
  const year = date.getUTCFullYear();
  return year < 2050
    ? tlv(Tag.UTC_TIME, new TextEncoder().encode(digits.slice(2)))
    : tlv(Tag.GENERALIZED_TIME, new TextEncoder().encode(digits));
}

/** One decoded element: its tag, its content, and the whole encoding. */
export interface DerElement {
  /** The identifier octet (class, constructed bit and tag number). */
  readonly tag: number;
  /** The content octets. */
  readonly content: Uint8Array;
  /** The complete encoding, tag and length included. */
  readonly raw: Uint8Array;
}

/** Read one element at `offset`; throws a clear error on truncated or malformed input. */
export function readElement(bytes: Uint8Array, offset = 0): DerElement {
  if (offset + 2 > bytes.length) throw new Error("DER: the data ends before an element starts");
  const tag = bytes[offset];
  let length = bytes[offset + 1];
  let header = 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4) throw new Error("DER: unsupported length encoding");
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + bytes[offset + 2 + i];
    header += count;
  }
  const end = offset + header + length;
  if (end > bytes.length) throw new Error("DER: an element is longer than the data");
  return {
    tag,
    content: bytes.subarray(offset + header, end),
    raw: bytes.subarray(offset, end),
  };
}

/** The child elements of a constructed element's content. */
export function readChildren(content: Uint8Array): DerElement[] {
  const children: DerElement[] = [];
  for (let offset = 0; offset < content.length;) {
    const child = readElement(content, offset);
    children.push(child);
    offset += child.raw.length;
  }
  return children;
}

/** The dotted form of an OBJECT IDENTIFIER's content. */
export function decodeOid(content: Uint8Array): string {
  const arcs: number[] = [];
  let value = 0;
  for (const byte of content) {
    value = value * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      arcs.push(value);
      value = 0;
    }
  }
  const first = arcs.shift() ?? 0;
  const head = first < 80 ? [Math.floor(first / 40), first % 40] : [2, first - 80];
  return [...head, ...arcs].join(".");
}

/** The date of a UTCTime or GeneralizedTime element. */
export function decodeTime(element: DerElement): Date {
  const text = new TextDecoder().decode(element.content);
  const full = element.tag === Tag.UTC_TIME
    ? (Number(text.slice(0, 2)) >= 50 ? "19" : "20") + text
    : text;
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(full);
  if (!m) throw new Error(`DER: unsupported time format ${JSON.stringify(text)}`);
  return new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]));
}

const PEM_RE = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

/** The DER payloads of all PEM blocks with the given label (e.g. `CERTIFICATE`). */
export function pemBlocks(pem: string, label: string): Uint8Array[] {
  const found: Uint8Array[] = [];
  for (const m of pem.matchAll(PEM_RE)) {
    if (m[1] === label) found.push(base64Decode(m[2].replace(/\s+/g, "")));
  }
  return found;
}

/** A PEM block with the given label, wrapped at 64 characters. */
export function toPem(label: string, der: Uint8Array): string {
  const lines = base64Encode(der).match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

/** Standard base64 of bytes. */
export function base64Encode(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** Bytes of standard base64 (or base64url) text. */
export function base64Decode(text: string): Uint8Array {
  const normal = text.replace(/-/g, "+").replace(/_/g, "/");
  const padded = normal + "=".repeat((4 - (normal.length % 4)) % 4);
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}
