/** The benches' small statistics: medians and the markdown tables their footers print. */
import { markdownTable, median } from "../../scripts/bench/support/stats.ts";
import { assertEquals } from "../assert.ts";

Deno.test("a median of numbers in any order; of an even count, the mean of the middle two", () => {
  assertEquals(median([3, 1, 2]), 2);
  assertEquals(median([4, 1, 3, 2]), 2.5);
  assertEquals(median([7]), 7);
  // The numbers given are left as they were.
  const values = [2, 1];
  median(values);
  assertEquals(values, [2, 1]);
});

Deno.test("a markdown table has its head, a rule of as many columns, and a line per row", () => {
  assertEquals(
    markdownTable(["Controller", "CPU"], [["floor", "0.1 ms"], ["kopf", "0.12 ms"]]),
    "| Controller | CPU |\n|---|---|\n| floor | 0.1 ms |\n| kopf | 0.12 ms |",
  );
});
