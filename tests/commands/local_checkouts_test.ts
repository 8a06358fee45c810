/**
 * `kopf init --local`: a path that is no checkout of the framework is a usage error that
 * says why.
 */
import { readLocalCheckout } from "../../src/commands/local_checkouts.ts";
import { CommandLineError } from "../../src/commands/run_options.ts";
import { assertRejects } from "../assert.ts";

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
