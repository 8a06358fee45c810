/**
 * The Node README's way to make a project ESM: in a folder whose package.json is as
 * `npm install` writes it (no "type"), Node warns (MODULE_TYPELESS_PACKAGE_JSON) about an
 * operator.js that imports; after the README's command, as printed, it does not.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../assert.ts";
import { run } from "../platform/commands.ts";
import { patternOf, quote } from "../doc_quotes.ts";

const README = new URL("../../npm/README.md", import.meta.url);

Deno.test("npm/README.md says how to make a Node project ESM, and it silences Node's warning", async () => {
  const readme = await Deno.readTextFile(README);
  const command = /^(npm pkg set type=module)\b/m.exec(readme)?.[1];
  assert(command !== undefined, "npm/README.md shows npm pkg set type=module");
  assertStringIncludes(readme, '"type": "module"');
  assertStringIncludes(readme, "MODULE_TYPELESS_PACKAGE_JSON");
  const dir = await Deno.makeTempDir({ prefix: "kopf-node-esm-" });
  try {
    await Deno.writeTextFile(`${dir}/package.json`, '{\n  "dependencies": {}\n}\n');
    // An operator's shape: a module that imports (a built-in here, not the package).
    await Deno.writeTextFile(
      `${dir}/operator.js`,
      'import { EventEmitter } from "node:events";\nconsole.log(typeof EventEmitter);\n',
    );
    const before = await run("node", ["operator.js"], { cwd: dir });
    assertEquals(before.code, 0, before.stderr);
    // Node's warning as the README quotes it (of a file in any folder).
    const warning = await quote("../npm/README.md", "[MODULE_TYPELESS_PACKAGE_JSON] ");
    assertMatch(before.stderr, patternOf(warning));
    const set = await run("sh", ["-c", command], { cwd: dir });
    assertEquals(set.code, 0, set.stderr);
    assertEquals(JSON.parse(await Deno.readTextFile(`${dir}/package.json`)).type, "module");
    const after = await run("node", ["operator.js"], { cwd: dir });
    assertEquals([after.code, after.stdout, after.stderr], [0, "function\n", ""]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
