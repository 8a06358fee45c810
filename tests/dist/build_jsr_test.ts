/**
 * The pure parts of scripts/build_jsr.ts: where each entry point's bundle goes, the line
 * that gives it its source's types, the package's `deno.json`, the command line.
 */
import { assertEquals, assertThrows } from "../assert.ts";
import {
  bundlePathOf,
  packageConfigFor,
  parseJsrBuildArgs,
  selfTypesLine,
} from "../../scripts/build_jsr.ts";

Deno.test("each entry point's bundle keeps its path under bundle/, as JavaScript", () => {
  assertEquals(bundlePathOf("./mod.ts"), "./bundle/mod.js");
  assertEquals(bundlePathOf("./src/testing/mod.ts"), "./bundle/src/testing/mod.js");
  assertEquals(bundlePathOf("src/cli/main.ts"), "./bundle/src/cli/main.js");
});

Deno.test("a bundled entry names its source entry as its types, relative to itself", () => {
  // bundle/mod.js -> ../mod.ts; bundle/src/testing/mod.js -> ../../../src/testing/mod.ts
  assertEquals(selfTypesLine("./mod.ts"), '// @ts-self-types="../mod.ts"');
  assertEquals(
    selfTypesLine("./src/testing/mod.ts"),
    '// @ts-self-types="../../../src/testing/mod.ts"',
  );
  assertEquals(selfTypesLine("src/cli/main.ts"), '// @ts-self-types="../../../src/cli/main.ts"');
});

Deno.test("the package's deno.json is the project's, its entry points mapped to bundles", () => {
  const config = packageConfigFor({
    name: "@kopf/kopf",
    version: "1.2.3",
    license: "MIT",
    exports: { ".": "./mod.ts", "./testing": "./src/testing/mod.ts" },
    imports: { yaml: "npm:yaml@^2" },
    compilerOptions: { strict: true },
  });
  assertEquals(config, {
    name: "@kopf/kopf",
    version: "1.2.3",
    license: "MIT",
    exports: { ".": "./bundle/mod.js", "./testing": "./bundle/src/testing/mod.js" },
    imports: { yaml: "npm:yaml@^2" },
    compilerOptions: { strict: true },
    // What it publishes, which is also what `kopf init --local` copies of it.
    publish: { include: ["bundle", "mod.ts", "src", "docs", "README.md", "LICENSE"] },
  });
  // Nothing made up where the project has nothing.
  assertEquals(
    packageConfigFor({ name: "@kopf/kopf", version: "1.2.3", exports: { ".": "./mod.ts" } }),
    {
      name: "@kopf/kopf",
      version: "1.2.3",
      exports: { ".": "./bundle/mod.js" },
      publish: { include: ["bundle", "mod.ts", "src", "docs", "README.md", "LICENSE"] },
    },
  );
});

Deno.test("build:jsr takes --outdir in both forms and refuses anything else", () => {
  assertEquals(parseJsrBuildArgs([]), { outDir: "dist/jsr" });
  assertEquals(parseJsrBuildArgs(["--outdir", "out"]), { outDir: "out" });
  assertEquals(parseJsrBuildArgs(["--outdir=out/jsr"]), { outDir: "out/jsr" });
  assertThrows(() => parseJsrBuildArgs(["--pack"]), Error, "the option is --outdir DIR");
});
