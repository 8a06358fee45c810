/** examples/07-subhandlers: one sub-handler per item, tracked as `createFn/<item>`. */
import { assertEquals } from "../assert.ts";
import { clusterWithCrd, runUntilSettled } from "./helpers.ts";

Deno.test("07-subhandlers: each item gets its own sub-handler, run once", async () => {
  await using cluster = await clusterWithCrd();
  const runner = await runUntilSettled("07-subhandlers", cluster);
  await runner.waitForOutput("Handler 'createFn' succeeded.");
  await runner.stop();
  for (const item of ["item1", "item2"]) {
    const ran = runner.lines.filter((l) => l.includes(`=== Handling creation for ${item}. ===`));
    assertEquals(ran.length, 1, item);
    const done = runner.lines.filter((l) => l.includes(`Handler 'createFn/${item}' succeeded.`));
    assertEquals(done.length, 1, `createFn/${item}`);
  }
});
