/** examples/01-minimal: the create handler's result lands in the status. */
import { assert, assertEquals } from "../assert.ts";
import { clusterWithCrd, KIND, manifest, NAME, runExample, settled } from "./helpers.ts";

Deno.test("01-minimal: the returned message becomes status.createFn", async () => {
  await using cluster = await clusterWithCrd();
  const runner = await runExample("01-minimal", cluster);
  cluster.create(await manifest("obj.yaml"));
  const handled = await cluster.waitFor(KIND, NAME, settled);
  assertEquals((handled?.status as Record<string, unknown>).createFn, { message: "hello world" });
  assertEquals(handled?.metadata?.finalizers ?? [], [], "no delete handler, no finalizer");
  const line = await runner.waitForOutput("And here we are!");
  assert(line.includes(`[default/${NAME}]`), line);
  assert(line.includes('"field":"value"'), line);
  await runner.waitForOutput("Handler 'createFn' succeeded.");

  cluster.delete(KIND, NAME);
  await cluster.waitFor(KIND, NAME, (o) => o === undefined);
  await runner.stop();
  assertEquals(runner.exitCode, 0);
  assertEquals(runner.error, undefined);
});
