/**
 * The Node build (scripts/build_npm.ts) is built, its dependencies installed (the
 * optional ones not), and run under Node: imported by package name, talking to a live API
 * server on loopback, its `kopf` binary started, and its declarations used by a
 * type-checked Node consumer.
 */
import ts from "typescript";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { ROOT, run, runDeno } from "../platform/commands.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import type { PackageJson } from "../../scripts/build_npm.ts";
import { generateTypesFromYaml } from "../../src/commands/types.ts";

Deno.test("the npm build runs under Node with the public API against a live server", async (t) => {
  const denoJson = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`));
  const out = await Deno.makeTempDir({ prefix: "kopf-npm-" });
  try {
    const built = await runDeno(["run", "-A", `${ROOT}/scripts/build_npm.ts`, "--outdir", out], {
      env: { KOPF_NPM_REPOSITORY: "git@github.com:someone/kopf-ts.git" },
    });
    assertEquals(built.code, 0, built.stderr);
    assertStringIncludes(built.stdout, `Built ${denoJson.name}@${denoJson.version}`);
    // No API newer than Node 20 in the code, no Deno namespace in the types.
    assertEquals(built.stdout.split("\n").filter((l) => l.startsWith("warning:")), []);
    const pkg: PackageJson = JSON.parse(await Deno.readTextFile(`${out}/package.json`));

    await t.step("package.json mirrors deno.json: name, version, entry points", () => {
      assertEquals(pkg.name, denoJson.name);
      assertEquals(pkg.version, denoJson.version);
      assertEquals(Object.keys(pkg.exports).sort(), Object.keys(denoJson.exports).sort());
      assertEquals(pkg.bin, { kopf: "./bin/kopf.js" });
      assertEquals(pkg.engines, { node: ">=20.18.1" });
    });

    await t.step("package.json describes the package for npm: license, types, links", () => {
      assertEquals(pkg.license, denoJson.license);
      assertEquals(pkg.types, "./types/mod.d.ts");
      assertStringIncludes(pkg.description, "Kubernetes operator framework");
      assert(pkg.keywords.includes("kubernetes") && pkg.keywords.includes("operator"));
      // From KOPF_NPM_REPOSITORY (else the git remote origin), in npm's form.
      assertEquals(pkg.repository, {
        type: "git",
        url: "git+https://github.com/someone/kopf-ts.git",
      });
    });

    await t.step("dependencies are the imported npm packages with deno.json's ranges", () => {
      assert(Object.keys(pkg.dependencies).length > 0, "the CLI needs at least commander");
      for (const [name, range] of Object.entries(pkg.dependencies)) {
        const mapped: string | undefined = denoJson.imports[name];
        assert(mapped !== undefined, `${name} is in the import map`);
        assertEquals(mapped.replace(/^npm:/, ""), `${name}@${range}`);
      }
      assertEquals(pkg.dependencies.typescript, undefined, "build-only tools stay out");
      // Only loginViaClient needs client-node: an optional peer, not a dependency.
      assertEquals(pkg.dependencies["@kubernetes/client-node"], undefined);
      assertEquals(pkg.peerDependencies, {
        "@kubernetes/client-node": denoJson.imports["@kubernetes/client-node"].replace(
          /^npm:@kubernetes\/client-node@/,
          "",
        ),
      });
      assertEquals(pkg.peerDependenciesMeta, { "@kubernetes/client-node": { optional: true } });
    });

    await t.step(
      "npm accepts the package: every entry point and the binary are packed",
      async () => {
        const packed = await run("npm", ["pack", "--dry-run", "--json"], { cwd: out });
        assertEquals(packed.code, 0, packed.stderr);
        const [summary] = JSON.parse(packed.stdout) as {
          name: string;
          files: { path: string }[];
        }[];
        assertEquals(summary.name, denoJson.name);
        const files = new Set(summary.files.map((f) => f.path));
        for (const entry of Object.values(pkg.exports)) {
          assert(files.has(entry.default.slice(2)), `${entry.default} is packed`);
          assert(files.has(entry.types.slice(2)), `${entry.types} is packed`);
        }
        assert(files.has("bin/kopf.js"), "the binary is packed");
      },
    );

    // Install from Deno's npm cache: fast, offline-friendly, and Node resolves the
    // symlinked layout like any node_modules.
    const installed = await runDeno(["install", "--node-modules-dir=auto"], { cwd: out });
    assertEquals(installed.code, 0, installed.stderr);

    await t.step("Node imports the package by name and talks to fake clusters", async () => {
      // One cluster served by this Deno process; the smoke script starts another in Node.
      await using cluster = await FakeCluster.start();
      for (const name of ["alpha", "beta"]) {
        cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name } });
      }
      await Deno.copyFile(`${ROOT}/tests/dist/smoke.mjs`, `${out}/smoke.mjs`);
      const smoke = await run("node", ["smoke.mjs", cluster.url], { cwd: out });
      assertEquals(smoke.code, 0, smoke.stderr);
      const report = JSON.parse(smoke.stdout.trim().split("\n").pop()!);
      assertEquals(report.hasDeno, false);
      assertEquals(report.onlyTheNamespaceIsAValue, "kopf"); // types are erased; values only via kopf
      assertEquals(report.cliName, "kopf");
      assertEquals(report.status, 200);
      assertEquals(report.names, ["alpha", "beta"]);
      assertEquals(report.url, `${cluster.url}/api/v1/namespaces/default/configmaps?limit=10`);
      const served = cluster.requests.map((r) => `${r.method} ${r.path}`);
      assert(served.includes("GET /api/v1/namespaces/default/configmaps"), served.join(", "));
      // The FakeCluster under Node: HTTPS with a CA generated by WebCrypto in Node.
      assertEquals(report.localTls, true);
      assertEquals(report.createdStatus, 201);
      assertEquals(report.storedData, { runtime: "node" });
    });

    await t.step(
      "a whole operator runs under Node: login, watch, handler, progress, stop",
      async () => {
        await Deno.copyFile(`${ROOT}/tests/dist/operator.mjs`, `${out}/operator.mjs`);
        const operator = await run("node", ["operator.mjs"], { cwd: out });
        assertEquals(operator.code, 0, operator.stderr);
        const report = JSON.parse(operator.stdout.trim().split("\n").pop()!);
        assertEquals(report.handled, "hello");
        // The diff-base annotation is written only after the handlers succeeded.
        assertEquals(report.diffBase, { data: { greeting: "hi" } });
        assertEquals(report.watched, true);
        assertStringIncludes(operator.stderr, "[default/hello] Handler 'greet' succeeded.");
      },
    );

    await t.step(
      "without the optional client-node, loginViaClient says how to install it",
      async () => {
        const script = [
          'import { kopf } from "@kopf/kopf";',
          "try {",
          "  await kopf.loginViaClient();",
          "} catch (error) {",
          "  console.log(JSON.stringify({ name: error.name, message: error.message }));",
          "}",
        ].join("\n");
        await Deno.writeTextFile(`${out}/peer.mjs`, script);
        const peer = await run("node", ["peer.mjs"], { cwd: out });
        assertEquals(peer.code, 0, peer.stderr);
        assertEquals(JSON.parse(peer.stdout.trim()), {
          name: "LoginError",
          message: "loginViaClient needs the optional package @kubernetes/client-node, which is " +
            "not installed: install it with `npm install @kubernetes/client-node`, or use " +
            "loginWithKubeconfig instead.",
        });
      },
    );

    await t.step("the kopf binary runs under Node", async () => {
      const version = await run("node", [`${out}/bin/kopf.js`, "--version"], { cwd: out });
      assertEquals(version.code, 0, version.stderr);
      assertEquals(version.stdout.trim(), denoJson.version);
      const help = await run("node", [`${out}/bin/kopf.js`, "--help"], { cwd: out });
      assertStringIncludes(help.stdout, "Usage: kopf");
      // kopf types: from a file and from the standard input, the same bytes as on Deno.
      const crd = `${ROOT}/examples/crd.yaml`;
      const expected = generateTypesFromYaml(await Deno.readTextFile(crd), "crd.yaml");
      const fromFile = await run("node", [`${out}/bin/kopf.js`, "types", crd], { cwd: out });
      assertEquals([fromFile.code, fromFile.stdout, fromFile.stderr], [0, expected, ""]);
      const piped = await run("sh", ["-c", `node bin/kopf.js types - < '${crd}'`], { cwd: out });
      assertEquals([piped.code, piped.stdout], [0, expected]);
      const usage = await run("node", [`${out}/bin/kopf.js`, "types"], { cwd: out });
      assertEquals(usage.code, 2);
      assertStringIncludes(usage.stderr, "See 'kopf types --help'.");
    });

    await t.step("the declarations give a Node TypeScript consumer real types", async () => {
      const consumer = `${out}/consumer.ts`;
      await Deno.writeTextFile(
        consumer,
        [
          'import { kopf, type Resource } from "@kopf/kopf";',
          'const pods: Resource = new kopf.Resource({ group: "", version: "v1", plural: "pods" });',
          "// @ts-expect-error: values are reached through kopf only",
          'import { on } from "@kopf/kopf";',
          'export const url: string = pods.getUrl({ namespace: "default" });',
          "// @ts-expect-error: a misspelt option is caught, so the types are not `any`",
          'pods.getUrl({ namspace: "default" });',
          "",
        ].join("\n"),
      );
      const program = ts.createProgram([consumer], {
        noEmit: true,
        strict: true,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
        types: [],
        skipLibCheck: true,
      });
      const problems = ts.getPreEmitDiagnostics(program).map((d) =>
        ts.flattenDiagnosticMessageText(d.messageText, " ")
      );
      assertEquals(problems, []);
    });
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});
