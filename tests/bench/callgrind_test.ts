/**
 * The instructions bench's use of Valgrind's callgrind: the arguments it runs a child with,
 * and the count read back from a dump.
 */
import { callgrindArgs, callgrindTotal } from "../../scripts/bench/support/callgrind.ts";
import { assertEquals } from "../assert.ts";

// The head of a dump as callgrind 3.19 writes it on `callgrind_control -d`, and its last line.
const DUMP = [
  "# callgrind format",
  "version: 1",
  "creator: callgrind-3.19.0",
  "pid: 31032",
  "cmd:  /usr/bin/deno run -A scripts/bench/compare/kopf.ts http://127.0.0.1:37729",
  "part: 1",
  "",
  "desc: Trigger: dump",
  "",
  "positions: line",
  "events: Ir",
  "summary: 3231983010",
  "",
  "ob=(1) /usr/bin/deno",
  "fl=(1) ???",
  "fn=(1) 0x0000000001c2d640",
  "0 15",
  "totals: 3231983010",
].join("\n");

Deno.test("a callgrind dump gives the instructions it counted", () => {
  assertEquals(callgrindTotal(DUMP), 3_231_983_010);
  // An older dump has only its totals; a file of another kind has neither.
  assertEquals(callgrindTotal("events: Ir\ntotals: 42\n"), 42);
  assertEquals(callgrindTotal("valgrind: no dump here\n"), undefined);
});

Deno.test("a child runs under callgrind uncounted until switched on, its report apart", () => {
  const args = callgrindArgs("/tmp/x/callgrind.out", "/tmp/x/valgrind.log", "/usr/bin/deno", [
    "run",
    "-A",
    "child.ts",
  ]);
  assertEquals(args, [
    "--tool=callgrind",
    // V8 writes its compiled code at run time and rewrites it: without the check, callgrind
    // would run stale translations of it.
    "--smc-check=all-non-file",
    "--instr-atstart=no",
    "--callgrind-out-file=/tmp/x/callgrind.out",
    "--log-file=/tmp/x/valgrind.log",
    "/usr/bin/deno",
    "run",
    "-A",
    "child.ts",
  ]);
});
