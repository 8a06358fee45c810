/**
 * The simulation section of docs/testing.md stays true: its operator and scenario (the
 * blocks that start with `// tally.ts` and `// tally_scenario.ts`) run under `kopf
 * simulate` as written and pass; its tables of options and faults name every option of
 * the command and every fault of the simulation; its output and trace excerpt are what
 * `kopf simulate` prints and traces for the counter.
 */
import { assert, assertEquals } from "../assert.ts";
import { shapeOf } from "../doc_quotes.ts";
import { ROOT, runDeno } from "../platform/commands.ts";
import { simulateCommand } from "../../src/cli/simulate_command.ts";
import { FAULT_NAMES } from "../../src/testing/simulation/simulation_faults.ts";

/** The section of docs/testing.md on simulation. */
async function section(): Promise<string> {
  const text = await Deno.readTextFile(`${ROOT}/docs/testing.md`);
  const start = text.indexOf("\n## Simulation\n");
  assert(start >= 0, "docs/testing.md has a Simulation section");
  const end = text.indexOf("\n## ", start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/** The section's TypeScript blocks that name their file in a first-line comment. */
function files(markdown: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of markdown.matchAll(/```ts\n\/\/ (\S+\.ts)\n([\s\S]*?)```/g)) {
    found.set(match[1], match[2]);
  }
  return found;
}

/** A deno.json under which `@kopf/kopf` and its entry points are this checkout. */
async function config(): Promise<string> {
  const root = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`));
  const imports: Record<string, string> = { ...root.imports };
  for (const [entry, path] of Object.entries(root.exports as Record<string, string>)) {
    imports[`@kopf/kopf${entry.slice(1)}`] = new URL(path, `file://${ROOT}/`).href;
  }
  return JSON.stringify({ imports, compilerOptions: root.compilerOptions, lock: false });
}

Deno.test("the documented operator and scenario pass kopf simulate as written", async () => {
  const blocks = files(await section());
  assertEquals([...blocks.keys()], ["tally.ts", "tally_scenario.ts"]);
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/deno.json`, await config());
    for (const [name, code] of blocks) await Deno.writeTextFile(`${dir}/${name}`, code);
    const { code, stdout, stderr } = await runDeno([
      "run",
      "-A",
      "--config",
      `${dir}/deno.json`,
      `${ROOT}/src/cli/main.ts`,
      "simulate",
      "tally.ts",
      "--scenario",
      "tally_scenario.ts",
      "--seeds",
      "20",
    ], { cwd: dir, timeout: 120 });
    assertEquals(code, 0, stdout + stderr);
    assert(stdout.includes("\n20 seeds, 0 failures; "), stdout);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the section's tables name every option of kopf simulate and every fault", async () => {
  const text = await section();
  const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  const rows = text.split("\n").filter((line) => line.startsWith("| `"));
  for (const fault of FAULT_NAMES) {
    assert(rows.some((row) => row.startsWith(`| \`${kebab(fault)}\``)), `the fault ${fault}`);
  }
  const command = simulateCommand() as unknown as { options: { long?: string }[] };
  for (const option of command.options) {
    const named = new RegExp(`${option.long}(?![\\w-])`);
    assert(rows.some((row) => named.test(row.split("|")[1])), `the option ${option.long}`);
  }
});

Deno.test("the section's output and trace excerpt are what kopf simulate prints for the counter", async () => {
  const [output, excerpt] = [...(await section()).matchAll(/```text\n([\s\S]*?)\n```/g)]
    .map((m) => m[1].split("\n"));
  assert(output !== undefined && excerpt !== undefined, "the section shows the output and a trace");
  const dir = await Deno.makeTempDir();
  try {
    // Fewer seeds than the doc's 200 still print every kind of line it shows: more than 10
    // failures, so that the summary lists 10 of them.
    const { code, stdout, stderr } = await runDeno([
      "run",
      "-A",
      `${ROOT}/src/cli/main.ts`,
      "simulate",
      "counting_operator.ts",
      "--scenario",
      "counting_scenario.ts",
      "--seeds",
      "16",
      "--trace",
      `${dir}/trace.txt`,
    ], { cwd: `${ROOT}/tests/fixtures/simulation`, timeout: 120 });
    assertEquals(code, 1, stdout + stderr);
    // Each line of the output, numbers aside; in any order (the doc leaves lines out).
    const printed = [...stdout.split("\n"), ...stderr.split("\n")];
    for (const line of output) {
      assert(printed.some((p) => shapeOf(line).test(p)), `not printed: ${line}\n${stdout}`);
    }
    // The excerpt of seed 1's trace: its lines in a row, numbers aside. When the simulation's
    // draws change, take a new excerpt from `--seed 1 --trace`.
    // (The doc leaves out the padding of the times.)
    const trace = (await Deno.readTextFile(`${dir}/trace.txt`)).split("\n").map((l) => l.trim());
    const shapes = excerpt.map(shapeOf);
    const found = trace.some((_, at) =>
      shapes.every((shape, i) => shape.test(trace[at + i] ?? ""))
    );
    assert(found, `seed 1's trace has no such lines in a row:\n${excerpt.join("\n")}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
