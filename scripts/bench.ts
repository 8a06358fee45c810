/**
 * The benchmarks. Each area keeps its section in `scripts/bench/<area>.ts`, exporting
 * `section: BenchSection`; this driver runs them in name order (or only those named on
 * the command line) and prints a table of figures, and what a section adds after them.
 *
 *     deno task bench               # every section
 *     deno task bench client        # only the named sections
 */
import type { BenchSection } from "./bench/types.ts";

const dir = new URL("./bench/", import.meta.url);
const names: string[] = [];
for await (const entry of Deno.readDir(dir)) {
  if (entry.isFile && entry.name.endsWith(".ts") && entry.name !== "types.ts") {
    names.push(entry.name.slice(0, -3));
  }
}
names.sort();
const wanted = Deno.args.length ? names.filter((n) => Deno.args.includes(n)) : names;
const unknown = Deno.args.filter((a) => !names.includes(a));
if (unknown.length) {
  console.error(`Unknown bench section(s): ${unknown.join(", ")}; known: ${names.join(", ")}.`);
  Deno.exit(2);
}

let failed = false;
for (const name of wanted) {
  const { section } = (await import(new URL(`${name}.ts`, dir).href)) as { section: BenchSection };
  console.log(`\n## ${section.title}`);
  for (const figure of await section.run()) {
    const verdict = figure.target === undefined
      ? ""
      : figure.ok
      ? "  (target met)"
      : "  (TARGET MISSED)";
    if (figure.ok === false) failed = true;
    const target = figure.target === undefined ? "" : `  target ${figure.target}`;
    console.log(`- ${figure.name}: ${figure.value}${target}${verdict}`);
  }
  const footer = section.footer?.();
  if (footer) console.log(`\n${footer}`);
}
console.log(`\nDeno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores`);
if (failed) Deno.exit(1);
