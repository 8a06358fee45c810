/** examples/08-events: watch-event handlers see every event; their errors are ignored. */
import { assert } from "../assert.ts";
import { clusterWithCrd, KIND, manifest, NAME, runExample } from "./helpers.ts";

Deno.test("08-events: every watch event reaches the handler despite the failing one", async () => {
  await using cluster = await clusterWithCrd();
  const runner = await runExample("08-events", cluster);
  cluster.create(await manifest("obj.yaml"));
  // The runner is ready only after the initial listing: an object created then is ADDED.
  const first = await runner.waitForOutput(new RegExp(`Event received: (ADDED|LISTED) ${NAME}`));
  assert(first.includes(`Event received: ADDED ${NAME}`), `not a watch event: ${first}`);
  cluster.patch(KIND, NAME, { spec: { field: "changed" } });
  await runner.waitForOutput(`Event received: MODIFIED ${NAME}`);
  cluster.delete(KIND, NAME);
  await runner.waitForOutput(`Event received: DELETED ${NAME}`);
  await runner.stop();
  assert(runner.lines.some((l) => l.includes("Oops!")), "the failing handler's error is logged");
  // No state is kept on the objects for event handlers: nothing was ever patched.
  assert(!cluster.requests.some((r) => r.method === "PATCH"), "no PATCH requests");
});
