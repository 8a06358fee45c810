/**
 * Structural schemas of custom resources: pruning of unknown fields, defaulting and
 * validation, done in that order on every write like a real API server does.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import type { Cause } from "./errors.ts";
import { clone, isObject } from "./patching.ts";

const PRESERVE = "x-kubernetes-preserve-unknown-fields";
const EMBEDDED = "x-kubernetes-embedded-resource";
const INT_OR_STRING = "x-kubernetes-int-or-string";

/**
 * Drop the fields the schema does not declare, unless it preserves unknown fields. The
 * dotted paths of dropped fields go to `dropped`, when given (for strict validation).
 */
export function prune(
  value: JsonValue,
  schema: JsonObject | undefined,
  root = false,
  dropped?: string[],
  path = "",
): JsonValue {
  if (!schema) return value;
  if (Array.isArray(value)) {
    const items = isObject(schema.items) ? schema.items : undefined;
    return items ? value.map((v, i) => prune(v, items, false, dropped, `${path}[${i}]`)) : value;
  }
  if (!isObject(value)) return value;
  const properties = isObject(schema.properties) ? schema.properties : undefined;
  const additional = schema.additionalProperties;
  const preserve = schema[PRESERVE] === true || additional === true;
  const keepMeta = root || schema[EMBEDDED] === true;
  const result: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (keepMeta && (key === "apiVersion" || key === "kind" || key === "metadata")) {
      result[key] = v;
    } else if (properties && Object.hasOwn(properties, key)) {
      result[key] = prune(v, properties[key] as JsonObject, false, dropped, at);
    } else if (isObject(additional)) {
      result[key] = prune(v, additional, false, dropped, at);
    } else if (preserve) {
      result[key] = v;
    } else {
      dropped?.push(at);
    }
  }
  return result;
}

/** Fill in the `default`s of absent properties, recursively (defaults included). */
export function applyDefaults(value: JsonValue, schema: JsonObject | undefined): JsonValue {
  if (!schema) return value;
  if (Array.isArray(value)) {
    const items = isObject(schema.items) ? schema.items : undefined;
    return items ? value.map((v) => applyDefaults(v, items)) : value;
  }
  if (!isObject(value)) return value;
  const properties = isObject(schema.properties) ? schema.properties : {};
  const result: JsonObject = { ...value };
  for (const [key, sub] of Object.entries(properties)) {
    if (!isObject(sub)) continue;
    if (result[key] === undefined && sub.default !== undefined) {
      result[key] = prune(clone(sub.default), sub);
    }
    if (result[key] !== undefined) result[key] = applyDefaults(result[key], sub);
  }
  if (isObject(schema.additionalProperties)) {
    for (const [key, v] of Object.entries(result)) {
      if (!Object.hasOwn(properties, key)) {
        result[key] = applyDefaults(v, schema.additionalProperties);
      }
    }
  }
  return result;
}

function typeOf(value: JsonValue): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function typeMatches(value: JsonValue, schema: JsonObject): boolean {
  if (schema[INT_OR_STRING] === true) return typeof value === "string" || Number.isInteger(value);
  const type = schema.type;
  if (typeof type !== "string") return true;
  const actual = typeOf(value);
  return actual === type || (type === "number" && actual === "integer");
}

/** Check a value against the schema; returns the problems found, with field paths. */
export function validate(value: JsonValue, schema: JsonObject | undefined, path = ""): Cause[] {
  if (!schema) return [];
  const at = path || "<root>";
  const shown = JSON.stringify(value);
  if (value === null) {
    return schema.nullable === true || schema.type === undefined ? [] : [{
      field: at,
      reason: "FieldValueTypeInvalid",
      message: `Invalid value: "null": ${at} in body must be of type ${schema.type}: "null"`,
    }];
  }
  if (!typeMatches(value, schema)) {
    return [{
      field: at,
      reason: "FieldValueTypeInvalid",
      message: `Invalid value: "${
        typeOf(value)
      }": ${at} in body must be of type ${schema.type}: ${shown}`,
    }];
  }
  const causes: Cause[] = [];
  const bad = (message: string, reason = "FieldValueInvalid") =>
    causes.push({ field: at, reason, message: `Invalid value: ${shown}: ${message}` });
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => JSON.stringify(e) === shown)) {
    causes.push({
      field: at,
      reason: "FieldValueNotSupported",
      message: `Unsupported value: ${shown}: supported values: ${
        schema.enum.map((e) => JSON.stringify(e)).join(", ")
      }`,
    });
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) {
      bad(`${at} in body should be greater than or equal to ${schema.minimum}`);
    }
    if (typeof schema.maximum === "number" && value > schema.maximum) {
      bad(`${at} in body should be less than or equal to ${schema.maximum}`);
    }
  }
  if (typeof value === "string") {
    if (typeof schema.minLength === "number" && value.length < schema.minLength) {
      bad(`${at} in body should be at least ${schema.minLength} chars long`);
    }
    if (typeof schema.maxLength === "number" && value.length > schema.maxLength) {
      bad(`${at} in body may not be longer than ${schema.maxLength}`, "FieldValueTooLong");
    }
    if (typeof schema.pattern === "string" && !new RegExp(schema.pattern, "u").test(value)) {
      bad(`${at} in body should match '${schema.pattern}'`);
    }
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === "number" && value.length < schema.minItems) {
      bad(`${at} in body should have at least ${schema.minItems} items`);
    }
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems) {
      bad(`${at} in body should have at most ${schema.maxItems} items`, "FieldValueTooMany");
    }
    if (isObject(schema.items)) {
      const items = schema.items;
      value.forEach((v, i) => causes.push(...validate(v, items, `${path}[${i}]`)));
    }
  }
  if (isObject(value)) {
    const properties = isObject(schema.properties) ? schema.properties : {};
    if (Array.isArray(schema.required)) {
      for (const key of schema.required) {
        if (typeof key === "string" && value[key] === undefined) {
          const field = path ? `${path}.${key}` : key;
          causes.push({ field, reason: "FieldValueRequired", message: "Required value" });
        }
      }
    }
    for (const [key, v] of Object.entries(value)) {
      if (path === "" && (key === "apiVersion" || key === "kind" || key === "metadata")) continue;
      const sub = Object.hasOwn(properties, key) ? properties[key] : schema.additionalProperties;
      if (isObject(sub)) causes.push(...validate(v, sub, path ? `${path}.${key}` : key));
    }
  }
  return causes;
}
