/**
 * The soak's memory judgement: minutes 5–10 against the last five, flat within 10%, and no
 * judgement at all for runs too short for two windows.
 */
import { memoryTrend, type RssSample, trendRows } from "../../scripts/soak/memory.ts";
import { assertEquals } from "../assert.ts";

/** One sample a second for `seconds`, of `mb(t)`. */
function samples(seconds: number, mb: (t: number) => number): RssSample[] {
  return Array.from({ length: seconds + 1 }, (_, t) => ({ at: 1000 + t, mb: mb(t) }));
}

Deno.test("a run whose late average stays within 10% of minutes 5–10 is flat", () => {
  const trend = memoryTrend(samples(1800, (t) => (t < 300 ? 50 + t / 10 : 100 + (t % 7))))!;
  assertEquals(Math.round(trend.early), 103);
  assertEquals(trend.flat, true);
  assertEquals(trendRows("fake cluster", trend)[2], [
    "fake cluster RSS growth after warm-up",
    "0% (flat)",
  ]);
});

Deno.test("a run that keeps growing is growing; a short run is not judged", () => {
  const trend = memoryTrend(samples(1800, (t) => 100 + t / 10))!;
  assertEquals([Math.round(trend.early), Math.round(trend.late), trend.flat], [145, 265, false]);
  assertEquals(trendRows("operator", trend).map(([name]) => name), [
    "operator RSS, average of minutes 5–10",
    "operator RSS, average of the last 5 minutes",
    "operator RSS growth after warm-up",
  ]);
  assertEquals(trendRows("operator", trend)[2][1], "+83% (growing)");
  assertEquals(memoryTrend(samples(899, () => 100)), undefined);
  assertEquals(memoryTrend([]), undefined);
});

Deno.test("a later warm-up moves the first window, and needs a longer run", () => {
  // Filling up for 10 minutes (a history ring, say), flat after.
  const run = samples(1500, (t) => (t < 600 ? 100 + t / 3 : 300));
  assertEquals(memoryTrend(run)!.flat, false, "minutes 5–10 still see the filling");
  const trend = memoryTrend(run, 600)!;
  assertEquals([trend.early, trend.late, trend.flat], [300, 300, true]);
  assertEquals(
    trendRows("fake cluster", trend)[0][0],
    "fake cluster RSS, average of minutes 10–15",
  );
  assertEquals(memoryTrend(run, 930), undefined);
  assertEquals(trendRows("x", memoryTrend(run, 630)!)[0][0], "x RSS, average of minutes 10.5–15.5");
});
