/**
 * Architecture rules (docs/architecture.md): lower layers never import higher ones; only
 * `src/platform/` touches `Deno.*` or `node:*`; only `src/client/` talks to the API; and
 * every unit test sits where the module it tests lives.
 */
import { assertEquals } from "./assert.ts";

/**
 * What each layer may import besides itself: docs/architecture.md shows the same table.
 * A layer may use only what it lists; the files directly in src/ (the public surface) sit
 * on top of everything but the testing kit and the command line.
 */
const ALLOWED: Record<string, readonly string[]> = {
  structs: [],
  catalog: ["structs"],
  platform: ["structs"],
  settings: ["structs"],
  client: ["structs", "platform", "settings"],
  intents: ["structs", "platform", "settings"],
  handling: ["structs", "platform", "settings", "client", "intents"],
  engines: ["structs", "platform", "settings", "client", "intents", "handling"],
  reactor: [
    "structs",
    "catalog",
    "platform",
    "settings",
    "client",
    "intents",
    "handling",
    "engines",
  ],
  kits: ["structs", "platform", "handling", "engines"],
  commands: [
    "structs",
    "catalog",
    "platform",
    "settings",
    "client",
    "intents",
    "engines",
    "reactor",
    "kits",
  ],
  testing: ["structs", "catalog", "platform", "settings", "intents", "reactor", "commands"],
  cli: [
    "structs",
    "catalog",
    "platform",
    "settings",
    "client",
    "intents",
    "reactor",
    "commands",
    "testing",
  ],
};

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
  if (target === layer || !(layer in ALLOWED)) return undefined;
  if (!ALLOWED[layer].includes(target)) return `${layer} → ${target}: ${file.pathname}`;
  return undefined;
}

Deno.test("each layer imports only the layers its row of the table allows", async () => {
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

/** The modules of src/ each module imports (type-only imports included), by URL. */
async function importGraph(): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  for await (const file of walk(SRC)) {
    const targets = importsOf(await Deno.readTextFile(file))
      .filter((spec) => spec.startsWith("."))
      .map((spec) => new URL(spec, file).href)
      .filter((href) => href.startsWith(SRC.href));
    graph.set(file.href, targets);
  }
  return graph;
}

/** The import cycles of a graph: its strongly connected parts of two or more modules. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's algorithm, iterative: the graph is a few hundred modules deep at most.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let counter = 0;
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const work: { node: string; next: number }[] = [{ node: root, next: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const targets = graph.get(frame.node) ?? [];
      if (frame.next < targets.length) {
        const target = targets[frame.next++];
        if (!graph.has(target)) continue;
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, next: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) {
        low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const part: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        part.push(member);
      } while (member !== frame.node);
      if (part.length > 1) cycles.push(part.sort());
    }
  }
  return cycles;
}

/** Cycles not broken yet: each is a debt, and this list only shrinks. */
const KNOWN_CYCLES: readonly (readonly string[])[] = [];

Deno.test("no module of src/ imports itself through others (no import cycles)", async () => {
  const cycles = cyclesOf(await importGraph()).map((part) =>
    part.map((href) => href.slice(SRC.href.length))
  );
  assertEquals(cycles, KNOWN_CYCLES);
});

Deno.test("the cycle check itself finds a cycle", () => {
  const graph = new Map([
    ["a", ["b"]],
    ["b", ["c", "d"]],
    ["c", ["a"]],
    ["d", ["e"]],
    ["e", []],
  ]);
  assertEquals(cyclesOf(graph), [["a", "b", "c"]]);
  assertEquals(cyclesOf(new Map([["a", ["b"]], ["b", []]])), []);
});

Deno.test("every src/ directory is a known layer", async () => {
  const unknown: string[] = [];
  for await (const entry of Deno.readDir(SRC)) {
    if (entry.isDirectory && !(entry.name in ALLOWED)) unknown.push(entry.name);
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
  const processing = new URL("reactor/pipeline/pipeline.ts", SRC);
  assertEquals(violationOf(processing, "../../engines/daemons.ts"), undefined);
  // Not a rank: kits sit above the client in the stack, yet their row does not list it.
  const kit = new URL("kits/hierarchies.ts", SRC);
  assertEquals(violationOf(kit, "../client/api.ts"), `kits → client: ${kit.pathname}`);
  assertEquals(
    violationOf(new URL("handling/changing.ts", SRC), "../reactor/pipeline/pipeline.ts"),
    `handling → reactor: ${new URL("handling/changing.ts", SRC).pathname}`,
  );
  assertEquals(/\bDeno\s*\.\s*[A-Za-z]/.test(codeOf("const a = Deno.env.get('X');")), true);
  assertEquals(/\bDeno\s*\.\s*[A-Za-z]/.test(codeOf("const a = 'Deno.env';")), false);
});

/** Folders of tests of the whole product and of scripts, which mirror nothing in src/. */
const WHOLE_PRODUCT = ["operator", "examples", "dist", "soak", "bench", "peer_suites"];

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
