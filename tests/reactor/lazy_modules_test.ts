/**
 * The framework's lazily imported modules are loaded before a simulation's first seed
 * (`src/reactor/lazy_modules.ts`): the list holds every module that `src/`
 * imports at its point of use, and a seed gives the same run in a fresh process as after
 * other seeds.
 */
import { assert, assertEquals } from "../assert.ts";

const SRC = new URL("../../src/", import.meta.url);
const PRELOADER = new URL("reactor/lazy_modules.ts", SRC);

/** The project modules a file imports by `import("./...")` or `import("../...")`. */
async function lazyImportsOf(file: URL): Promise<URL[]> {
  const text = await Deno.readTextFile(file);
  return [...text.matchAll(/import\(\s*"(\.{1,2}\/[^"]+)"\s*\)/g)].map((m) => new URL(m[1], file));
}

async function* sources(dir: URL): AsyncGenerator<URL> {
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) yield* sources(url);
    else if (entry.name.endsWith(".ts")) yield url;
  }
}

Deno.test("the preloaded modules are every module that src/ imports at its point of use", async () => {
  const preloaded = new Set((await lazyImportsOf(PRELOADER)).map((url) => url.href));
  const lazy = new Map<string, string>();
  for await (const file of sources(SRC)) {
    if (file.href === PRELOADER.href) continue;
    for (const target of await lazyImportsOf(file)) {
      lazy.set(target.href, file.href.slice(SRC.href.length));
    }
  }
  assert(lazy.size > 10, `found ${lazy.size} lazily imported modules`);
  const missing = [...lazy].filter(([href]) => !preloaded.has(href))
    .map(([href, by]) => `${href.slice(SRC.href.length)} (imported by ${by})`);
  assertEquals(missing, []);
  const stale = [...preloaded].filter((href) => !lazy.has(href));
  assertEquals(stale, [], "preloaded, yet imported statically or not at all");
});

Deno.test("a seed's run is the same in a fresh process as after another seed", async () => {
  // Seed 144 of the children scenario went otherwise in a fresh process while the stages
  // and the queue still loaded during its run.
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      new URL("../fixtures/simulation/fresh_replay.ts", import.meta.url).pathname,
      "144",
      "1",
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert(output.success, new TextDecoder().decode(output.stderr));
  const lines = new TextDecoder().decode(output.stdout).trim().split("\n");
  const { first, again } = JSON.parse(lines.at(-1)!) as { first: string; again: string };
  assert(first.length > 0, "the run was traced");
  assertEquals(first, again);
});
