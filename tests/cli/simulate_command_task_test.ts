/**
 * `deno task simulate` (scripts/simulate.ts, which prints as `kopf simulate` does): a
 * scenario of tests/simulation/scenarios/ under a few seeds, its line and the table; an
 * unknown scenario or clashing flags exit with 2 after one line.
 */
import { assertEquals, assertMatch, assertStringIncludes } from "../assert.ts";
import { ROOT, runDeno } from "../platform/commands.ts";

const SCRIPT = `${ROOT}/scripts/simulate.ts`;

/** A scenario of the folder to run: ours if it is still there, else the first. */
async function aScenario(): Promise<string> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(`${ROOT}/tests/simulation/scenarios`)) {
    if (entry.name.endsWith(".ts")) names.push(entry.name.slice(0, -3));
  }
  return names.includes("labelling") ? "labelling" : names.sort()[0];
}

Deno.test("a scenario under a few seeds: its progress, summary and table row, exit code 0", async () => {
  const name = await aScenario();
  const { code, stdout, stderr } = await runDeno(
    ["run", "-A", SCRIPT, "--scenario", name, "--seeds", "2", "--first-seed", "5"],
    { cwd: ROOT, timeout: 120 },
  );
  assertEquals(code, 0, stderr + stdout);
  assertStringIncludes(stdout, `${name}: 2/2 seeds · 0 failures\n`);
  assertMatch(
    stdout,
    new RegExp(`^${name}: 2 seeds, 0 failures; .* of wall time .* simulated\\.$`, "m"),
  );
  assertMatch(stdout, /^scenario +seeds +failures +wall time +simulated$/m);
  assertMatch(stdout, new RegExp(`^${name} +2 +0 +\\S+ m?s +.+$`, "m"));
});

Deno.test("an unknown scenario, or a seed with a count of seeds: one line, exit code 2", async () => {
  const [unknown, clash] = await Promise.all([
    runDeno(["run", "-A", SCRIPT, "--scenario", "nope"], { cwd: ROOT }),
    runDeno(["run", "-A", SCRIPT, "--seed", "3", "--ci"], { cwd: ROOT }),
  ]);
  assertEquals(unknown.code, 2);
  assertMatch(unknown.stderr, /^No scenario nope in tests\/simulation\/scenarios\/: use .+\.\n$/);
  assertEquals(clash.code, 2);
  assertEquals(
    clash.stderr,
    "Use either --seed (one seed) or --seeds/--first-seed/--ci, not both.\n",
  );
});
