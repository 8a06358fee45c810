/**
 * JSON text exactly as Python Kopf writes it: `json.dumps(value, separators=(",", ":"))`.
 *
 * `JSON.stringify` differs from Python's defaults in ways that change the bytes of
 * persisted annotations: Python escapes every character outside printable ASCII as
 * `\uXXXX` (`ensure_ascii=True`), and it formats non-integral floats by its own rules
 * (`1e-05`, `1e+16`). Object keys keep their insertion order, as Python dicts do.
 *
 * @module
 */

// What JSON.stringify leaves unescaped that Python escapes: DEL and everything beyond ASCII.
const BEYOND_ASCII = /[^\x20-\x7e]/;
const BEYOND_ASCII_ALL = /[^\x20-\x7e]/g;

function escapeCodeUnit(ch: string): string {
  return `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/** A string as a JSON literal with Python's `ensure_ascii=True` escaping. */
export function quoteString(text: string): string {
  // JSON.stringify escapes the quote, the backslash and the control characters as Python
  // does (short forms where there are, else lowercase \u00XX; lone surrogates as \udXXX);
  // what it leaves, DEL and beyond ASCII, is escaped here code unit by code unit (astral
  // characters become two surrogate escapes, as in Python).
  const quoted = JSON.stringify(text);
  return BEYOND_ASCII.test(quoted) ? quoted.replace(BEYOND_ASCII_ALL, escapeCodeUnit) : quoted;
}

/** A number as Python's `json.dumps` would print it: integers in full, floats via `repr`. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) {
    throw new RangeError(`Cannot persist ${value} as JSON; store a finite number or a string.`);
  }
  if (Number.isInteger(value)) return BigInt(value).toString();
  // Python's repr: the shortest round-tripping digits (as JS), exponent form outside 1e-4..1e16.
  const [mantissa, exp] = value.toExponential().split("e");
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace(/^-/, "").replace(".", "");
  const decpt = Number(exp) + 1; // the position of the decimal point after the first digit
  let text: string;
  if (decpt <= -4 || decpt > 16) {
    const head = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = decpt - 1;
    text = `${head}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  } else if (decpt <= 0) {
    text = `0.${"0".repeat(-decpt)}${digits}`;
  } else {
    text = `${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
  }
  return negative ? `-${text}` : text;
}

/**
 * Compact JSON text of `value`, byte-for-byte as Python's
 * `json.dumps(value, separators=(",", ":"))`. `undefined` object values are skipped.
 */
export function toCompactJson(value: unknown): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      return quoteString(value);
    case "number":
      return formatNumber(value);
    case "boolean":
      return value ? "true" : "false";
    case "object": {
      if (Array.isArray(value)) return `[${value.map(toCompactJson).join(",")}]`;
      // One string grown in place: no entry pairs, no parts array per object.
      const object = value as Record<string, unknown>;
      let text = "{";
      for (const key in object) {
        if (!Object.hasOwn(object, key)) continue;
        const item = object[key];
        if (item === undefined) continue;
        if (text.length > 1) text += ",";
        text += `${quoteString(key)}:${toCompactJson(item)}`;
      }
      return `${text}}`;
    }
    default:
      throw new TypeError(
        `Cannot persist a ${typeof value} as JSON; use strings, numbers, booleans, arrays, objects.`,
      );
  }
}
