/**
 * `kopf simulate` as a user runs it: a sound operator passes with its progress and summary
 * (exit 0); an operator with a lost-update race fails some seeds (exit 1), each printed
 * with its invariant, message, the end of its trace and a replay command — and that
 * command, run as printed, fails the same way with the same trace; bad usage exits with 2
 * after one line naming what to fix.
 */
import { runKopf as kopf } from "./kopf_command.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../assert.ts";
import { TRACE_TAIL } from "../../src/cli/simulation_output.ts";

const LABELLING = [
  "tests/simulation/operators/labelling.ts",
  "--scenario",
  "tests/simulation/scenarios/labelling.ts",
];
const COUNTING = [
  "tests/fixtures/simulation/counting_operator.ts",
  "--scenario",
  "tests/fixtures/simulation/counting_scenario.ts",
];

Deno.test("a sound operator: progress lines, a summary, exit code 0", async () => {
  const { code, stdout, stderr } = await kopf(["simulate", ...LABELLING, "--seeds", "10"]);
  assertEquals(code, 0, stderr + stdout);
  const lines = stdout.trimEnd().split("\n");
  // Not a terminal: a line each tenth of the seeds, then the summary.
  assertEquals(
    lines.slice(0, 10),
    Array.from({ length: 10 }, (_, i) => `${i + 1}/10 seeds · 0 failures`),
  );
  assertMatch(
    lines[10],
    /^10 seeds, 0 failures; [\d.]+ m?s of wall time \(\d+ ms a seed\), .* simulated\.$/,
  );
  assertEquals(lines.length, 11);
  assertEquals(stderr, "");
});

Deno.test("a lost update: the failing seeds, their traces and replay commands; a replay is the same run", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const first = await kopf([
      "simulate",
      ...COUNTING,
      "--seeds",
      "8",
      "--trace",
      `${dir}/first.trace`,
    ]);
    assertEquals(first.code, 1, first.stderr + first.stdout);
    assertStringIncludes(first.stderr, "kopf simulate: ");
    assertStringIncludes(first.stderr, "of 8 seeds broke an invariant");
    assert(!first.stderr.includes("--help'."), first.stderr);
    const failure = /^seed (\d+) broke counted: the counter is (\d+), not 10$/m.exec(first.stdout);
    assert(failure, first.stdout);
    const seed = failure[1];
    // The end of its trace, the check that failed last.
    const traced = first.stdout.split("\n").filter((line) => line.startsWith("  | "));
    assert(traced.length >= TRACE_TAIL, first.stdout);
    assertMatch(first.stdout, /^ {2}\| +[\d.]+ check +counted: the counter is \d+, not 10$/m);
    const replay = new RegExp(`^  replay: (kopf simulate .* --seed ${seed})$`, "m")
      .exec(first.stdout)?.[1];
    assertEquals(
      replay,
      `kopf simulate ${COUNTING.join(" ")} --seed ${seed}`,
      first.stdout,
    );
    assertStringIncludes(first.stdout, `The trace of seed ${seed} is in ${dir}/first.trace.`);

    const again = await kopf([...replay!.split(" ").slice(1), "--trace", `${dir}/again.trace`]);
    assertEquals(again.code, 1, again.stderr + again.stdout);
    assertStringIncludes(again.stdout, failure[0]);
    assertStringIncludes(again.stderr, "1 of 1 seed broke an invariant");
    const [trace, replayed] = await Promise.all([
      Deno.readTextFile(`${dir}/first.trace`),
      Deno.readTextFile(`${dir}/again.trace`),
    ]);
    assert(
      trace.length > 1000 && trace.endsWith(`${failure[0].slice(`seed ${seed} broke `.length)}\n`),
    );
    assertEquals(replayed, trace);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a shrunk failure: the faults it needs, and a replay without the others that fails so", async () => {
  const first = await kopf(["simulate", ...COUNTING, "--seed", "1", "--shrink", "--replicas", "1"]);
  assertEquals(first.code, 1, first.stderr + first.stdout);
  const shrunk = /^ {2}it needs .*, it still breaks counted: (.*)$/m.exec(first.stdout);
  assert(shrunk, first.stdout);
  const replay = /^ {2}replay that: (kopf simulate .* --seed 1 --replicas 1 --suppress [a-z,-]+)$/m
    .exec(first.stdout)?.[1];
  assert(replay, first.stdout);
  const again = await kopf(replay.split(" ").slice(1));
  assertEquals(again.code, 1, again.stderr + again.stdout);
  assertStringIncludes(again.stdout, `seed 1 broke counted: ${shrunk[1]}\n`);
});

Deno.test("bad usage: one line naming the flag or file and what to do, exit code 2", async () => {
  const cases: [string[], string][] = [
    [
      ["simulate", "absent.ts", "--scenario", "tests/simulation/scenarios/labelling.ts"],
      "kopf simulate: Cannot load absent.ts: no such file.",
    ],
    [
      ["simulate", "x.ts", "--scenario", "absent.ts"],
      "kopf simulate: Cannot load the scenario absent.ts: no such file.",
    ],
    [
      ["simulate", "--scenario", "tests/fixtures/simulation/counting_scenario.ts"],
      "kopf simulate: kopf simulate needs the operator: give its file (kopf simulate operator.ts --scenario tests/fixtures/simulation/counting_scenario.ts), or export `operator` from the scenario.",
    ],
    [
      ["simulate", ...COUNTING, "--faults", "crash=off"],
      `error: option '--faults <switches>' argument 'crash=off' is invalid. unknown fault "crash": use none, all, or crashes, restarts,`,
    ],
    [
      ["simulate", ...COUNTING, "--seed", "3", "--seeds", "4"],
      "kopf simulate: Use either --seed (one seed) or --seeds/--first-seed, not both.",
    ],
    [
      ["simulate", ...COUNTING, "--seeds", "0"],
      "error: option '--seeds <count>' argument '0' is invalid. it must be a whole number of 1 or more, not 0.",
    ],
    [
      ["simulate", ...COUNTING.slice(0, 1)],
      "error: required option '--scenario <file>' not specified",
    ],
  ];
  const results = await Promise.all(cases.map(([args]) => kopf(args)));
  cases.forEach(([args, says], i) => {
    const { code, stdout, stderr } = results[i];
    const what = `kopf ${args.join(" ")}:\n${stderr}`;
    assertEquals(code, 2, what);
    assertEquals(stdout, "", what);
    const lines = stderr.trimEnd().split("\n");
    assertEquals(lines.length, 2, what);
    assert(lines[0].startsWith(says), what);
    assertEquals(lines[1], "See 'kopf simulate --help'.");
  });
});

Deno.test("kopf --help lists simulate", async () => {
  const { code, stdout } = await kopf(["--help"]);
  assertEquals(code, 0);
  assertMatch(
    stdout,
    /^ {2}simulate \[options\] \[operator\] +Run an operator under simulation,/m,
  );
});
