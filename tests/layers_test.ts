/**
 * Architecture rules (docs/architecture.md): lower layers never import higher ones; only
 * `src/platform/` touches `Deno.*` or `node:*`; only `src/client/` talks to the API.
 */
import { assertEquals } from "./assert.ts";

const LAYERS = [
  "structs",
  "platform",
  "settings",
  "client",
  "intents",
  "handling",
  "engines",
  "reactor",
  "kits",
  "commands",
  "testing",
  "cli",
] as const;

/** The rank of each layer: a module may import from its own rank and lower ones only. */
const RANK: Record<string, number> = Object.fromEntries(LAYERS.map((layer, i) => [layer, i]));

const SRC = new URL("../src/", import.meta.url);

async function* walk(dir: URL): AsyncGenerator<URL> {
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) yield* walk(url);
    else if (entry.name.endsWith(".ts")) yield url;
  }
}

function layerOf(url: URL): string | undefined {
  const rel = url.pathname.slice(SRC.pathname.length);
  const first = rel.split("/")[0];
  return rel.includes("/") ? first : undefined; // files directly in src/ are the top
}

/** Import specifiers, with comments stripped so that examples in docs do not count. */
function importsOf(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const found: string[] = [];
  const re =
    /(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)/g;
  for (const m of code.matchAll(re)) found.push(m[1] ?? m[2]);
  return found;
}

function codeOf(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "")
    .replace(/`(?:[^`\\]|\\.)*`|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, '""');
}

/** What is wrong with one import of a module in src/, if anything. */
function violationOf(file: URL, spec: string): string | undefined {
  const layer = layerOf(file);
  if (layer === undefined || !spec.startsWith(".")) return undefined;
  const target = layerOf(new URL(spec, file));
  if (target === undefined) return `${file.pathname} imports the top ${spec}`;
  if (!(target in RANK) || !(layer in RANK)) return undefined;
  if (RANK[target] > RANK[layer]) return `${layer} → ${target}: ${file.pathname}`;
  return undefined;
}

Deno.test("lower layers never import higher layers", async () => {
  const violations: string[] = [];
  for await (const file of walk(SRC)) {
    for (const spec of importsOf(await Deno.readTextFile(file))) {
      const violation = violationOf(file, spec);
      if (violation !== undefined) violations.push(violation);
    }
  }
  assertEquals(violations, []);
});

Deno.test("Deno.* and node:* appear only in src/platform/", async () => {
  const violations: string[] = [];
  for await (const file of walk(SRC)) {
    if (layerOf(file) === "platform") continue;
    const text = await Deno.readTextFile(file);
    if (importsOf(text).some((s) => s.startsWith("node:"))) {
      violations.push(`node: import in ${file.pathname}`);
    }
    if (/\bDeno\s*\.\s*[A-Za-z]/.test(codeOf(text))) violations.push(`Deno.* in ${file.pathname}`);
  }
  assertEquals(violations, []);
});

Deno.test("every src/ directory is a known layer", async () => {
  const unknown: string[] = [];
  for await (const entry of Deno.readDir(SRC)) {
    if (entry.isDirectory && !(entry.name in RANK)) unknown.push(entry.name);
  }
  assertEquals(unknown, []);
});

Deno.test("the layer test itself catches a violation", () => {
  // A test that cannot fail is a defect: prove the import scanner sees imports.
  const sample = 'import { x } from "../reactor/running.ts";\nexport { y } from "./z.ts";';
  assertEquals(importsOf(sample), ["../reactor/running.ts", "./z.ts"]);
  const runner = new URL("testing/runner.ts", SRC);
  assertEquals(violationOf(runner, "../cli/main.ts"), `testing → cli: ${runner.pathname}`);
  assertEquals(violationOf(runner, "../commands/run.ts"), undefined);
  const processing = new URL("reactor/processing.ts", SRC);
  assertEquals(violationOf(processing, "../engines/daemons.ts"), undefined);
  assertEquals(
    violationOf(new URL("handling/changing.ts", SRC), "../reactor/processing.ts"),
    `handling → reactor: ${new URL("handling/changing.ts", SRC).pathname}`,
  );
  assertEquals(/\bDeno\s*\.\s*[A-Za-z]/.test(codeOf("const a = Deno.env.get('X');")), true);
  assertEquals(/\bDeno\s*\.\s*[A-Za-z]/.test(codeOf("const a = 'Deno.env';")), false);
});
