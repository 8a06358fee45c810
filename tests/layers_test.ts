/**
 * Architecture rules (docs/architecture.md): lower layers never import higher ones; only
 * `src/platform/` touches `Deno.*` or `node:*`; only `src/client/` talks to the API; and
 * every unit test sits where the module it tests lives.
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

/** The package manifest: the one file outside src/ that src/ reads (for the version). */
const MANIFEST = new URL("../deno.json", import.meta.url).href;

/** What is wrong with one import of a module in src/, if anything. */
function violationOf(file: URL, spec: string): string | undefined {
  const layer = layerOf(file);
  if (layer === undefined || !spec.startsWith(".")) return undefined;
  const url = new URL(spec, file);
  if (!url.href.startsWith(SRC.href)) {
    return url.href === MANIFEST ? undefined : `${file.pathname} imports ${spec}, outside src/`;
  }
  const target = layerOf(url);
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

/**
 * Whether a module sends HTTP requests of its own: it calls the global `fetch()` or makes
 * an HTTP client. Only the client (to the Kubernetes API), the platform (which provides
 * the transport) and the fake cluster (calling admission webhooks, as an API server does)
 * may.
 */
function sendsRequests(file: URL, text: string): boolean {
  const layer = layerOf(file);
  if (layer === "client" || layer === "platform") return false;
  if (file.pathname.includes("/src/testing/fake_cluster/")) return false;
  const code = codeOf(text);
  // A call of the global fetch, not a method named fetch being declared (a storage's).
  const call = /(?<![.\w])(?<!(?:override|abstract|async)\s+)(?<!^[ \t]*)fetch\s*\(/m;
  return call.test(code) || importsHttpClient(text);
}

/**
 * Whether a module imports what makes HTTP clients from the platform: anything but types
 * and constants (e.g. the list of environment variables the HTTP library reads).
 */
function importsHttpClient(text: string): boolean {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const re = /(import|export)\s+(type\s+)?([^;]*?)\s*from\s*["']([^"']+)["']/g;
  for (const m of code.matchAll(re)) {
    if (!m[4].endsWith("/platform/http_client.ts") || m[2] !== undefined) continue;
    const names = /^\{([^}]*)\}$/.exec(m[3].trim())?.[1].split(",").map((n) => n.trim());
    const constantsOnly = names?.every((n) => n === "" || /^(type\s+\w+|[A-Z][A-Z0-9_]*)$/.test(n));
    if (!constantsOnly) return true;
  }
  return false;
}

Deno.test("only src/client/ talks to the Kubernetes API", async () => {
  const violations: string[] = [];
  for await (const file of walk(SRC)) {
    if (sendsRequests(file, await Deno.readTextFile(file))) violations.push(file.pathname);
  }
  assertEquals(violations, []);
  // And the check sees a request where there is one, and none in a storage's fetch().
  const engine = new URL("engines/posting.ts", SRC);
  assertEquals(sendsRequests(engine, "const r = await fetch(url);"), true);
  assertEquals(sendsRequests(engine, 'import { x } from "../platform/http_client.ts";'), true);
  assertEquals(
    sendsRequests(engine, 'import { createHttpClient, X } from "../platform/http_client.ts";'),
    true,
  );
  assertEquals(
    sendsRequests(engine, 'import { A_LIST } from "../platform/http_client.ts";'),
    false,
  );
  assertEquals(
    sendsRequests(engine, 'import type { H } from "../platform/http_client.ts";'),
    false,
  );
  assertEquals(sendsRequests(engine, "await storage.fetch({ body });"), false);
  assertEquals(sendsRequests(engine, "  override fetch(args: X): Y {"), false);
  assertEquals(sendsRequests(new URL("client/api.ts", SRC), "await fetch(url);"), false);
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
  const main = new URL("cli/main.ts", SRC);
  assertEquals(violationOf(main, "../../deno.json"), undefined);
  assertEquals(
    violationOf(main, "../../tests/assert.ts"),
    `${main.pathname} imports ../../tests/assert.ts, outside src/`,
  );
  const processing = new URL("reactor/processing.ts", SRC);
  assertEquals(violationOf(processing, "../engines/daemons.ts"), undefined);
  assertEquals(
    violationOf(new URL("handling/changing.ts", SRC), "../reactor/processing.ts"),
    `handling → reactor: ${new URL("handling/changing.ts", SRC).pathname}`,
  );
  assertEquals(/\bDeno\s*\.\s*[A-Za-z]/.test(codeOf("const a = Deno.env.get('X');")), true);
  assertEquals(/\bDeno\s*\.\s*[A-Za-z]/.test(codeOf("const a = 'Deno.env';")), false);
});

/** Folders of tests of the whole product, which mirror nothing in src/. */
const WHOLE_PRODUCT = ["operator", "examples", "dist", "soak"];

const TESTS = new URL("./", import.meta.url);

/**
 * What is wrong with where a test file is, if anything: `path` is relative to tests/, and
 * `modules` are the modules of src/ as `dir/module` (no `.ts`). A unit test of
 * `src/<dir>/<module>.ts` is `tests/<dir>/<module>_test.ts` or `<module>_<aspect>_test.ts`.
 */
function misplacementOf(path: string, modules: ReadonlySet<string>): string | undefined {
  const slash = path.lastIndexOf("/");
  if (slash < 0 || WHOLE_PRODUCT.includes(path.slice(0, path.indexOf("/")))) return undefined;
  const dir = path.slice(0, slash);
  const stem = path.slice(slash + 1).replace(/_test\.ts$/, "");
  for (let at = stem.length; at > 0; at = stem.lastIndexOf("_", at - 1)) {
    if (modules.has(`${dir}/${stem.slice(0, at)}`)) return undefined;
  }
  return `tests/${path} tests no module of src/${dir}/`;
}

Deno.test("every unit test sits at the path of the module it tests", async () => {
  const modules = new Set<string>();
  for await (const file of walk(SRC)) {
    modules.add(file.pathname.slice(SRC.pathname.length).replace(/\.ts$/, ""));
  }
  const misplaced: string[] = [];
  for await (const file of walk(TESTS)) {
    const path = file.pathname.slice(TESTS.pathname.length);
    if (!path.endsWith("_test.ts")) continue;
    const misplacement = misplacementOf(path, modules);
    if (misplacement !== undefined) misplaced.push(misplacement);
  }
  assertEquals(misplaced, []);
});

Deno.test("the placement test itself catches a misplaced test", () => {
  const modules = new Set(["structs/blake2b", "handling/handler_states", "testing/runner"]);
  assertEquals(
    misplacementOf("persistence/blake2b_test.ts", modules),
    "tests/persistence/blake2b_test.ts tests no module of src/persistence/",
  );
  assertEquals(
    misplacementOf("handling/states_test.ts", modules),
    "tests/handling/states_test.ts tests no module of src/handling/",
  );
  assertEquals(misplacementOf("structs/blake2b_test.ts", modules), undefined);
  assertEquals(misplacementOf("handling/handler_states_results_test.ts", modules), undefined);
  assertEquals(misplacementOf("operator/anything_test.ts", modules), undefined);
  assertEquals(misplacementOf("layers_test.ts", modules), undefined);
});
