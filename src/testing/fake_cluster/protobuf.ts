/**
 * Reading the Kubernetes protobuf encoding for the few simple kinds that kubectl's
 * generators send as protobuf (`kubectl create namespace|configmap|secret|serviceaccount`).
 * Anything else in protobuf is refused with 415 and a hint to send JSON or YAML.
 *
 * The envelope is `k8s\0` + `runtime.Unknown { typeMeta{apiVersion, kind}, raw }`; `raw`
 * is the object's message, whose field numbers come from Kubernetes' `generated.proto`.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import { ApiError } from "./errors.ts";

/** How to read one field: a scalar, a nested message, a map, or repeated of those. */
type Field =
  | { name: string; type: "string" | "bytes" | "int" | "bool" | "time"; repeated?: boolean }
  | { name: string; type: "message"; schema: Schema; repeated?: boolean }
  | { name: string; type: "map"; value: "string" | "bytes" };

type Schema = Record<number, Field>;

const OWNER_REFERENCE: Schema = {
  1: { name: "kind", type: "string" },
  3: { name: "name", type: "string" },
  4: { name: "uid", type: "string" },
  5: { name: "apiVersion", type: "string" },
  6: { name: "controller", type: "bool" },
  7: { name: "blockOwnerDeletion", type: "bool" },
};

const OBJECT_META: Schema = {
  1: { name: "name", type: "string" },
  2: { name: "generateName", type: "string" },
  3: { name: "namespace", type: "string" },
  6: { name: "resourceVersion", type: "string" },
  11: { name: "labels", type: "map", value: "string" },
  12: { name: "annotations", type: "map", value: "string" },
  13: { name: "ownerReferences", type: "message", schema: OWNER_REFERENCE, repeated: true },
  14: { name: "finalizers", type: "string", repeated: true },
};

const LOCAL_REFERENCE: Schema = { 1: { name: "name", type: "string" } };

const KINDS: Record<string, Schema> = {
  "v1/Namespace": {
    1: { name: "metadata", type: "message", schema: OBJECT_META },
    2: {
      name: "spec",
      type: "message",
      schema: { 1: { name: "finalizers", type: "string", repeated: true } },
    },
  },
  "v1/ConfigMap": {
    1: { name: "metadata", type: "message", schema: OBJECT_META },
    2: { name: "data", type: "map", value: "string" },
    3: { name: "binaryData", type: "map", value: "bytes" },
    4: { name: "immutable", type: "bool" },
  },
  "v1/Secret": {
    1: { name: "metadata", type: "message", schema: OBJECT_META },
    2: { name: "data", type: "map", value: "bytes" },
    3: { name: "type", type: "string" },
    4: { name: "stringData", type: "map", value: "string" },
    5: { name: "immutable", type: "bool" },
  },
  "v1/ServiceAccount": {
    1: { name: "metadata", type: "message", schema: OBJECT_META },
    3: { name: "imagePullSecrets", type: "message", schema: LOCAL_REFERENCE, repeated: true },
    4: { name: "automountServiceAccountToken", type: "bool" },
  },
};

const MAGIC = [0x6b, 0x38, 0x73, 0x00]; // "k8s\0"
const decoder = new TextDecoder();

/** A protobuf wire-format reader over one message's bytes. */
class Reader {
  #pos = 0;
  constructor(readonly bytes: Uint8Array) {}

  get done(): boolean {
    return this.#pos >= this.bytes.length;
  }

  varint(): number {
    let result = 0;
    let shift = 0;
    while (true) {
      if (this.#pos >= this.bytes.length) throw new Error("truncated varint");
      const byte = this.bytes[this.#pos++];
      result += (byte & 0x7f) * 2 ** shift;
      if (!(byte & 0x80)) return result;
      shift += 7;
    }
  }

  chunk(): Uint8Array {
    const length = this.varint();
    const end = this.#pos + length;
    if (end > this.bytes.length) throw new Error("truncated field");
    const out = this.bytes.subarray(this.#pos, end);
    this.#pos = end;
    return out;
  }

  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 2) this.chunk();
    else if (wireType === 1) this.#pos += 8;
    else if (wireType === 5) this.#pos += 4;
    else throw new Error(`unsupported wire type ${wireType}`);
  }

  /** Each field as [number, wire type]; the value is read by the caller. */
  *fields(): Generator<[number, number]> {
    while (!this.done) {
      const key = this.varint();
      yield [Math.floor(key / 8), key & 7];
    }
  }
}

function base64(bytes: Uint8Array): string {
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text);
}

function readMessage(bytes: Uint8Array, schema: Schema): JsonObject {
  const reader = new Reader(bytes);
  const out: JsonObject = {};
  for (const [number, wireType] of reader.fields()) {
    const field = schema[number];
    if (!field) {
      reader.skip(wireType);
      continue;
    }
    let value: JsonValue;
    switch (field.type) {
      case "string":
        value = decoder.decode(reader.chunk());
        break;
      case "bytes":
        value = base64(reader.chunk());
        break;
      case "int":
        value = reader.varint();
        break;
      case "bool":
        value = reader.varint() !== 0;
        break;
      case "time": {
        const seconds = readMessage(reader.chunk(), { 1: { name: "s", type: "int" } }).s;
        value = new Date(Number(seconds) * 1000).toISOString().replace(/\.\d+Z$/, "Z");
        break;
      }
      case "message":
        value = readMessage(reader.chunk(), field.schema);
        break;
      case "map": {
        const entry = readMessage(reader.chunk(), {
          1: { name: "key", type: "string" },
          2: { name: "value", type: field.value },
        });
        const map = (out[field.name] ??= {}) as JsonObject;
        map[String(entry.key ?? "")] = entry.value ?? "";
        continue;
      }
    }
    if ("repeated" in field && field.repeated) {
      ((out[field.name] ??= []) as JsonValue[]).push(value);
    } else {
      out[field.name] = value;
    }
  }
  return out;
}

/** Decode a protobuf request body of a supported kind into its JSON form. */
export function decodeProtobuf(bytes: Uint8Array): JsonObject {
  const refuse = (why: string) =>
    new ApiError(
      415,
      `the fake cluster cannot read this protobuf body (${why}); send JSON or YAML, e.g. with kubectl apply -f`,
    );
  if (bytes.length < 4 || MAGIC.some((b, i) => bytes[i] !== b)) throw refuse("no k8s envelope");
  let envelope: JsonObject;
  try {
    envelope = readMessage(bytes.subarray(4), {
      1: {
        name: "typeMeta",
        type: "message",
        schema: { 1: { name: "apiVersion", type: "string" }, 2: { name: "kind", type: "string" } },
      },
      2: { name: "raw", type: "bytes" },
    });
  } catch (error) {
    throw refuse((error as Error).message);
  }
  const typeMeta = (envelope.typeMeta ?? {}) as JsonObject;
  const apiVersion = String(typeMeta.apiVersion ?? "");
  const kind = String(typeMeta.kind ?? "");
  const schema = KINDS[`${apiVersion}/${kind}`];
  if (!schema) throw refuse(`${apiVersion} ${kind} is not one of the kinds it reads`);
  const raw = Uint8Array.from(atob(String(envelope.raw ?? "")), (c) => c.charCodeAt(0));
  try {
    return { apiVersion, kind, ...readMessage(raw, schema) };
  } catch (error) {
    throw refuse((error as Error).message);
  }
}
