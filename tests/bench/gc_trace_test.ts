/**
 * The collector's pauses read from V8's `--trace-gc` lines, and the child processes whose
 * stdout is read as it comes, so that such lines never fill the pipe.
 */
import { GcTally, parseGcLine } from "../../scripts/bench/support/gc_trace.ts";
import { ChildProcess } from "../../scripts/bench/support/process.ts";
import { assert, assertEquals } from "../assert.ts";

// As V8 15 prints them (Deno 2.9): a scavenge, an incremental mark-compact with its steps,
// and a full one.
const SCAVENGE = "[21587:0x556640f2c000]       21 ms: Scavenge 4.0 (5.0) -> 3.3 (5.5) MB, " +
  "pooled: 0.0 MB, 1.19 / 0.00 ms (average mu = 1.000, current mu = 1.000) allocation failure; ";
const INCREMENTAL = "[15993:0x557785be3000]     2462 ms: Incremental Mark-Compact 34.7 (43.6) -> " +
  "18.8 (40.6) MB, pooled: 2.2 MB, 4.49 / 0.00 ms (+ 20.7 ms in 288 steps since start of " +
  "marking, biggest step 0.2 ms, walltime since start of marking 36 ms) (average mu = 0.957, " +
  "current mu = 0.966) finalize incremental marking via task; GC in old space requested";
const FULL = "[21593:0x5645f7db4000]       39 ms: Mark-Compact 7.9 (11.1) -> 2.7 (9.5) MB, " +
  "pooled: 0.0 MB, 3.51 / 0.00 ms (average mu = 0.905, current mu = 0.905) testing; " +
  "GC in old space requested";

Deno.test("a trace line gives its kind and the main thread's time, the marking steps included", () => {
  assertEquals(parseGcLine(SCAVENGE), { kind: "Scavenge", ms: 1.19 });
  const incremental = parseGcLine(INCREMENTAL)!;
  assertEquals(incremental.kind, "Incremental Mark-Compact");
  assert(Math.abs(incremental.ms - 25.19) < 1e-9, `${incremental.ms}`);
  assertEquals(parseGcLine(FULL), { kind: "Mark-Compact", ms: 3.51 });
  // The child's own lines are not the collector's.
  assertEquals(parseGcLine("READY"), undefined);
  assertEquals(parseGcLine('HEAP {"base":1,"now":2}'), undefined);
  assertEquals(parseGcLine("[21587:0x556640f2c000] something else"), undefined);
});

Deno.test("the tally counts by kind between its start and its stop only", () => {
  const tally = new GcTally();
  assert(tally.take(SCAVENGE), "a trace line is taken, counted or not");
  tally.start();
  assert(tally.take(SCAVENGE));
  assert(tally.take(INCREMENTAL));
  assert(tally.take(SCAVENGE));
  assert(!tally.take("READY"), "a line of the child's own is left for it");
  tally.stop();
  assert(tally.take(FULL));
  assertEquals([...tally.kinds.keys()], ["Scavenge", "Incremental Mark-Compact"]);
  assertEquals(tally.kinds.get("Scavenge"), { count: 2, ms: 2.38 });
  assertEquals(tally.total.count, 3);
  assert(Math.abs(tally.total.ms - 27.57) < 1e-9, `${tally.total.ms}`);
  assertEquals(tally.describe(), "2 Scavenge 2 ms, 1 Incremental Mark-Compact 25 ms");
  assertEquals(new GcTally().describe(), "none");
});

Deno.test("a Deno child's collections are tallied while its own lines are still expected", async () => {
  const tally = new GcTally();
  tally.start();
  // Young garbage, with a small young generation: scavenges, whatever the machine.
  await using child = new ChildProcess([
    "--v8-flags=--trace-gc,--max-semi-space-size=1",
    "--no-config",
    "data:text/javascript," + encodeURIComponent(
      "let batch = [], kept = 0; for (let i = 0; i < 300000; i++) { batch.push({ i, pair: [i] });" +
        " if (batch.length === 1000) { kept += batch[999].pair.length; batch = []; } }" +
        "console.log('ALLOCATED ' + kept); setInterval(() => {}, 1000);",
    ),
  ], { onLine: (line) => tally.take(line), wholeLines: true });
  // Spliced into a trace line, the child's own would never be found: no waiting for ever.
  assertEquals(await within(child.expect("ALLOCATED"), "the child's line"), "ALLOCATED 300");
  tally.stop();
  const scavenges = tally.kinds.get("Scavenge");
  assert(scavenges !== undefined && scavenges.count > 0, `no scavenge in ${tally.describe()}`);
  assert(scavenges.ms > 0, tally.describe());
});

Deno.test("a child that prints more than a pipe holds before anyone waits is not held up", async () => {
  // 400 KB of lines, then the end: were stdout read only when a line is expected, the child
  // would stop at a full pipe, and never exit.
  await using child = new ChildProcess([
    "--no-config",
    "data:text/javascript," + encodeURIComponent(
      "const line = 'x'.repeat(99); for (let i = 0; i < 4000; i++) console.log(line);" +
        "console.log('DONE');",
    ),
  ]);
  await within(child.process.status, "the child's exit (its stdout unread?)");
  assertEquals(await child.expect("DONE"), "DONE");
});

/** What `promise` gives, or a failure naming `what` after 30 s. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`No ${what} within 30 s.`)), 30_000);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
