/**
 * The handler argument types catch mistakes at compile time: the fixture with
 * misspelled arguments compiles only because each mistake is marked as expected, and
 * without the markers the compiler reports every one of them. Typed `spec`/`status`
 * (by generics, by `kopf.resource<T>()`, by `@kubernetes/client-node` models) type
 * `patch.spec`/`patch.status` too.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { checkSnippets, denoCheck, MOD } from "../typecheck.ts";

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
        "'intervall' does not exist in type 'TimerOptions<TimerKwargs<",
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

const NAMED = `
import { kopf } from "${MOD}";

const named = (name: string, uid: string): string => \`\${name} \${uid}\`;
kopf.on.event("kex", ({ name, uid }) => named(name, uid));
kopf.on.create("kex", { when: ({ name }) => name.startsWith("a") }, ({ name, uid }) => named(name, uid));
kopf.on.update("kex", ({ name, uid }) => named(name, uid));
kopf.on.delete("kex", ({ name, uid }) => named(name, uid));
kopf.on.resume("kex", ({ name, uid }) => named(name, uid));
kopf.on.field("kex", { field: "spec.a" }, ({ name, uid }) => named(name, uid));
kopf.daemon("kex", ({ name, uid }) => named(name, uid));
kopf.timer("kex", { interval: 1 }, ({ name, uid }) => named(name, uid));
kopf.index("kex", ({ name, uid }) => ({ [name]: uid }));
kopf.on.child("kex", "configmaps", ({ name, uid }) => named(name, uid));
kopf.on.create(kopf.resource<{ spec?: { a: string } }>("kex"), ({ name, uid }) => named(name, uid));
`;

Deno.test("watched handlers get name and uid as strings; admission handlers and namespaces may lack them", async () => {
  const result = await checkSnippets({
    named: NAMED,
    mutating: `import { kopf } from "${MOD}";\nkopf.on.mutate("kex", ({ name }) => name.length);\n`,
    validating:
      `import { kopf } from "${MOD}";\nkopf.on.validate("kex", ({ uid }) => uid.length);\n`,
    namespace:
      `import { kopf } from "${MOD}";\nkopf.on.create("kex", ({ namespace }) => namespace.length);\n`,
  });
  assertEquals(result.errors.get("named"), undefined, result.output);
  const firstLines = Object.fromEntries(
    [...result.errors].map(([snippet, errors]) => [snippet, errors.map((e) => e.first)]),
  );
  assertEquals(firstLines, {
    mutating: ["'name' is possibly 'undefined'."],
    validating: ["'uid' is possibly 'undefined'."],
    namespace: ["'namespace' is possibly 'undefined'."],
  });
});
