/**
 * docs/fidelity.md stays true: every test its tables name exists in the file they name, and
 * every departure a row points to is in its list (and every departure listed is pointed to
 * or marked by design). A renamed or removed test fails here, not silently in the docs.
 */
import { assert, assertEquals } from "./assert.ts";

const ROOT = new URL("../", import.meta.url);
const PAGE = "docs/fidelity.md";

/** The rows of the page's tables: their cells, without the header and separator rows. */
function rows(text: string): string[][] {
  const out: string[][] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("|") || /^\|\s*-/.test(line) || /^\|\s*Behaviour\s*\|/.test(line)) {
      continue;
    }
    out.push(line.split("|").slice(1, -1).map((cell) => cell.trim()));
  }
  return out;
}

/** The tests a Test cell names: `file`: "name"; "name" … as [path, name] pairs. */
function namedTests(cell: string): [string, string][] {
  const out: [string, string][] = [];
  let file: string | undefined;
  for (const match of cell.matchAll(/`([^`]+\.ts)`|"((?:[^"\\]|\\.)*)"/g)) {
    if (match[1] !== undefined) {
      file = match[1].includes("/") ? match[1] : `tests/testing/fake_cluster/${match[1]}`;
    } else if (file !== undefined) {
      out.push([file, match[2]]);
    }
  }
  return out;
}

const text = await Deno.readTextFile(new URL(PAGE, ROOT));

Deno.test("fidelity table: every named test exists in its file", async () => {
  const sources = new Map<string, string>();
  const missing: string[] = [];
  let count = 0;
  for (const cells of rows(text)) {
    for (const [file, name] of namedTests(cells[3] ?? "")) {
      count++;
      if (!sources.has(file)) {
        sources.set(file, await Deno.readTextFile(new URL(file, ROOT)).catch(() => ""));
      }
      // Test names are string literals: compare them as JSON would spell them.
      if (!sources.get(file)!.includes(JSON.stringify(name).slice(1, -1))) {
        missing.push(`${file}: "${name}"`);
      }
    }
  }
  assert(count > 100, `only ${count} tests named: is the table still parsed?`);
  assertEquals(missing, [], `${PAGE} names tests that do not exist`);
});

Deno.test("fidelity table: departures pointed to are listed, and those listed are pointed to", () => {
  const listed = new Set([...text.matchAll(/^- \*\*(D\d+)\.\*\*/gm)].map((m) => m[1]));
  const pointed = new Set<string>();
  for (const cells of rows(text)) {
    for (const m of (cells[4] ?? "").matchAll(/D\d+/g)) pointed.add(m[0]);
  }
  assertEquals([...pointed].filter((d) => !listed.has(d)), [], "pointed to, not listed");
  const byDesign = new Set(
    [...text.matchAll(/^- \*\*(D\d+)\.\*\* _By design_/gm)].map((m) => m[1]),
  );
  const loose = [...listed].filter((d) => !pointed.has(d) && !byDesign.has(d));
  assertEquals(loose, [], "listed departures that no row points to (nor by design)");
});
