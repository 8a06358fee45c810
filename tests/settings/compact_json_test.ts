import { assertEquals, assertThrows } from "../assert.ts";
import { formatNumber, toCompactJson } from "../../src/settings/compact_json.ts";

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
