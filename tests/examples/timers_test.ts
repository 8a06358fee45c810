/** examples/15-timers: idling timers that ping at their intervals while nothing changes. */
import { assert } from "../assert.ts";
import { clusterWithCrd, KIND, manifest, NAME, runExample } from "./helpers.ts";

Deno.test("15-timers: the timers ping once the object is quiet, and see its changes", async () => {
  await using cluster = await clusterWithCrd();
  const runner = await runExample("15-timers", cluster);
  const created = performance.now();
  cluster.create(await manifest("obj.yaml"));
  await runner.waitForOutput(`[default/${NAME}] Ping from a frequent timer: field="value"`);
  const waited = performance.now() - created;
  assert(waited >= 1900, `the first ping waits for the idle time (${waited} ms)`);

  cluster.patch(KIND, NAME, { spec: { field: "changed" } });
  await runner.waitForOutput(`[default/${NAME}] Ping from a frequent timer: field="changed"`);
  await runner.waitForOutput(`[default/${NAME}] Ping from a slower timer: field="changed"`);
  cluster.delete(KIND, NAME);
  await cluster.waitFor(KIND, NAME, (o) => o === undefined);
  await runner.stop();
});
