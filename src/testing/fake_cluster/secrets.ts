/**
 * Secrets as the API server reads them: `stringData` is merged into `data` (base64 of its
 * UTF-8), winning over `data` for the same key, and is never stored nor returned; `data`
 * must be base64 (newlines are dropped, as Go's decoder skips them); `type` defaults to
 * `Opaque` and is immutable; the keys of `data` must be valid config keys.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import { base64Encode } from "../../platform/der.ts";
import { type ApiError, badRequest, type Cause } from "./errors.ts";
import { isObject } from "./patching.ts";

/** Base64 as Go's standard decoder takes it (padding required, line breaks skipped). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** A key of a Secret's or ConfigMap's data. */
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const MAX_KEY_LENGTH = 253;

/** A 400 in the API server's words for a body that does not decode as a Secret. */
function undecodable(why: string): ApiError {
  return badRequest(`Secret in version "v1" cannot be handled as a Secret: ${why}`);
}

function typeName(value: JsonValue): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return isObject(value) ? "object" : typeof value;
}

/** `data` with its values checked as base64, without line breaks. */
function dataOf(given: JsonValue | undefined): JsonObject {
  if (given === undefined || given === null) return {};
  if (!isObject(given)) {
    throw undecodable(`json: cannot unmarshal ${typeName(given)} into Go struct field Secret.data`);
  }
  const data: JsonObject = {};
  for (const [key, value] of Object.entries(given)) {
    if (value === null) continue;
    if (typeof value !== "string") {
      throw undecodable(
        `json: cannot unmarshal ${
          typeName(value)
        } into Go struct field Secret.data of type []uint8`,
      );
    }
    const text = value.includes("\n") || value.includes("\r")
      ? value.replace(/[\r\n]/g, "")
      : value;
    if (!BASE64.test(text)) {
      throw undecodable(`illegal base64 data in data[${JSON.stringify(key)}]`);
    }
    data[key] = text;
  }
  return data;
}

/**
 * The Secret as the server keeps it: `stringData` merged into `data` and dropped, `type`
 * defaulted. Changes the object given (a fresh copy of the request's body).
 */
export function decodeSecret(object: JsonObject): JsonObject {
  const data = dataOf(object.data);
  const stringData = object.stringData;
  if (stringData !== undefined && stringData !== null) {
    if (!isObject(stringData)) {
      throw undecodable(
        `json: cannot unmarshal ${typeName(stringData)} into Go struct field Secret.stringData`,
      );
    }
    for (const [key, value] of Object.entries(stringData)) {
      if (typeof value !== "string") {
        throw undecodable(
          `json: cannot unmarshal ${
            typeName(value)
          } into Go struct field Secret.stringData of type string`,
        );
      }
      data[key] = base64Encode(new TextEncoder().encode(value));
    }
  }
  delete object.stringData;
  if (Object.keys(data).length) object.data = data;
  else delete object.data;
  if (object.type === undefined || object.type === null || object.type === "") {
    object.type = "Opaque";
  }
  return object;
}

/**
 * What is wrong with a Secret as the API server validates it: the keys of its data, and a
 * `type` changed by an update (it is immutable).
 */
export function checkSecret(object: JsonObject, old: JsonObject | undefined): Cause[] {
  const data = isObject(object.data) ? object.data : {};
  const causes: Cause[] = [];
  // A Secret stored without a type (from an older state file) is an Opaque one.
  if (old !== undefined && (old.type ?? "Opaque") !== object.type) {
    causes.push({
      field: "type",
      message: `Invalid value: ${JSON.stringify(object.type)}: field is immutable`,
    });
  }
  for (const key of Object.keys(data)) {
    if (CONFIG_KEY.test(key) && key.length <= MAX_KEY_LENGTH && key !== "." && key !== "..") {
      continue;
    }
    causes.push({
      field: `data[${key}]`,
      message: `Invalid value: ${
        JSON.stringify(key)
      }: a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
    });
  }
  return causes;
}
