/**
 * The Node build (scripts/build_npm.ts) is built, its dependencies installed, and run
 * under Node: imported by package name, talking to a live API server on loopback, its
 * `kopf` binary started, and its declarations used by a type-checked Node consumer.
 */
import ts from "typescript";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { ROOT, run, runDeno } from "../platform/commands.ts";

interface BuiltPackage {
  name: string;
  version: string;
  exports: Record<string, { types: string; default: string }>;
  bin: Record<string, string>;
  engines: { node: string };
  dependencies: Record<string, string>;
}

Deno.test("the npm build runs under Node with the public API against a live server", async (t) => {
  const denoJson = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`));
  const out = await Deno.makeTempDir({ prefix: "kopf-npm-" });
  try {
    const built = await runDeno(["run", "-A", `${ROOT}/scripts/build_npm.ts`, "--outdir", out]);
    assertEquals(built.code, 0, built.stderr);
    assertStringIncludes(built.stdout, `Built ${denoJson.name}@${denoJson.version}`);
    const pkg: BuiltPackage = JSON.parse(await Deno.readTextFile(`${out}/package.json`));

    await t.step("package.json mirrors deno.json: name, version, entry points", () => {
      assertEquals(pkg.name, denoJson.name);
      assertEquals(pkg.version, denoJson.version);
      assertEquals(Object.keys(pkg.exports).sort(), Object.keys(denoJson.exports).sort());
      assertEquals(pkg.bin, { kopf: "./bin/kopf.js" });
      assertEquals(pkg.engines, { node: ">=20.18.1" });
    });

    await t.step("dependencies are the imported npm packages with deno.json's ranges", () => {
      assert(Object.keys(pkg.dependencies).length > 0, "the CLI needs at least commander");
      for (const [name, range] of Object.entries(pkg.dependencies)) {
        const mapped: string | undefined = denoJson.imports[name];
        assert(mapped !== undefined, `${name} is in the import map`);
        assertEquals(mapped.replace(/^npm:/, ""), `${name}@${range}`);
      }
      assertEquals(pkg.dependencies.typescript, undefined, "build-only tools stay out");
    });

    // Install from Deno's npm cache: fast, offline-friendly, and Node resolves the
    // symlinked layout like any node_modules.
    const installed = await runDeno(["install", "--node-modules-dir=auto"], { cwd: out });
    assertEquals(installed.code, 0, installed.stderr);

    await t.step("Node imports the package by name and reaches the API server", async () => {
      const requests: string[] = [];
      const server = Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen() {} },
        (request) => {
          const url = new URL(request.url);
          requests.push(`${request.method} ${url.pathname}${url.search}`);
          return Response.json({
            kind: "ConfigMapList",
            apiVersion: "v1",
            metadata: { resourceVersion: "7" },
            items: [{ metadata: { name: "alpha" } }, { metadata: { name: "beta" } }],
          });
        },
      );
      try {
        await Deno.copyFile(`${ROOT}/tests/node/smoke.mjs`, `${out}/smoke.mjs`);
        const base = `http://127.0.0.1:${server.addr.port}`;
        const smoke = await run("node", ["smoke.mjs", base], { cwd: out });
        assertEquals(smoke.code, 0, smoke.stderr);
        const report = JSON.parse(smoke.stdout.trim().split("\n").pop()!);
        assertEquals(report.hasDeno, false);
        assertEquals(report.namespaceMatchesNamedExports, true);
        assertEquals(report.cliName, "kopf");
        assertEquals(report.status, 200);
        assertEquals(report.names, ["alpha", "beta"]);
        assertEquals(report.url, `${base}/api/v1/namespaces/default/configmaps?limit=10`);
        assertEquals(requests, ["GET /api/v1/namespaces/default/configmaps?limit=10"]);
      } finally {
        await server.shutdown();
      }
    });

    await t.step("the kopf binary runs under Node", async () => {
      const version = await run("node", [`${out}/bin/kopf.js`, "--version"], { cwd: out });
      assertEquals(version.code, 0, version.stderr);
      assertEquals(version.stdout.trim(), denoJson.version);
      const help = await run("node", [`${out}/bin/kopf.js`, "--help"], { cwd: out });
      assertStringIncludes(help.stdout, "Usage: kopf");
    });

    await t.step("the declarations give a Node TypeScript consumer real types", async () => {
      const consumer = `${out}/consumer.ts`;
      await Deno.writeTextFile(
        consumer,
        [
          'import { kopf, type Resource } from "@kopf/kopf";',
          'const pods: Resource = new kopf.Resource({ group: "", version: "v1", plural: "pods" });',
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
