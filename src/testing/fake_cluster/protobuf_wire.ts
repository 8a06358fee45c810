/**
 * The protobuf wire format: a reader for request bodies and a writer for the OpenAPI v2
 * document kubectl asks for in protobuf. Integers travel as varints; int64 values are
 * read through `bigint` so that negative numbers (ten-byte two's complement) come out right.
 *
 * @module
 */

/** A wire-format error: the bytes end early or use a wire type protobuf does not have. */
export class WireError extends Error {}

const TWO_63 = 2n ** 63n;
const TWO_64 = 2n ** 64n;

/** Reads one message's fields in order; the caller reads each value by its wire type. */
export class ProtobufReader {
  #pos = 0;

  /** Read the fields of this message (the bytes after any envelope). */
  constructor(readonly bytes: Uint8Array) {}

  /** Whether every byte has been read. */
  get done(): boolean {
    return this.#pos >= this.bytes.length;
  }

  /** An unsigned varint as a bigint. */
  uvarint(): bigint {
    let result = 0n;
    let shift = 0n;
    while (true) {
      if (this.#pos >= this.bytes.length) throw new WireError("the message ends inside a number");
      const byte = this.bytes[this.#pos++];
      result |= BigInt(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return result;
      shift += 7n;
      if (shift > 63n) throw new WireError("a number is longer than 64 bits");
    }
  }

  /** A signed varint (int32/int64, not zigzag) as a number. */
  int(): number {
    const value = this.uvarint();
    return Number(value >= TWO_63 ? value - TWO_64 : value);
  }

  /** A length-delimited value: a string's, bytes' or nested message's bytes. */
  chunk(): Uint8Array {
    const length = Number(this.uvarint());
    const end = this.#pos + length;
    if (end > this.bytes.length) throw new WireError("the message ends inside a field");
    const out = this.bytes.subarray(this.#pos, end);
    this.#pos = end;
    return out;
  }

  /** Skip a value, telling whether it was a zero or empty one. */
  skip(wireType: number): boolean {
    switch (wireType) {
      case 0:
        return this.uvarint() === 0n;
      case 1:
        return this.#fixed(8);
      case 2:
        return this.chunk().length === 0;
      case 5:
        return this.#fixed(4);
    }
    throw new WireError(`wire type ${wireType} is not one protobuf uses here`);
  }

  #fixed(size: number): boolean {
    const end = this.#pos + size;
    if (end > this.bytes.length) throw new WireError("the message ends inside a field");
    const zero = this.bytes.subarray(this.#pos, end).every((b) => b === 0);
    this.#pos = end;
    return zero;
  }

  /** Each field as `[number, wireType]`; read or skip its value before the next. */
  *fields(): Generator<[number, number]> {
    while (!this.done) {
      const key = this.uvarint();
      yield [Number(key >> 3n), Number(key & 7n)];
    }
  }
}

const encoder = new TextEncoder();

/** Builds one message; nested messages are written by their own writer. */
export class ProtobufWriter {
  #bytes: number[] = [];

  #push(bytes: Uint8Array): void {
    for (const b of bytes) this.#bytes.push(b);
  }

  #varint(value: number | bigint): void {
    if (typeof value === "number" && value >= 0 && value < 0x80000000) {
      let v = value;
      while (v > 0x7f) {
        this.#bytes.push((v & 0x7f) | 0x80);
        v >>>= 7;
      }
      this.#bytes.push(v);
      return;
    }
    // Large or negative: ten-byte two's complement for negatives, as protobuf does.
    let v = BigInt(value);
    if (v < 0n) v += TWO_64;
    do {
      const low = Number(v & 0x7fn);
      v >>= 7n;
      this.#bytes.push(v ? low | 0x80 : low);
    } while (v);
  }

  #key(field: number, wireType: number): void {
    this.#varint(field * 8 + wireType);
  }

  /** A varint field (int32, int64, enum). */
  int(field: number, value: number | bigint): this {
    this.#key(field, 0);
    this.#varint(value);
    return this;
  }

  /** A bool field. */
  bool(field: number, value: boolean): this {
    return this.int(field, value ? 1 : 0);
  }

  /** A length-delimited field of raw bytes. */
  bytes(field: number, value: Uint8Array): this {
    this.#key(field, 2);
    this.#varint(value.length);
    this.#push(value);
    return this;
  }

  /** A string field. */
  string(field: number, value: string): this {
    return this.bytes(field, encoder.encode(value));
  }

  /** A nested message field. */
  message(field: number, value: ProtobufWriter): this {
    this.#key(field, 2);
    this.#varint(value.#bytes.length);
    for (const b of value.#bytes) this.#bytes.push(b);
    return this;
  }

  /** A double field (fixed 64 bits, little-endian). */
  double(field: number, value: number): this {
    this.#key(field, 1);
    const out = new Uint8Array(8);
    new DataView(out.buffer).setFloat64(0, value, true);
    this.#push(out);
    return this;
  }

  /** The message's bytes. */
  finish(): Uint8Array<ArrayBuffer> {
    return Uint8Array.from(this.#bytes);
  }
}
