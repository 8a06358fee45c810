/**
 * JSON bodies read as the API server's strict decoder reads them (sigs.k8s.io/json,
 * `UnmarshalStrict`): a field that appears twice in one object is a strict error,
 * `duplicate field "metadata.name"`, reported by its path. `JSON.parse` would keep the
 * last value silently; the API server keeps the last value too where it decodes into
 * maps and untyped values, but decodes a repeated field of a Go struct into the same
 * struct again, merging the two objects (`mergeObjects`).
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import { isObject } from "./patching.ts";

/** A field seen twice in one object: its path as the API server prints it, and its line. */
export interface DuplicateField {
  /** `metadata.labels.app`, `spec.containers[0].name`: keys by dots, items by index. */
  readonly path: string;
  /** The repeated key itself. */
  readonly key: string;
  /** The line of the repeated key, counted from 1 (YAML's decoder reports lines). */
  readonly line: number;
}

/** A body's value and the fields it repeats, in the order of the text. */
export interface StrictJson {
  readonly value: JsonValue;
  readonly duplicates: readonly DuplicateField[];
}

type Segment = string | number;

/** The path of a field as the strict decoder's field stack prints it. */
export function fieldPath(path: readonly Segment[]): string {
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else text += text ? `.${segment}` : segment;
  }
  return text;
}

/** Two values of one struct field, as Go decodes the second into the first. */
function merged(first: JsonValue, second: JsonValue): JsonValue {
  if (!isObject(first) || !isObject(second)) return second;
  const result: JsonObject = { ...first };
  for (const [key, value] of Object.entries(second)) {
    setField(result, key, key in result ? merged(result[key], value) : value);
  }
  return result;
}

/** Set a field as `JSON.parse` does: `__proto__` too is an own property, not the prototype. */
function setField(object: JsonObject, key: string, value: JsonValue): void {
  if (key === "__proto__") {
    Object.defineProperty(object, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else object[key] = value;
}

/** A reader over text already known to be valid JSON (`JSON.parse` checked it). */
class Reader {
  #at = 0;
  readonly duplicates: DuplicateField[] = [];

  constructor(readonly text: string, readonly mergeObjects: boolean) {}

  #skipSpace(): void {
    const text = this.text;
    while (this.#at < text.length) {
      const c = text.charCodeAt(this.#at);
      if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
      this.#at++;
    }
  }

  value(path: Segment[]): JsonValue {
    this.#skipSpace();
    const c = this.text[this.#at];
    if (c === "{") return this.#object(path);
    if (c === "[") return this.#array(path);
    if (c === '"') return this.#string();
    const start = this.#at;
    while (this.#at < this.text.length && !/[\s,\]}]/.test(this.text[this.#at])) this.#at++;
    return JSON.parse(this.text.slice(start, this.#at)) as JsonValue;
  }

  #string(): string {
    const text = this.text;
    const start = this.#at;
    let escaped = false;
    this.#at++;
    while (text[this.#at] !== '"') {
      if (text[this.#at] === "\\") {
        escaped = true;
        this.#at++;
      }
      this.#at++;
    }
    this.#at++;
    return escaped ? JSON.parse(text.slice(start, this.#at)) : text.slice(start + 1, this.#at - 1);
  }

  #line(at: number): number {
    let line = 1;
    for (let i = this.text.indexOf("\n"); i !== -1 && i < at; i = this.text.indexOf("\n", i + 1)) {
      line++;
    }
    return line;
  }

  #object(path: Segment[]): JsonObject {
    const result: JsonObject = {};
    const seen = new Set<string>();
    this.#at++; // {
    this.#skipSpace();
    if (this.text[this.#at] === "}") {
      this.#at++;
      return result;
    }
    for (;;) {
      this.#skipSpace();
      const keyAt = this.#at;
      const key = this.#string();
      this.#skipSpace();
      this.#at++; // :
      const child = [...path, key];
      const value = this.value(child);
      if (seen.has(key)) {
        this.duplicates.push({ path: fieldPath(child), key, line: this.#line(keyAt) });
        setField(result, key, this.mergeObjects ? merged(result[key], value) : value);
      } else {
        seen.add(key);
        setField(result, key, value);
      }
      this.#skipSpace();
      if (this.text[this.#at++] === "}") return result;
    }
  }

  #array(path: Segment[]): JsonValue[] {
    const result: JsonValue[] = [];
    this.#at++; // [
    this.#skipSpace();
    if (this.text[this.#at] === "]") {
      this.#at++;
      return result;
    }
    for (;;) {
      result.push(this.value([...path, result.length]));
      this.#skipSpace();
      if (this.text[this.#at++] === "]") return result;
    }
  }
}

/**
 * Read a JSON text strictly: its value and its repeated fields. Throws `JSON.parse`'s
 * `SyntaxError` for text that is not JSON.
 */
export function readStrictJson(text: string, mergeObjects = false): StrictJson {
  const plain = JSON.parse(text) as JsonValue;
  // Text without objects cannot repeat a field; text without repeated fields is read
  // the same by both parsers, and the native one is the faster.
  if (!text.includes("{")) return { value: plain, duplicates: [] };
  const reader = new Reader(text, mergeObjects);
  const value = reader.value([]);
  if (!reader.duplicates.length) return { value: plain, duplicates: [] };
  return { value, duplicates: reader.duplicates };
}
