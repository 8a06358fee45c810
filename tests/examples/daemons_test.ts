/** examples/14-daemons: retried daemons, pinging until the object is deleted. */
import { assert, assertEquals } from "../assert.ts";
import { clusterWithCrd, KIND, manifest, NAME, runExample } from "./helpers.ts";

Deno.test("14-daemons: the daemons start after their retries and stop on deletion", async () => {
  await using cluster = await clusterWithCrd();
  const runner = await runExample("14-daemons", cluster);
  cluster.create(await manifest("obj.yaml"));
  await runner.waitForOutput(`[default/${NAME}] => Ping from a polling daemon: field="value"`);
  await runner.waitForOutput(`[default/${NAME}] => Ping from an abortable daemon`);
  const body = cluster.get(KIND, NAME);
  assertEquals((body?.status as Record<string, unknown>)?.message, "Failed 3 times.");

  cluster.delete(KIND, NAME);
  await cluster.waitFor(KIND, NAME, (o) => o === undefined);
  await runner.waitForOutput("The abortable daemon is stopped: resource-deleted.");
  await runner.stop();
  assertEquals(runner.exitCode, 0);
  const out = runner.lines.filter((l) => l.includes(`[default/${NAME}]`));
  const count = (text: string) => out.filter((l) => l.includes(text)).length;
  assertEquals(count("Handler 'backgroundPolling' failed temporarily: Simulated failure."), 3);
  assertEquals(count("Handler 'backgroundAbortable' failed temporarily: Simulated failure."), 3);
  assert(!out.some((l) => l.includes("did not exit in time")), "both exited when asked");
});
