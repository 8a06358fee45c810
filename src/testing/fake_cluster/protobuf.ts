/**
 * Reading request bodies in the Kubernetes protobuf encoding, which kubectl's generators
 * (`kubectl create deployment|job|cronjob|service|role|...`) and Go clients send for
 * built-in kinds. The body is `k8s\0` + `runtime.Unknown { typeMeta{apiVersion, kind}, raw }`;
 * `raw` is the object's message, read with the field tables of `builtin_messages.ts` into
 * the JSON the API server would store: camelCase names, int-or-string as a number or a
 * string, quantities as strings, timestamps in RFC 3339, bytes in base64.
 *
 * What the tables do not know is refused, never dropped: another kind is a 415 (as a real
 * server answers for custom resources), and so is a field the tables lack when it is set.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import { ApiError, badRequest } from "./errors.ts";
import { kindMessage, type Message, type MessageField, messageNamed } from "./builtin_messages.ts";
import { ProtobufReader, WireError } from "./protobuf_wire.ts";

const MAGIC = [0x6b, 0x38, 0x73, 0x00]; // "k8s\0"
const text = new TextDecoder("utf-8", { fatal: true });

/** A field the tables lack, set in the body: the fake cluster cannot read it. */
class UnknownField extends Error {}

function base64(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += String.fromCharCode(b);
  return btoa(out);
}

function string(bytes: Uint8Array): string {
  try {
    return text.decode(bytes);
  } catch {
    throw new WireError("a string field is not valid UTF-8");
  }
}

/** The scalar fields of a small well-known message, e.g. a Time's seconds and nanos. */
function smallMessage(bytes: Uint8Array): Map<number, bigint | Uint8Array> {
  const reader = new ProtobufReader(bytes);
  const out = new Map<number, bigint | Uint8Array>();
  for (const [number, wireType] of reader.fields()) {
    if (wireType === 0) out.set(number, reader.uvarint());
    else if (wireType === 2) out.set(number, reader.chunk());
    else reader.skip(wireType);
  }
  return out;
}

function signed(value: bigint | Uint8Array | undefined): number {
  if (typeof value !== "bigint") return 0;
  return Number(value >= 2n ** 63n ? value - 2n ** 64n : value);
}

function bytesOf(value: bigint | Uint8Array | undefined): Uint8Array {
  return value instanceof Uint8Array ? value : new Uint8Array();
}

/** A Time (seconds) or MicroTime (microseconds) as Go writes it in JSON; zero is null. */
function timestamp(bytes: Uint8Array, micro: boolean): string | null {
  const fields = smallMessage(bytes);
  const seconds = signed(fields.get(1));
  const nanos = signed(fields.get(2));
  if (seconds === 0 && nanos === 0) return null;
  const iso = new Date(seconds * 1000).toISOString().slice(0, 19);
  if (!micro) return `${iso}Z`;
  return `${iso}.${String(Math.floor(nanos / 1000)).padStart(6, "0")}Z`;
}

/** One value of a field whose wire type has been read. */
function readValue(
  reader: ProtobufReader,
  wireType: number,
  type: string,
  path: string,
): JsonValue {
  const expect = (wanted: number) => {
    if (wireType !== wanted) {
      throw new WireError(`${path} has wire type ${wireType}, not ${wanted}`);
    }
  };
  switch (type) {
    case "int":
      expect(0);
      return reader.int();
    case "bool":
      expect(0);
      return reader.uvarint() !== 0n;
  }
  expect(2);
  const bytes = reader.chunk();
  switch (type) {
    case "string":
      return string(bytes);
    case "bytes":
      return base64(bytes);
    case "time":
    case "microtime":
      return timestamp(bytes, type === "microtime");
    case "quantity":
      // A Quantity travels as its canonical string; an empty one is Go's zero, "0".
      return string(bytesOf(smallMessage(bytes).get(1))) || "0";
    case "intstr": {
      const fields = smallMessage(bytes);
      return signed(fields.get(1)) === 1 ? string(bytesOf(fields.get(3))) : signed(fields.get(2));
    }
    case "fieldsV1": {
      const raw = string(bytesOf(smallMessage(bytes).get(1)));
      try {
        return raw ? JSON.parse(raw) as JsonValue : {};
      } catch {
        throw new WireError(`${path} holds no valid JSON`);
      }
    }
  }
  if (type.startsWith("map<")) {
    const entry = new ProtobufReader(bytes);
    let key = "";
    let value: JsonValue = type === "map<quantity>" ? "0" : "";
    for (const [number, entryWire] of entry.fields()) {
      if (number === 1) key = readValue(entry, entryWire, "string", path) as string;
      else if (number === 2) {
        value = readValue(entry, entryWire, type.slice(4, -1), `${path}[${key}]`);
      } else entry.skip(entryWire);
    }
    return { [key]: value };
  }
  return decodeMessage(bytes, messageNamed(type), path);
}

function isZero(value: JsonValue): boolean {
  return value === "" || value === 0 || value === false;
}

/** Decode one message into `out` (inline messages share their parent's object). */
function decodeInto(out: JsonObject, bytes: Uint8Array, message: Message, path: string): void {
  const reader = new ProtobufReader(bytes);
  for (const [number, wireType] of reader.fields()) {
    const field: MessageField | undefined = message.byNumber.get(number);
    if (!field) {
      // Go writes every plain field even when it is zero, so newer clients send fields
      // this table lacks; only a set one would be lost.
      if (!reader.skip(wireType)) {
        throw new UnknownField(
          `field ${number} of ${message.definition}${path ? ` (at ${path})` : ""}`,
        );
      }
      continue;
    }
    if (!field.name) {
      expectChunk(wireType, path);
      decodeInto(out, reader.chunk(), messageNamed(field.type), path);
      continue;
    }
    const where = path ? `${path}.${field.name}` : field.name;
    if (field.repeated && field.type === "int" && wireType === 2) {
      // A packed list of numbers: all values in one chunk.
      const packed = new ProtobufReader(reader.chunk());
      const list = (out[field.name] ??= []) as JsonValue[];
      while (!packed.done) list.push(packed.int());
      continue;
    }
    const value = readValue(reader, wireType, field.type, where);
    if (field.type.startsWith("map<")) {
      Object.assign((out[field.name] ??= {}) as JsonObject, value as JsonObject);
    } else if (field.repeated) {
      ((out[field.name] ??= []) as JsonValue[]).push(value);
    } else if (field.keepZero || field.message || !isZero(value)) {
      out[field.name] = value;
    }
  }
}

function expectChunk(wireType: number, path: string): void {
  if (wireType !== 2) throw new WireError(`${path || "the object"} is not a nested message`);
}

function decodeMessage(bytes: Uint8Array, message: Message, path: string): JsonObject {
  const out: JsonObject = {};
  decodeInto(out, bytes, message, path);
  return out;
}

/** Decode a protobuf request body of a built-in kind into its JSON form. */
export function decodeProtobuf(bytes: Uint8Array): JsonObject {
  if (bytes.length < 4 || MAGIC.some((b, i) => bytes[i] !== b)) {
    throw badRequest(
      'the request body is not a Kubernetes protobuf message: it lacks the "k8s\\0" prefix',
    );
  }
  let apiVersion = "";
  let kind = "";
  let raw: Uint8Array = new Uint8Array();
  let encoding = "";
  try {
    const envelope = new ProtobufReader(bytes.subarray(4));
    for (const [number, wireType] of envelope.fields()) {
      if (number === 1 && wireType === 2) {
        const typeMeta = smallMessage(envelope.chunk());
        apiVersion = string(bytesOf(typeMeta.get(1)));
        kind = string(bytesOf(typeMeta.get(2)));
      } else if (number === 2 && wireType === 2) raw = envelope.chunk();
      else if (number === 3 && wireType === 2) encoding = string(envelope.chunk());
      else envelope.skip(wireType);
    }
  } catch (error) {
    throw badRequest(`the protobuf request body is malformed: ${(error as Error).message}`);
  }
  if (encoding) {
    throw new ApiError(415, `the protobuf request body is ${encoding}-encoded; send it plain`);
  }
  const message = kindMessage(apiVersion, kind);
  if (!message) {
    throw new ApiError(
      415,
      `the body of the request was in an unknown format - the fake cluster reads protobuf ` +
        `only for built-in kinds it knows, not ${apiVersion || "(no apiVersion)"} ` +
        `${kind || "(no kind)"}; accepted media types include: application/json, application/yaml`,
    );
  }
  try {
    return { apiVersion, kind, ...decodeMessage(raw, message, "") };
  } catch (error) {
    if (error instanceof UnknownField) {
      throw new ApiError(
        415,
        `the fake cluster cannot read ${error.message} of this ${kind} in protobuf; ` +
          `send it as JSON or YAML (e.g. kubectl apply -f)`,
      );
    }
    if (error instanceof WireError) {
      throw badRequest(`the protobuf ${kind} is malformed: ${error.message}`);
    }
    throw error;
  }
}
