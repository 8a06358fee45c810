import { assert, assertEquals } from "../assert.ts";
import { jsonBytesAtMost } from "../../src/structs/size_limits.ts";

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

Deno.test("the estimate of a JSON's size is never below the size", () => {
  const values: unknown[] = [
    {},
    { a: 1, b: [1, 2, 3], c: { d: "e" } },
    { text: "ü€😀".repeat(100), numbers: [1.5e300, -0.000001, 123456789012345] },
    [[[]], null, true, false, "", 0],
    { 'key with "quotes"': "line\nbreak", nested: { deeper: { deepest: ["x"] } } },
  ];
  for (const value of values) {
    assert(jsonBytesAtMost(value, Infinity) >= bytes(value), JSON.stringify(value));
  }
});

Deno.test("the estimate stops at the cap", () => {
  const big = { items: Array.from({ length: 100_000 }, (_, i) => `item-${i}`) };
  assertEquals(jsonBytesAtMost(big, 1000), 1000);
  assert(jsonBytesAtMost({ small: "yes" }, 1000) < 1000);
});
