import { assertEquals, assertThrows } from "../assert.ts";
import { formatNumber, quoteString, toCompactJson } from "../../src/settings/compact_json.ts";

// Expected texts from Python: json.dumps(value, separators=(",", ":")).
Deno.test("compact JSON escapes non-ASCII and control characters exactly as Python does", () => {
  const value = {
    spec: {
      a: 'ü ñ 😀 \u007f \u0001 \t\n"\\/ end',
      num: 1,
      f: 0.5,
      neg: -2.25,
      small: 1e-05,
      smaller: 0.0001,
      t: true,
      n: null,
      arr: [1, "x", { k: [] }],
      e: {},
    },
  };
  assertEquals(
    toCompactJson(value),
    '{"spec":{"a":"\\u00fc \\u00f1 \\ud83d\\ude00 \\u007f \\u0001 \\t\\n\\"\\\\/ end",' +
      '"num":1,"f":0.5,"neg":-2.25,"small":1e-05,"smaller":0.0001,"t":true,"n":null,' +
      '"arr":[1,"x",{"k":[]}],"e":{}}}',
  );
});

Deno.test("compact JSON prints floats as Python's repr", () => {
  assertEquals(
    toCompactJson([0.1, 1e-7, 123.456, 2.5e-300, -0.000123, 1234567890123456.5]),
    "[0.1,1e-07,123.456,2.5e-300,-0.000123,1234567890123456.5]",
  );
  assertEquals(formatNumber(-0), "0");
  assertEquals(formatNumber(1e21), "1000000000000000000000");
});

Deno.test("compact JSON keeps key order, skips undefined, refuses what JSON cannot hold", () => {
  assertEquals(toCompactJson({ b: 1, a: undefined, c: [null] }), '{"b":1,"c":[null]}');
  assertThrows(() => toCompactJson({ x: NaN }), RangeError, "finite number");
  assertThrows(() => toCompactJson({ x: () => 1 }), TypeError, "Cannot persist a function");
});

Deno.test("every UTF-16 code unit is escaped as Python's ensure_ascii escapes it", () => {
  const short: Record<string, string> = {
    '"': '\\"',
    "\\": "\\\\",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\b": "\\b",
    "\f": "\\f",
  };
  for (let code = 0; code < 0x10000; code++) {
    const ch = String.fromCharCode(code);
    const python = short[ch] ??
      (code >= 0x20 && code <= 0x7e ? ch : `\\u${code.toString(16).padStart(4, "0")}`);
    assertEquals(quoteString(`a${ch}b`), `"a${python}b"`, `U+${code.toString(16)}`);
  }
  // An astral character: two surrogate escapes.
  assertEquals(quoteString("😀"), '"\\ud83d\\ude00"');
});
