/**
 * Strings read out of a JSON text without parsing it: `metadata.resourceVersion` of a
 * write's answer, which is all that most writes need of it, and the identity and version of
 * a watch event's object, which is all that a consumer needs of an event it knows already
 * (its own write's). The scan skips what comes before (strings, nested values) by their
 * syntax, building nothing; what it cannot read for sure -- a value of another type, an
 * escape in the string, a text that is not an object -- it leaves to `JSON.parse`
 * (`undefined`). Of a member given twice, it finds the first (the API server writes each
 * once; `JSON.parse` would take the last).
 *
 * @module
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * The string `text[outer][inner]` of a JSON object's text, if the scan finds it plainly (see
 * the module docs); `undefined` otherwise.
 */
export function memberString(text: string, outer: string, inner: string): string | undefined {
  const at = memberValue(text, skipSpace(text, 0), outer);
  if (at < 0 || text.charCodeAt(at) !== OPEN_BRACE) return undefined;
  const value = memberValue(text, at, inner);
  if (value < 0 || text.charCodeAt(value) !== QUOTE) return undefined;
  const end = stringEnd(text, value);
  if (end < 0) return undefined;
  const raw = text.slice(value + 1, end);
  return raw.includes("\\") ? undefined : raw;
}

/** A watch event's object as its identity and version tell it (see {@link modifiedObjectVersion}). */
export interface ObjectVersion {
  /** `metadata.namespace`; `undefined` for a cluster-scoped object. */
  readonly namespace: string | undefined;
  /** `metadata.uid`. */
  readonly uid: string;
  /** `metadata.resourceVersion`. */
  readonly resourceVersion: string;
}

/** How the API server begins a `MODIFIED` event (`metav1.WatchEvent`: the type, then the object). */
const MODIFIED_EVENT = '{"type":"MODIFIED",';

/**
 * The namespace, uid and resourceVersion of the object of a `MODIFIED` watch event's line, if
 * the line begins as the API server writes one (see {@link MODIFIED_EVENT}) and the scan reads
 * them plainly (see the module docs); `undefined` otherwise, as for every other event type.
 */
export function modifiedObjectVersion(line: string): ObjectVersion | undefined {
  if (!line.startsWith(MODIFIED_EVENT)) return undefined;
  const object = memberValue(line, 0, "object");
  if (object < 0) return undefined;
  const metadata = memberValue(line, object, "metadata");
  if (metadata < 0 || line.charCodeAt(metadata) !== OPEN_BRACE) return undefined;
  let namespace: string | undefined;
  let uid: string | undefined;
  let resourceVersion: string | undefined;
  let i = skipSpace(line, metadata + 1);
  if (line.charCodeAt(i) === CLOSE_BRACE) return undefined;
  for (;;) {
    if (line.charCodeAt(i) !== QUOTE) return undefined;
    const keyEnd = stringEnd(line, i);
    if (keyEnd < 0) return undefined;
    const key = keyEnd - i - 1 <= LONGEST_KEY ? line.slice(i + 1, keyEnd) : "";
    i = skipSpace(line, keyEnd + 1);
    if (line.charCodeAt(i) !== COLON) return undefined;
    i = skipSpace(line, i + 1);
    const end = valueEnd(line, i);
    if (key === "namespace" || key === "uid" || key === "resourceVersion") {
      // A member given twice, or one that is not a plain string: JSON.parse tells.
      const value = plainString(line, i, end);
      if (value === undefined) return undefined;
      if (key === "namespace") {
        if (namespace !== undefined) return undefined;
        namespace = value;
      } else if (key === "uid") {
        if (uid !== undefined) return undefined;
        uid = value;
      } else {
        if (resourceVersion !== undefined) return undefined;
        resourceVersion = value;
      }
    }
    i = skipSpace(line, end);
    if (line.charCodeAt(i) === CLOSE_BRACE) break;
    if (line.charCodeAt(i) !== COMMA) return undefined;
    i = skipSpace(line, i + 1);
  }
  if (!uid || !resourceVersion) return undefined;
  return { namespace, uid, resourceVersion };
}

/** The longest of the keys {@link modifiedObjectVersion} reads: others are not sliced out. */
const LONGEST_KEY = "resourceVersion".length;

/** The string value between the offsets, if it is one without escapes. */
function plainString(text: string, at: number, end: number): string | undefined {
  if (text.charCodeAt(at) !== QUOTE || text.charCodeAt(end - 1) !== QUOTE || end - at < 2) {
    return undefined;
  }
  const raw = text.slice(at + 1, end - 1);
  return raw.includes("\\") ? undefined : raw;
}

/** Where the value of the object's member `key` starts (the object at `at`); -1 if not found. */
function memberValue(text: string, at: number, key: string): number {
  if (text.charCodeAt(at) !== OPEN_BRACE) return -1;
  let i = skipSpace(text, at + 1);
  if (text.charCodeAt(i) === CLOSE_BRACE) return -1;
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) return -1;
    const keyEnd = stringEnd(text, i);
    if (keyEnd < 0) return -1;
    const named = keyEnd - i - 1 === key.length && text.startsWith(key, i + 1);
    i = skipSpace(text, keyEnd + 1);
    if (text.charCodeAt(i) !== COLON) return -1;
    i = skipSpace(text, i + 1);
    if (named) return i;
    i = skipSpace(text, valueEnd(text, i));
    if (text.charCodeAt(i) !== COMMA) return -1; // the end of the object, or not JSON
    i = skipSpace(text, i + 1);
  }
}

/** Where the value at `at` ends (just after it); the text's length if it does not end. */
function valueEnd(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === QUOTE) {
    const end = stringEnd(text, at);
    return end < 0 ? text.length : end + 1;
  }
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    // A number, true, false or null: up to the next delimiter.
    let i = at;
    for (; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === COMMA || code === CLOSE_BRACE || code === CLOSE_BRACKET || code <= 0x20) break;
    }
    return i;
  }
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) return text.length;
      i = end;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth++;
    } else if ((code === CLOSE_BRACE || code === CLOSE_BRACKET) && --depth === 0) {
      return i + 1;
    }
  }
  return text.length;
}

/** The index of the quote that ends the string starting at `at`; -1 if it does not end. */
function stringEnd(text: string, at: number): number {
  let i = at + 1;
  for (;;) {
    const quote = text.indexOf('"', i);
    if (quote < 0) return -1;
    let backslashes = 0;
    for (let k = quote - 1; k > at && text.charCodeAt(k) === BACKSLASH; k--) backslashes++;
    if (backslashes % 2 === 0) return quote;
    i = quote + 1;
  }
}

/** The first index from `at` on that is not JSON whitespace. */
function skipSpace(text: string, at: number): number {
  let i = at;
  for (; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) break;
  }
  return i;
}
