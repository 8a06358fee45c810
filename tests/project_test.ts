/**
 * Promises about the project itself: one pinned Deno version everywhere.
 */
import { assert, assertEquals } from "./assert.ts";
import { v8FlagsArgument } from "../src/cli/runtime_flags.ts";

const root = new URL("../", import.meta.url);
const read = (path: string) => Deno.readTextFile(new URL(path, root));

Deno.test("the README, CI and the running Deno agree on one pinned Deno version", async () => {
  const ci = await read(".ci/run");
  const pinned = ci.match(/^DENO_VERSION=([0-9.]+)$/m)?.[1];
  assert(pinned, ".ci/run must pin DENO_VERSION");
  assertEquals(Deno.version.deno, pinned);
  const readme = await read("README.md");
  const versions = [...readme.matchAll(/npx -y deno@([0-9.]+)/g)].map((m) => m[1]);
  assert(versions.length >= 2, "the README must show the demo and test commands");
  assertEquals([...new Set(versions)], [pinned]);
});

Deno.test("deno.json exports the three entry points of DESIGN §2", async () => {
  const config = JSON.parse(await read("deno.json"));
  assertEquals(Object.keys(config.exports).sort(), [".", "./cli", "./testing"]);
  assertEquals(config.name, "@kopf/kopf");
  for (
    const task of ["test", "demo", "check", "lint", "fmt", "bench", "build:npm", "compile", "kopf"]
  ) {
    assert(task in config.tasks, `deno.json must define the task ${task}`);
  }
});

Deno.test("the kopf task runs operators with their V8 memory flags", async () => {
  const config = JSON.parse(await read("deno.json"));
  const words = String(config.tasks.kopf).split(" ");
  assertEquals(words.slice(0, 3), ["deno", "run", v8FlagsArgument()]);
});

Deno.test("the public entry points pass deno doc --lint (JSR-ready docs, no private types)", async () => {
  const entries = ["mod.ts", "src/testing/mod.ts", "src/cli/main.ts"];
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--lint", ...entries],
    cwd: new URL(".", root).pathname,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const output = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
  const problems = output.split("\n").filter((line) => line.startsWith("error"));
  assertEquals(problems, [], output);
  assertEquals(code, 0);
});
