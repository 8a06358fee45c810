/**
 * Load errors of the operator's files, said where: a syntax error (a type-stripping one
 * too) in a module the operator imports gives that module's file:line:column and the
 * offending line with a caret; a throw at a module's top level its stack without the
 * framework's and the runtime's frames; both are errors of the operator (exit code 1),
 * while a file or module that is not there is a usage error (exit code 2).
 */
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { kopf } from "../../mod.ts";
import { CommandLineError, loadSources, planRun } from "../../src/commands/run_options.ts";
import { describeLoadFailure, OperatorLoadError } from "../../src/commands/load_errors.ts";
import { exitCodeFor, failureText } from "../../src/commands/usage.ts";
import { KopfRunner } from "../../src/testing/mod.ts";

/** Write files into a new directory; returns its path. */
async function project(files: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir();
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${dir}/${name}`, text);
  }
  return dir;
}

/** Load the operator file as `kopf run` does; returns what it failed with. */
async function loadFailure(file: string): Promise<OperatorLoadError> {
  const plan = planRun([file], {});
  return await assertRejects(
    () => loadSources(plan.sources, { registry: new kopf.OperatorRegistry(), fresh: true }),
    OperatorLoadError,
  );
}

Deno.test("a syntax error in an imported module: its file:line:column and a code frame", async () => {
  const dir = await project({
    "operator.ts": 'import { total } from "./lib/sums.ts";\nconsole.log(total);\n',
  });
  await Deno.mkdir(`${dir}/lib`);
  await Deno.writeTextFile(
    `${dir}/lib/sums.ts`,
    "export const a = 1;\nexport const total = a +* 2;\n",
  );
  const error = await loadFailure(`${dir}/operator.ts`);
  assertEquals(
    error.message,
    `Cannot load ${dir}/operator.ts: SyntaxError: Expression expected at ${dir}/lib/sums.ts:2:25`,
  );
  assertEquals(error.details, [
    "  2 | export const total = a +* 2;",
    "    |                         ^",
  ]);
  assertEquals(exitCodeFor(error), 1);
  assertEquals(
    failureText("run", error).split("\n"),
    [`kopf run: ${error.message}`, ...error.details],
  );
});

Deno.test("a type-stripping error: the same, with tabs kept under the line", async () => {
  const dir = await project({
    "operator.ts": "export function greet(name: ) {\n\treturn name;\n}\n",
    "tabs.ts": "if (true) {\n\t\tconst n: number = 1 +* 2;\n}\n",
  });
  const typed = await loadFailure(`${dir}/operator.ts`);
  assert(typed.message.endsWith(`at ${dir}/operator.ts:1:29`), typed.message);
  assert(typed.message.includes("SyntaxError: Unexpected token `)`"), typed.message);
  assertEquals(typed.details, [
    "  1 | export function greet(name: ) {",
    "    |                             ^",
  ]);
  // Deno counts a tab as two columns in its diagnostics; the place given is the character's.
  const tabs = await loadFailure(`${dir}/tabs.ts`);
  assert(tabs.message.endsWith(`at ${dir}/tabs.ts:2:24`), tabs.message);
  assertEquals(tabs.details, [
    "  2 | \t\tconst n: number = 1 +* 2;",
    "    | \t\t                     ^",
  ]);
});

Deno.test("a throw at the top level of a module: the user's frames only, and a code frame", async () => {
  const dir = await project({
    "operator.ts": 'import "./settings.ts";\n',
    "settings.ts": [
      "function required(name: string): string {",
      "  throw new Error(`no ${name} in the settings file`);",
      "}",
      'export const url = required("url");',
      "",
    ].join("\n"),
  });
  const error = await loadFailure(`${dir}/operator.ts`);
  assertEquals(
    error.message,
    `Cannot load ${dir}/operator.ts: Error: no url in the settings file at ${dir}/settings.ts:2:9`,
  );
  assertEquals(error.details, [
    "  2 |   throw new Error(`no ${name} in the settings file`);",
    "    |         ^",
    `    at required (${dir}/settings.ts:2:9)`,
    `    at ${dir}/settings.ts:4:20`,
  ]);
  assertEquals(exitCodeFor(error), 1);
});

Deno.test("a framework call refused at the top level: the frames of the framework left out", async () => {
  const mod = new URL("../../mod.ts", import.meta.url).href;
  const dir = await project({
    "operator.ts": `import { kopf } from ${JSON.stringify(mod)};\n` +
      'kopf.on.field("configmaps", {} as never, function watch() {});\n',
  });
  const error = await loadFailure(`${dir}/operator.ts`);
  assert(error.message.includes('option "field" is required'), error.message);
  assert(error.message.endsWith(`at ${dir}/operator.ts:2:9`), error.message);
  const frames = error.details.filter((line) => line.startsWith("    at "));
  assertEquals(frames, [`    at ${dir}/operator.ts:2:9`]);
  assert(!error.details.some((line) => line.includes("/src/")), error.details.join("\n"));
});

Deno.test("an import of a module that is not there: the importing line", async () => {
  const dir = await project({
    "operator.ts": 'import { x } from "./absent.ts";\nconsole.log(x);\n',
  });
  const error = await loadFailure(`${dir}/operator.ts`);
  assertEquals(
    error.message,
    `Cannot load ${dir}/operator.ts: TypeError: Module not found "${dir}/absent.ts" at ${dir}/operator.ts:1:19`,
  );
  assertEquals(error.details[1], "    |                   ^");
});

Deno.test("a file or module that is not there is a usage error: exit code 2", async () => {
  const dir = await Deno.makeTempDir();
  for (
    const [files, flags, says] of [
      [[`${dir}/absent.ts`], {}, "no such file"],
      [[], { module: ["./absent-module.ts"] }, 'Module not found "'],
    ] as const
  ) {
    const plan = planRun([...files], flags);
    const error = await assertRejects(() => loadSources(plan.sources), CommandLineError);
    assert(error.message.includes(says), error.message);
    assertEquals(exitCodeFor(error), 2);
  }
});

Deno.test("Node's type stripping frames the place in brackets; without a place, the message alone", async () => {
  const dir = await project({ "op.ts": "export function f(x: ) {}\n" });
  const node = new SyntaxError(
    `  x Expected ',', got ')'\n   ,-[file://${dir}/op.ts:1:1]\n 1 | export function f(x: ) {}\n`,
  );
  const framed = await describeLoadFailure("op.ts", node);
  assert(framed.message.endsWith(`at ${dir}/op.ts:1:1`), framed.message);
  assertEquals(framed.details[0], "  1 | export function f(x: ) {}");
  const bare = await describeLoadFailure("op.js", "something odd was thrown");
  assertEquals(bare.message, "Cannot load op.js: Error: something odd was thrown");
  assertEquals(bare.details, []);
});

Deno.test("KopfRunner: an operator that fails to load ends with code 1 and shows where", async () => {
  const dir = await project({ "operator.ts": "const broken = {;\n" });
  const runner = await KopfRunner.start(["run", "-A", `${dir}/operator.ts`], { reraise: false });
  assertEquals(runner.exitCode, 1);
  assert(runner.error instanceof OperatorLoadError, String(runner.error));
  assertEquals(runner.lines.slice(-3), [
    `kopf run: Cannot load ${dir}/operator.ts: SyntaxError: Unexpected token \`;\`. ` +
    `Expected identifier, string literal, numeric literal or [ for the computed key at ${dir}/operator.ts:1:17`,
    "  1 | const broken = {;",
    "    |                 ^",
  ]);
});
