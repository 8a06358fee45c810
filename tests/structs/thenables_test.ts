/**
 * Telling promises (and other thenables) from plain values.
 */
import { assertEquals } from "../assert.ts";
import { isThenable } from "../../src/structs/thenables.ts";

Deno.test("promises and objects with a then method are thenables; plain values are not", () => {
  const values: [unknown, boolean][] = [
    [Promise.resolve(1), true],
    [{ then: () => {} }, true],
    [{ then: 1 }, false],
    [{}, false],
    [null, false],
    [undefined, false],
    [0, false],
    ["then", false],
  ];
  for (const [value, expected] of values) assertEquals(isThenable(value), expected);
});
