/**
 * The handler argument types catch mistakes at compile time: the fixture with
 * misspelled arguments compiles only because each mistake is marked as expected, and
 * without the markers the compiler reports every one of them. Typed `spec`/`status`
 * (by generics, by `kopf.resource<T>()`, by `@kubernetes/client-node` models) type
 * `patch.spec`/`patch.status` too.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { denoCheck } from "../typecheck.ts";

const ROOT = new URL("../../", import.meta.url);
const FIXTURES = new URL("tests/fixtures/typecheck/", ROOT);

Deno.test("typed handlers compile; misspelled arguments and options do not", async () => {
  const marked = await denoCheck(
    ROOT.pathname,
    new URL("right_arguments.ts", FIXTURES).pathname,
    new URL("wrong_argument.ts", FIXTURES).pathname,
  );
  assert(marked.ok, `the fixtures must type-check as they are:\n${marked.output}`);

  const source = await Deno.readTextFile(new URL("wrong_argument.ts", FIXTURES));
  const stripped = source
    .replace(/^\s*\/\/ @ts-expect-error.*$/gm, "")
    .replace('"../../../mod.ts"', JSON.stringify(new URL("mod.ts", ROOT).href));
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/wrong_argument.ts`;
    await Deno.writeTextFile(file, stripped);
    const unmarked = await denoCheck(dir, file);
    assert(!unmarked.ok, "without the markers, the mistakes must fail to compile");
    for (
      const diagnostic of [
        "Property 'spce' does not exist on type 'ChangingKwargs<MySpec",
        "Property 'feild' does not exist on type '{ readonly field: string; }'",
        "Property 'stopped' does not exist on type 'ChangingKwargs<",
        "Property 'diff' does not exist on type 'TimerKwargs<",
        "Property 'spec' does not exist on type 'ActivityKwargs",
        "No overload matches this call",
        "Property 'countr' does not exist on type '{ counter?: number | null | undefined; }'",
        "Type 'string' is not assignable to type 'number'",
        "Property 'contaners' does not exist",
      ]
    ) {
      assertStringIncludes(unmarked.output, diagnostic);
    }
    assertEquals(unmarked.output.match(/\[ERROR\]/g)?.length, 9);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
