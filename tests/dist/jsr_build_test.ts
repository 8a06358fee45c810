/**
 * The JSR build (scripts/build_jsr.ts), built and used as a project uses the package: a
 * member of the project's Deno workspace, imported as `@kopf/kopf` by name. Its runtime is
 * the bundle (it runs with the sources broken), its types are the sources (a wrong type fails
 * `deno check`), `deno publish` accepts it, and `kopf init --local` makes a project on it.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { ROOT, runDeno } from "../platform/commands.ts";

const OPERATOR = `import { kopf } from "@kopf/kopf";

kopf.on.create("kopfexamples.kopf.dev", function greet({ name }) {
  return { message: \`hello, \${name}\` };
});
`;

const OPERATOR_TEST = `import { parse } from "yaml";
import { FakeCluster, KopfRunner } from "@kopf/kopf/testing";
import type { RawBody } from "@kopf/kopf";

const here = (path: string) => new URL(path, import.meta.url);

Deno.test("the operator greets", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(parse(await Deno.readTextFile(here("crd.yaml"))) as RawBody);
  await using runner = await KopfRunner.start(
    ["run", "--all-namespaces", "--standalone", here("operator.ts").pathname],
    { cluster },
  );
  cluster.create({
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name: "one", namespace: "default" },
  });
  const greeted = (o: RawBody | undefined) =>
    (o?.status as { greet?: { message?: string } } | undefined)?.greet?.message;
  await cluster.waitFor("kopfexamples.kopf.dev", "one", (o) => greeted(o) === "hello, one");
  await runner.stop();
  if (runner.exitCode !== 0) throw new Error(\`failed: \${runner.error}\\n\${runner.output}\`);
});
`;

/** A script that makes the framework throw, and prints the stack. */
const THROWING = `import { kopf } from "@kopf/kopf";

try {
  new kopf.OperatorSettings({ batching: { batchWindow: -5 } });
} catch (error) {
  console.log((error as Error).stack);
}
`;

/** The bundled command line, as a project made by `kopf init --local` has it. */
const CLI = "./vendor/kopf/bundle/src/cli/main.js";

/** An operator whose registration the framework refuses at its load. */
const REFUSED = `import { kopf } from "@kopf/kopf";

kopf.on.create("kopfexamples.kopf.dev", { retries: -3 }, function greet() {
  return 1;
});
`;

/** A module that gives a value of the package a wrong type. */
const MISTYPED = `import { kopf } from "@kopf/kopf";

export const settings: number = new kopf.OperatorSettings();
`;

async function filesUnder(dir: string): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) files.push(...await filesUnder(path));
    else files.push(path);
  }
  return files;
}

Deno.test("the JSR build: the bundle runs, the sources type it, deno publish takes it", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "kopf-jsr-" });
  try {
    const built = await runDeno(["run", "-A", `${ROOT}/scripts/build_jsr.ts`, "--outdir", "kopf"], {
      cwd: dir,
    });
    assertEquals(built.code, 0, built.stderr);
    assertStringIncludes(built.stdout, "Built the JSR package into kopf");
    const project = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`));
    const config = JSON.parse(await Deno.readTextFile(`${dir}/kopf/deno.json`));

    await t.step("deno.json: the project's, each entry point mapped to its bundle", async () => {
      assertEquals([config.name, config.version], [project.name, project.version]);
      assertEquals(config.imports, project.imports);
      assertEquals(Object.keys(config.exports).sort(), Object.keys(project.exports).sort());
      for (const [name, bundled] of Object.entries(config.exports as Record<string, string>)) {
        const source = project.exports[name].replace(/^\.\//, "");
        const js = await Deno.readTextFile(`${dir}/kopf/${bundled}`);
        const types = /^\/\/ @ts-self-types="([^"]+)"\n/.exec(js)?.[1];
        assert(types !== undefined, `${bundled} names its types on its first line`);
        assertEquals(new URL(types, `file:///${bundled.slice(2)}`).pathname, `/${source}`);
        await Deno.stat(`${dir}/kopf/${source}`); // published beside the bundle
      }
    });

    await t.step("deno publish accepts the package", async () => {
      const published = await runDeno(["publish", "--dry-run", "--allow-dirty"], {
        cwd: `${dir}/kopf`,
      });
      assertEquals(published.code, 0, published.stderr);
      assertStringIncludes(published.stderr + published.stdout, "Dry run complete");
    });

    await Deno.writeTextFile(
      `${dir}/deno.json`,
      JSON.stringify({ workspace: ["./kopf"], imports: { yaml: project.imports.yaml } }),
    );
    await Deno.copyFile(`${ROOT}/examples/crd.yaml`, `${dir}/crd.yaml`);
    await Deno.writeTextFile(`${dir}/operator.ts`, OPERATOR);
    await Deno.writeTextFile(`${dir}/operator_test.ts`, OPERATOR_TEST);
    await Deno.writeTextFile(`${dir}/mistyped.ts`, MISTYPED);
    await Deno.writeTextFile(`${dir}/throwing.ts`, THROWING);

    await t.step("a project's test runs its operator on the package, type-checked", async () => {
      const tested = await runDeno(["test", "-A", "operator_test.ts"], { cwd: dir });
      assertEquals(tested.code, 0, tested.stdout + tested.stderr);
      assertStringIncludes(tested.stdout, "1 passed");
    });

    await t.step("a stack trace names the framework's sources, by the source maps", async () => {
      const thrown = await runDeno(["run", "throwing.ts"], { cwd: dir });
      assertEquals(thrown.code, 0, thrown.stderr);
      assertStringIncludes(thrown.stdout, "batchWindow must be");
      const frame = thrown.stdout.split("\n").find((line) => line.includes("/kopf/"));
      assertStringIncludes(frame ?? "", "/kopf/src/settings/operator_settings.ts:");
    });

    await t.step("the types are the sources': a wrong type fails deno check", async () => {
      const checked = await runDeno(["check", "mistyped.ts"], { cwd: dir });
      assertEquals(checked.code, 1, checked.stderr);
      assertStringIncludes(checked.stderr, "TS2322");
      assertStringIncludes(checked.stderr, "OperatorSettings");
    });

    await t.step(
      "kopf init --local makes a project on it: its test passes, its errors show its lines",
      async () => {
        // Elsewhere: a project inside this directory would be outside its workspace.
        const elsewhere = await Deno.makeTempDir({ prefix: "kopf-jsr-project-" });
        try {
          const made = await runDeno(
            ["run", "-A", `${ROOT}/src/cli/main.ts`, "init", "proj", "--local", `${dir}/kopf`],
            { cwd: elsewhere },
          );
          assertEquals(made.code, 0, made.stderr);
          const tasks = JSON.parse(await Deno.readTextFile(`${elsewhere}/proj/deno.json`)).tasks;
          assertStringIncludes(tasks.run, ` ${CLI} run `);
          await Deno.stat(`${elsewhere}/proj/vendor/kopf/src/testing/mod.ts`); // its types
          const tested = await runDeno(["task", "test"], { cwd: `${elsewhere}/proj` });
          assertEquals(tested.code, 0, tested.stdout + tested.stderr);
          assertStringIncludes(tested.stdout, "1 passed");
          // A module refused at its load is shown at its own line, not in the framework's
          // sources that the bundle's source maps name.
          await Deno.writeTextFile(`${elsewhere}/proj/refused.ts`, REFUSED);
          const refused = await runDeno(
            ["run", "-A", CLI, "run", "--standalone", "-A", "refused.ts"],
            { cwd: `${elsewhere}/proj` },
          );
          assertEquals(refused.code, 1, refused.stdout + refused.stderr);
          assertStringIncludes(refused.stderr, "Cannot load refused.ts: RegistrationError");
          assertStringIncludes(refused.stderr, "got -3 at refused.ts:3:9\n");
        } finally {
          await Deno.remove(elsewhere, { recursive: true });
        }
      },
    );

    await t.step(
      "the runtime is the bundle: the operator runs with the sources broken",
      async () => {
        const sources = (await filesUnder(`${dir}/kopf`)).filter((file) =>
          file.endsWith(".ts") && !file.includes("/kopf/bundle/")
        );
        assert(sources.length > 100, `the sources are published (${sources.length} modules)`);
        for (const file of sources) await Deno.writeTextFile(file, "this is not TypeScript (\n");
        const tested = await runDeno(["test", "-A", "--no-check", "operator_test.ts"], {
          cwd: dir,
        });
        assertEquals(tested.code, 0, tested.stdout + tested.stderr);
        assertStringIncludes(tested.stdout, "1 passed");
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
