/**
 * The pure parts of scripts/build_npm.ts: the import map → dependencies, the package
 * manifest, the bundler command line, and the rewriting of emitted code.
 */
import {
  bareImportsOf,
  binScript,
  bundleArgs,
  type DenoConfig,
  installAdvice,
  lowerForNode,
  nodeCompatibilityWarnings,
  NPM_METADATA,
  npmDependencies,
  OPTIONAL_PEERS,
  optionalPeerProblems,
  packageJsonFor,
  parentOf,
  parseBuildArgs,
  repositoryOf,
  rewriteTsSpecifiers,
  staticImportsOf,
  tarballNameOf,
} from "../../scripts/build_npm.ts";
import { assert, assertEquals, assertThrows } from "../assert.ts";

const CONFIG: DenoConfig = {
  name: "@kopf/kopf",
  version: "1.2.3",
  license: "MIT",
  exports: { ".": "./mod.ts", "./testing": "./src/testing/mod.ts", "./cli": "./src/cli/main.ts" },
  imports: {
    "yaml": "npm:yaml@^2.8.1",
    "@logtape/logtape": "npm:@logtape/logtape@^1.0.0",
    "cmd": "npm:commander@^14.0.0",
    "std-like/": "npm:/some-pkg@1.0.0/",
    "typescript": "npm:typescript@~5.9.3",
    "local": "./src/local.ts",
  },
};

Deno.test("npm dependencies are read from the import map, scoped, aliased and bare", () => {
  assertEquals(npmDependencies(CONFIG.imports), [
    { importName: "yaml", packageName: "yaml", range: "^2.8.1" },
    { importName: "@logtape/logtape", packageName: "@logtape/logtape", range: "^1.0.0" },
    { importName: "cmd", packageName: "commander", range: "^14.0.0" },
    { importName: "std-like", packageName: "some-pkg", range: "1.0.0" },
    { importName: "typescript", packageName: "typescript", range: "~5.9.3" },
  ]);
  assertEquals(npmDependencies({ "x": "npm:x" }), [
    { importName: "x", packageName: "x", range: "*" },
  ]);
});

Deno.test("package.json mirrors deno.json and lists only the packages the bundle imports", () => {
  const pkg = packageJsonFor(CONFIG, new Set(["yaml", "cmd", "@logtape/logtape"]));
  assertEquals(pkg.exports, {
    ".": { types: "./types/mod.d.ts", default: "./mod.js" },
    "./testing": { types: "./types/src/testing/mod.d.ts", default: "./src/testing/mod.js" },
    "./cli": { types: "./types/src/cli/main.d.ts", default: "./src/cli/main.js" },
  });
  assertEquals(pkg.main, "./mod.js");
  assertEquals(pkg.types, "./types/mod.d.ts");
  assertEquals(pkg.type, "module");
  assertEquals(pkg.engines, { node: ">=20.18.1" });
  // An import name that differs from the package becomes an npm alias.
  assertEquals(pkg.dependencies, {
    "@logtape/logtape": "^1.0.0",
    "cmd": "npm:commander@^14.0.0",
    "yaml": "^2.8.1",
  });
  assertThrows(
    () => packageJsonFor({ ...CONFIG, exports: { "./x": "./x.ts" } }, new Set()),
    Error,
    'no "." entry',
  );
});

Deno.test("optional packages become optional peer dependencies, not dependencies", () => {
  const config = {
    ...CONFIG,
    imports: { ...CONFIG.imports, "@kubernetes/client-node": "npm:@kubernetes/client-node@^1.3.0" },
  };
  const pkg = packageJsonFor(config, new Set(["yaml", "@kubernetes/client-node"]));
  assertEquals(pkg.dependencies, { "yaml": "^2.8.1" });
  assertEquals(pkg.peerDependencies, { "@kubernetes/client-node": "^1.3.0" });
  assertEquals(pkg.peerDependenciesMeta, { "@kubernetes/client-node": { optional: true } });
  assert(Object.keys(OPTIONAL_PEERS).includes("@kubernetes/client-node"));
  // Not imported by the bundle: not listed at all.
  const without = packageJsonFor(config, new Set(["yaml"]));
  assertEquals([without.peerDependencies, without.peerDependenciesMeta], [undefined, undefined]);
  // The npm metadata: what the package is, where it comes from, its license.
  assertEquals(pkg.license, "MIT");
  assertEquals([pkg.description, pkg.keywords], [NPM_METADATA.description, NPM_METADATA.keywords]);
  // No address is made up: the repository only when one is known.
  assertEquals("repository" in pkg, false);
  const repository = repositoryOf("git@github.com:someone/kopf-ts.git");
  assertEquals(packageJsonFor(config, new Set(["yaml"]), repository).repository, repository);
});

Deno.test("the npm repository is the git remote's address as npm writes it, or none", () => {
  const npm = "git+https://github.com/someone/kopf-ts.git";
  for (
    const remote of [
      "git@github.com:someone/kopf-ts.git",
      "git@github.com:someone/kopf-ts",
      "https://github.com/someone/kopf-ts.git",
      "https://github.com/someone/kopf-ts/",
      "https://token@github.com/someone/kopf-ts.git",
      "ssh://git@github.com:22/someone/kopf-ts.git",
      "git+https://github.com/someone/kopf-ts.git",
      " https://github.com/someone/kopf-ts\n",
    ]
  ) {
    assertEquals(repositoryOf(remote), { type: "git", url: npm }, remote);
  }
  assertEquals(
    repositoryOf("https://gitlab.example.com/group/sub/kopf.git")?.url,
    "git+https://gitlab.example.com/group/sub/kopf.git",
  );
  for (const remote of [undefined, "", "/srv/git/kopf", "../kopf", "file:///srv/git/kopf"]) {
    assertEquals(repositoryOf(remote), undefined, String(remote));
  }
});

Deno.test("an optional package may be imported only dynamically, or the build fails", () => {
  const dynamic = 'export async function f() { return await import("@kubernetes/client-node"); }';
  assertEquals([...staticImportsOf(dynamic)], []);
  assertEquals(optionalPeerProblems(dynamic, "mod.js"), []);
  const eager = 'import { KubeConfig } from "@kubernetes/client-node";\nimport "yaml";';
  assertEquals([...staticImportsOf(eager)].sort(), ["@kubernetes/client-node", "yaml"]);
  assertEquals(optionalPeerProblems(eager, "mod.js"), [
    "mod.js imports the optional package @kubernetes/client-node statically; import it " +
    "dynamically where loginViaClient needs it.",
  ]);
});

Deno.test("deno bundle gets every npm package as --external=NAME, never swallowing entries", () => {
  const args = bundleArgs(CONFIG, "/out");
  // `--external NAME` takes several values and would eat the entry points after it.
  assert(!args.includes("--external"), "the joined form only");
  assert(args.includes("--external=yaml") && args.includes("--external=cmd"));
  assert(args.includes("--code-splitting"), "entry points share one copy of each module");
  assertEquals(args.slice(-3), ["mod.ts", "src/testing/mod.ts", "src/cli/main.ts"]);
  assertEquals(args[0], "bundle");
  assert(args.includes("--outdir=/out"));
});

Deno.test("bare imports of bundled code are found: static, re-exports, dynamic, subpaths", () => {
  const js = [
    'import { a } from "./chunk.js";',
    'import YAML from "yaml";',
    'import "side-effect";',
    'export { x } from "@logtape/logtape/sub";',
    'const k = await import("@kubernetes/client-node");',
    'import fs from "node:fs";',
    'const s = "from \\"not-an-import\\"";',
  ].join("\n");
  assertEquals(
    [...bareImportsOf(js)].sort(),
    ["@kubernetes/client-node", "@logtape/logtape", "side-effect", "yaml"],
  );
});

Deno.test("declarations point at .js siblings instead of .ts sources", () => {
  assertEquals(
    rewriteTsSpecifiers('export * from "./src/kopf.ts";\nimport type { A } from "../a.ts";'),
    'export * from "./src/kopf.js";\nimport type { A } from "../a.js";',
  );
  assertEquals(rewriteTsSpecifiers('import("./x.ts")'), 'import("./x.js")');
  assertEquals(rewriteTsSpecifiers('import "yaml.ts";'), 'import "yaml.ts";');
});

Deno.test("code is lowered for Node 20: no `using` declarations survive", () => {
  const lowered = lowerForNode(
    "export async function f(r) { await using x = r; using y = r; return x === y; }",
    "a.js",
  );
  assert(!/\busing\s+[xy]\b/.test(lowered), lowered);
  assert(lowered.includes("export async function f"), "stays ESM");
  assertThrows(() => lowerForNode("export const = ;", "broken.js"), Error, "broken.js");
});

Deno.test("the kopf binary launcher starts the CLI module", () => {
  assertEquals(
    binScript("./src/cli/main.js"),
    '#!/usr/bin/env node\nimport { main } from "../src/cli/main.js";\nawait main();\n',
  );
});

Deno.test("APIs newer than Node 20 are reported, comments are not", () => {
  const js = [
    "// Promise.withResolvers would be nicer, but Node 20 lacks it.",
    "/* Object.groupBy too */",
    "const { promise, resolve } = Promise.withResolvers();",
    "const both = a.isSubsetOf(b);",
    'const url = "https://example.com/x"; // a URL in a string is not a comment',
  ].join("\n");
  assertEquals(nodeCompatibilityWarnings(js, "chunk.js"), [
    "chunk.js uses Promise.withResolvers (Node 22), which Node 20.18 lacks.",
    "chunk.js uses Set methods (Node 22), which Node 20.18 lacks.",
  ]);
  assertEquals(nodeCompatibilityWarnings("const x = [3, 1].toSorted();", "ok.js"), []);
});

Deno.test("the build's options: --outdir and --pack; anything else is refused", () => {
  assertEquals(parseBuildArgs([]), { outDir: "dist/npm", pack: false });
  assertEquals(parseBuildArgs(["--outdir", "out/", "--pack"]), { outDir: "out/", pack: true });
  assertEquals(parseBuildArgs(["--outdir=x"]), { outDir: "x", pack: false });
  assertThrows(
    () => parseBuildArgs(["--tarball"]),
    Error,
    "the options are --outdir DIR and --pack",
  );
});

Deno.test("the build says to install the tarball beside the package, never the folder", () => {
  const pkg = { name: "@kopf/kopf", version: "1.2.3" };
  assertEquals(tarballNameOf(pkg), "kopf-kopf-1.2.3.tgz"); // as npm pack names it
  assertEquals(tarballNameOf({ name: "plain", version: "0.1.0" }), "plain-0.1.0.tgz");
  assertEquals([parentOf("dist/npm"), parentOf("out/"), parentOf("/npm"), parentOf("/a/b/")], [
    "dist",
    ".",
    "/",
    "/a",
  ]);
  const unpacked = installAdvice("dist/npm", pkg);
  assert(unpacked.includes("build again with --pack"), unpacked);
  assert(unpacked.includes("npm install dist/kopf-kopf-1.2.3.tgz"), unpacked);
  assertEquals(
    installAdvice("dist/npm", pkg, "/w/dist/kopf-kopf-1.2.3.tgz"),
    "Packed /w/dist/kopf-kopf-1.2.3.tgz; install it into a Node project with: " +
      "npm install /w/dist/kopf-kopf-1.2.3.tgz",
  );
});
