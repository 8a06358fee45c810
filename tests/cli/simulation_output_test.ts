/**
 * What `kopf simulate` prints: the progress (in place on a terminal, a line each tenth and
 * each failure otherwise), durations, the summary, a failure with the end of its trace and
 * its replay command, and commands quoted for a shell.
 */
import { assertEquals } from "../assert.ts";
import {
  duration,
  failureLines,
  shellCommand,
  SimulationProgress,
  summaryLine,
  TRACE_TAIL,
} from "../../src/cli/simulation_output.ts";
import type { SimulationFailure } from "../../src/testing/mod.ts";

function failure(seed: number, lines = 3): SimulationFailure {
  const trace =
    Array.from({ length: lines }, (_, i) => `${i.toFixed(3).padStart(10)} check line ${i}`)
      .join("\n") + "\n";
  return { seed, invariant: "counted", message: "the counter is 9, not 10", trace };
}

function runs(progress: SimulationProgress, total: number, failing: readonly number[]): void {
  for (let done = 1; done <= total; done++) {
    const broken = failing.includes(done) ? failure(done) : undefined;
    progress.onRun({ seed: done, done, total, failure: broken, simulated: 60, steps: 10 });
  }
}

Deno.test("without a terminal: a progress line each tenth of the seeds and at the first failure", () => {
  const written: string[] = [];
  const progress = new SimulationProgress((text) => written.push(text), false, "creation: ");
  runs(progress, 25, [4, 5]);
  progress.end();
  assertEquals(written, [
    "creation: 3/25 seeds · 0 failures\n",
    "creation: 4/25 seeds · 1 failure\n",
    "creation: 6/25 seeds · 2 failures\n",
    "creation: 9/25 seeds · 2 failures\n",
    "creation: 12/25 seeds · 2 failures\n",
    "creation: 15/25 seeds · 2 failures\n",
    "creation: 18/25 seeds · 2 failures\n",
    "creation: 21/25 seeds · 2 failures\n",
    "creation: 24/25 seeds · 2 failures\n",
    "creation: 25/25 seeds · 2 failures\n",
  ]);
  assertEquals([progress.failures, progress.simulated], [2, 1500]);
});

Deno.test("on a terminal: one line rewritten in place, ended once", () => {
  const written: string[] = [];
  const progress = new SimulationProgress((text) => written.push(text), true);
  runs(progress, 3, [2, 3]);
  progress.end();
  progress.end();
  assertEquals(written, [
    "\r\x1b[K1/3 seeds · 0 failures",
    "\r\x1b[K2/3 seeds · 1 failure",
    "\r\x1b[K3/3 seeds · 2 failures",
    "\n",
  ]);
});

Deno.test("durations, the summary", () => {
  assertEquals(
    [0.0714, 14.24, 200, 120_000].map(duration),
    ["71 ms", "14.2 s", "3 min 20 s", "33 h 20 min"],
  );
  assertEquals(
    summaryLine({ runs: 200, failures: [failure(37)], wall: 14.2, simulated: 120_000 }),
    "200 seeds, 1 failure (seed 37); 14.2 s of wall time (71 ms a seed), 33 h 20 min simulated.",
  );
  assertEquals(
    summaryLine({ runs: 1, failures: [], wall: 0.05, simulated: 700 }),
    "1 seed, 0 failures; 50 ms of wall time (50 ms a seed), 11 min 40 s simulated.",
  );
  const many = Array.from({ length: 12 }, (_, i) => failure(i + 1));
  assertEquals(
    summaryLine({ runs: 12, failures: many, wall: 1, simulated: 1 }),
    "12 seeds, 12 failures (seeds 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, …); 1.0 s of wall time (83 ms a seed), 1.0 s simulated.",
  );
});

Deno.test("a failure: its invariant and message, the end of its trace, its replay command", () => {
  const replay = (seed: number, suppress?: readonly string[]) =>
    `kopf simulate op.ts --scenario s.ts --seed ${seed}${
      suppress ? ` --suppress ${suppress}` : ""
    }`;
  const long = failureLines(failure(37, 100), replay, true);
  assertEquals(long[0], "seed 37 broke counted: the counter is 9, not 10");
  assertEquals(long[1], `  the last ${TRACE_TAIL} of its 100 trace lines:`);
  assertEquals(long[2], "  |     60.000 check line 60");
  assertEquals(long.length, 3 + TRACE_TAIL);
  assertEquals(long.at(-1), "  replay: kopf simulate op.ts --scenario s.ts --seed 37");
  assertEquals(failureLines(failure(3), () => "r", true), [
    "seed 3 broke counted: the counter is 9, not 10",
    "  its trace:",
    "  |      0.000 check line 0",
    "  |      1.000 check line 1",
    "  |      2.000 check line 2",
    "  replay: r",
  ]);
  assertEquals(failureLines(failure(3), () => "r", false), [
    "seed 3 broke counted: the counter is 9, not 10",
    "  replay: r",
  ]);
  const shrunk = {
    ...failure(5),
    shrunk: {
      suppress: ["restarts", "errors"] as const,
      needed: ["crashes", "conflicts"] as const,
      message: "the counter is 8, not 10",
      trace: "",
    },
  };
  assertEquals(failureLines(shrunk, replay, false), [
    "seed 5 broke counted: the counter is 9, not 10",
    "  replay: kopf simulate op.ts --scenario s.ts --seed 5",
    "  it needs crashes, conflicts: with the other faults suppressed, it still breaks counted: the counter is 8, not 10",
    "  replay that: kopf simulate op.ts --scenario s.ts --seed 5 --suppress restarts,errors",
  ]);
  assertEquals(
    failureLines({ ...shrunk, shrunk: { ...shrunk.shrunk, needed: [] } }, replay, false)[2],
    "  it needs no fault, only the seed's interleaving: with the faults suppressed, it still breaks counted: the counter is 8, not 10",
  );
});

Deno.test("the printed end of a trace leaves out the bookmarks of quiet watches", () => {
  const trace = [
    "    10.000 fault    watch #1.2 configmaps lost BOOKMARK rv=9",
    "    12.000 watch    #1.2 configmaps BOOKMARK rv=9 (initial-events-end)",
    "    20.000 watch    #1.2 configmaps BOOKMARK rv=9",
    "    21.000 check    counted: the counter is 9, not 10",
  ].join("\n") + "\n";
  assertEquals(failureLines({ ...failure(1), trace }, () => "r", true), [
    "seed 1 broke counted: the counter is 9, not 10",
    "  the last 3 of its 4 trace lines, bookmarks left out:",
    "  |     10.000 fault    watch #1.2 configmaps lost BOOKMARK rv=9",
    "  |     12.000 watch    #1.2 configmaps BOOKMARK rv=9 (initial-events-end)",
    "  |     21.000 check    counted: the counter is 9, not 10",
    "  replay: r",
  ]);
});

Deno.test("commands are quoted for a shell where they need it", () => {
  assertEquals(
    shellCommand(["kopf", "simulate", "my operator.ts", "--faults", "crashes=off", "it's"]),
    `kopf simulate 'my operator.ts' --faults crashes=off 'it'\\''s'`,
  );
});
