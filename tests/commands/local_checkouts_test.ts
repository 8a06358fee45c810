/**
 * `kopf init --local`: a path that is no checkout of the framework is a usage error that
 * says why.
 */
import { readLocalCheckout } from "../../src/commands/local_checkouts.ts";
import { CommandLineError } from "../../src/commands/run_options.ts";
import { assertEquals, assertRejects } from "../assert.ts";

Deno.test("a local path that is not a checkout of the framework is a usage error", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await assertRejects(() => readLocalCheckout(dir), CommandLineError, "has no deno.json");
    await Deno.writeTextFile(`${dir}/deno.json`, '{"name": "@other/pkg", "exports": "./mod.ts"}');
    await assertRejects(() => readLocalCheckout(dir), CommandLineError, "not a checkout");
    await Deno.writeTextFile(`${dir}/deno.json`, '{"name": "@kopf/kopf", "exports": "./mod.ts"}');
    await assertRejects(() => readLocalCheckout(dir), CommandLineError, "mod.ts, which is not in");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a built package is vendored as it publishes: what its publish.include names", async () => {
  const dir = await Deno.makeTempDir();
  try {
    for (const path of ["bundle/src/testing", "src/testing"]) {
      await Deno.mkdir(`${dir}/${path}`, { recursive: true });
    }
    for (const path of ["bundle/mod.js", "bundle/src/testing/mod.js", "mod.ts", "LICENSE"]) {
      await Deno.writeTextFile(`${dir}/${path}`, "");
    }
    const config = {
      name: "@kopf/kopf",
      exports: { ".": "./bundle/mod.js", "./testing": "./bundle/src/testing/mod.js" },
      publish: { include: ["bundle", "./mod.ts", "src/", "LICENSE"] },
    };
    await Deno.writeTextFile(`${dir}/deno.json`, JSON.stringify(config));
    const local = await readLocalCheckout(dir);
    assertEquals(local.vendored, ["deno.json", "bundle", "mod.ts", "src", "LICENSE"]);
    assertEquals(local.exports, config.exports);

    // What it says it publishes must be there, and inside it (the directory itself, named
    // from its parent, is there but not inside).
    const itself = `../${dir.split("/").pop()}`;
    for (const [include, named] of [[["bundle", "docs"], "docs"], [[itself], itself]] as const) {
      await Deno.writeTextFile(
        `${dir}/deno.json`,
        JSON.stringify({ ...config, publish: { include } }),
      );
      await assertRejects(
        () => readLocalCheckout(dir),
        CommandLineError,
        `publishes ${named}, which`,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
