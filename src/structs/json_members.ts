/**
 * One string read out of a JSON text without parsing it: `metadata.resourceVersion` of a
 * write's answer, which is all that most writes need of it. The scan skips what comes before
 * (strings, nested values) by their syntax, building nothing; what it cannot read for sure
 * -- a value of another type, an escape in the string, a text that is not an object -- it
 * leaves to `JSON.parse` (`undefined`). Of a member given twice, it finds the first (the API
 * server writes each once; `JSON.parse` would take the last).
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
