/** The processing sections' own rule: the error delays between attempts at an object. */
import { assertEquals } from "../assert.ts";
import { errorDelayAfter } from "../../src/settings/processing_settings.ts";

Deno.test("the error delays go along the list, then repeat its last one; none without a list", () => {
  const delays = [1, 2, 5];
  assertEquals([0, 1, 2, 3, 10].map((n) => errorDelayAfter(delays, n)), [1, 2, 5, 5, 5]);
  assertEquals(errorDelayAfter([], 0), undefined);
  // Any iterable, an endless one too: only as far as needed is read.
  function* doubling() {
    for (let delay = 1;; delay *= 2) yield delay;
  }
  assertEquals(errorDelayAfter({ [Symbol.iterator]: doubling }, 4), 16);
});
