/**
 * Durations from command lines: plain seconds or Go durations, as kube-apiserver's flags
 * take them; anything else is `undefined`, for the caller to name its flag.
 */
import { secondsOfDuration } from "../../src/structs/durations.ts";
import { assert, assertEquals } from "../assert.ts";

Deno.test("plain seconds and Go durations are read as seconds", () => {
  const cases: [string, number][] = [
    ["0", 0],
    ["90", 90],
    ["1.5", 1.5],
    [".5", 0.5],
    ["0s", 0],
    ["5s", 5],
    ["300ms", 0.3],
    ["1m30s", 90],
    ["1h0m0s", 3600],
    ["2h45m", 9900],
    ["1.5h", 5400],
    ["5.s", 5],
    ["1500us", 0.0015],
    ["1500µs", 0.0015],
    ["2000000ns", 0.002],
    ["1s500ms", 1.5],
  ];
  for (const [text, seconds] of cases) {
    const read = secondsOfDuration(text);
    assert(read !== undefined && Math.abs(read - seconds) < 1e-12, `${text}: ${read}`);
  }
});

Deno.test("anything else is undefined: signs, exponents, spaces, bare or unknown units", () => {
  for (
    const text of [
      "",
      " ",
      "-1",
      "-1s",
      "+5s",
      "1e3",
      "5x",
      "s",
      "m5",
      "5 s",
      "5s ",
      "1d",
      "1h-5m",
      ".",
    ]
  ) {
    assertEquals(secondsOfDuration(text), undefined, JSON.stringify(text));
  }
});
