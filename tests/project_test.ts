/**
 * Promises about the project itself: one pinned Deno version everywhere.
 */
import { assert, assertEquals } from "./assert.ts";
import { v8FlagsArgument } from "../src/cli/runtime_flags.ts";

const root = new URL("../", import.meta.url);
const read = (path: string) => Deno.readTextFile(new URL(path, root));

Deno.test("the README, the guides, CI and the running Deno agree on one pinned Deno version", async () => {
  const ci = await read(".ci/run");
  const pinned = ci.match(/^DENO_VERSION=([0-9.]+)$/m)?.[1];
  assert(pinned, ".ci/run must pin DENO_VERSION");
  assertEquals(Deno.version.deno, pinned);
  const readme = await read("README.md");
  const versions = [...readme.matchAll(/npx -y deno@([0-9.]+)/g)].map((m) => m[1]);
  assert(versions.length >= 2, "the README must show the demo and test commands");
  assertEquals([...new Set(versions)], [pinned]);
  // The guides and the npm package's README show commands with the same version, when
  // they show one.
  const guides = ["npm/README.md"];
  for await (const entry of Deno.readDir(new URL("docs/", root))) guides.push(`docs/${entry.name}`);
  for (const path of guides) {
    for (const m of (await read(path)).matchAll(/npx -y deno@([0-9.]+)/g)) {
      assertEquals(m[1], pinned, `${path} shows deno@${m[1]}`);
    }
  }
});

Deno.test("deno.json exports the four entry points", async () => {
  const config = JSON.parse(await read("deno.json"));
  assertEquals(Object.keys(config.exports).sort(), [".", "./cli", "./client", "./testing"]);
  assertEquals(config.name, "@kopf/kopf");
  for (
    const task of [
      "test",
      "demo",
      "check",
      "lint",
      "fmt",
      "bench",
      "build:npm",
      "build:jsr",
      "compile",
      "kopf",
    ]
  ) {
    assert(task in config.tasks, `deno.json must define the task ${task}`);
  }
});

Deno.test("the kopf task runs operators with their V8 memory flags", async () => {
  const config = JSON.parse(await read("deno.json"));
  const words = String(config.tasks.kopf).split(" ");
  assertEquals(words.slice(0, 3), ["deno", "run", v8FlagsArgument()]);
});

/** The problems `deno doc --lint` reports over the given modules, and its exit code. */
async function docLint(entries: readonly string[]): Promise<[string[], number, string]> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--lint", ...entries],
    cwd: new URL(".", root).pathname,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const output = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
  return [output.split("\n").filter((line) => line.startsWith("error")), code, output];
}

Deno.test("the package's entry points pass deno doc --lint (JSR-ready docs, no private types)", async () => {
  const config = JSON.parse(await read("deno.json"));
  const exported = Object.values(config.exports as Record<string, string>)
    .map((path) => path.replace(/^\.\//, ""));
  // Exactly what the package exports, as JSR sees it: each type reachable by name there.
  const [problems, code, output] = await docLint(exported);
  assertEquals(problems, [], output);
  assertEquals(code, 0);
  // And src/kopf.ts too: the linter does not look into the members of mod.ts's namespace.
  const [more, moreCode, moreOutput] = await docLint([...exported, "src/kopf.ts"]);
  assertEquals(more, [], moreOutput);
  assertEquals(moreCode, 0);
});

/**
 * The most interfaces and type aliases `mod.ts` may export: the types a user writes (handler
 * arguments and options, bodies, settings and storages, errors' kinds, what custom servers and
 * logins implement), not the helpers that build them. Issue 38 asks for 105.
 */
const MAX_MAIN_TYPES = 105;

Deno.test("mod.ts exports a curated set of types, each with a doc comment", async () => {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", "mod.ts"],
    cwd: new URL(".", root).pathname,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(code, 0, new TextDecoder().decode(stderr));
  interface DocSymbol {
    name: string;
    declarations: { kind: string; jsDoc?: { doc?: string } }[];
  }
  const doc = JSON.parse(new TextDecoder().decode(stdout)) as {
    nodes: Record<string, { symbols: DocSymbol[] }>;
  };
  const types = Object.values(doc.nodes).flatMap((node) =>
    node.symbols.flatMap((symbol) =>
      symbol.declarations
        .filter((d) => d.kind === "interface" || d.kind === "typeAlias")
        .map((d) => ({ name: symbol.name, doc: d.jsDoc?.doc?.trim() ?? "" }))
    )
  );
  assert(types.length > 0, "deno doc --json lists no types: has its output changed?");
  assert(
    types.length <= MAX_MAIN_TYPES,
    `mod.ts exports ${types.length} interfaces and type aliases, over ${MAX_MAIN_TYPES}: ` +
      `write helper types out in the signatures that use them, or fold a family into one`,
  );
  assertEquals(types.filter((t) => t.doc === "").map((t) => t.name), [], "types without docs");
});

/** The modules whose symbols the entry points re-export, found by following re-exports. */
async function publicModules(): Promise<string[]> {
  const config = JSON.parse(await read("deno.json"));
  const seen = new Set<string>();
  const queue = Object.values(config.exports as Record<string, string>)
    .map((path) => new URL(path, root).href);
  while (queue.length > 0) {
    const url = queue.pop()!;
    if (seen.has(url)) continue;
    seen.add(url);
    const text = await Deno.readTextFile(new URL(url));
    for (
      const m of text.matchAll(/^export (?:type )?(?:\*(?: as \w+)?|\{[^}]*\}) from "(\.[^"]+)";/gm)
    ) {
      queue.push(new URL(m[1], url).href);
    }
  }
  return [...seen].map((url) => new URL(url).pathname);
}

Deno.test("the code in the public modules' docs type-checks, @example blocks included", async () => {
  const modules = await publicModules();
  assert(modules.some((path) => path.endsWith("/src/intents/registration.ts")));
  assert(modules.some((path) => path.endsWith("/src/testing/fake_cluster/cluster.ts")));
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--doc", "--quiet", ...modules],
    cwd: new URL(".", root).pathname,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const output = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
  assertEquals(code, 0, output);
});

Deno.test("the main entry points carry an @example", async () => {
  const expected: [string, RegExp][] = [
    ["src/intents/registration.ts", /@example[\s\S]*?export const on: OnNamespace/],
    ["src/intents/registration.ts", /@example[\s\S]*?export const daemon:/],
    ["src/intents/registration.ts", /@example[\s\S]*?export const timer:/],
    ["src/intents/registration.ts", /@example[\s\S]*?export const index:/],
    ["src/reactor/running.ts", /@example[\s\S]*?export async function operator\(/],
    ["src/reactor/running.ts", /@example[\s\S]*?export async function run\(/],
    ["src/settings/operator_settings.ts", /@example[\s\S]*?export class OperatorSettings /],
    ["src/testing/fake_cluster/cluster.ts", /@example[\s\S]*?export class FakeCluster /],
    ["src/testing/runner.ts", /@example[\s\S]*?export class KopfRunner /],
    ["src/client/mod.ts", /@example/],
  ];
  for (const [path, pattern] of expected) {
    const text = await read(path);
    // Only the doc comment right before the declaration counts.
    const match = text.match(pattern);
    assert(match && !match[0].slice(match[0].lastIndexOf("@example")).includes("\n}\n"), path);
  }
});

Deno.test("deno task docs builds the HTML API reference of every entry point", async () => {
  const config = JSON.parse(await read("deno.json"));
  const words = String(config.tasks.docs).split(" ");
  assertEquals(words.slice(0, 3), ["deno", "doc", "--html"]);
  const entries = words.filter((word) => !word.startsWith("-")).slice(2);
  const exported = Object.values(config.exports as Record<string, string>)
    .map((path) => path.replace(/^\.\//, ""));
  assertEquals(entries.sort(), exported.sort(), "the docs task must document the exports");
  assert(words.includes("--output=dist/docs"), "the docs task writes into dist/docs");
  const output = await Deno.makeTempDir({ prefix: "api-docs-" });
  try {
    const args = words.slice(1).map((w) => (w === "--output=dist/docs" ? `--output=${output}` : w));
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args,
      cwd: new URL(".", root).pathname,
      env: { NO_COLOR: "1" },
      stdout: "null",
      stderr: "piped",
    }).output();
    assertEquals(code, 0, new TextDecoder().decode(stderr));
    const index = await Deno.readTextFile(`${output}/index.html`);
    assert(index.includes("@kopf/kopf"), "the reference is named @kopf/kopf");
    await Deno.stat(`${output}/testing/index.html`);
  } finally {
    await Deno.remove(output, { recursive: true });
  }
});
