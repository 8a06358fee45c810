/** examples/04-events: custom Events about the handled object. */
import { assert } from "../assert.ts";
import { clusterWithCrd, NAME, runUntilSettled, waitForEvents } from "./helpers.ts";

Deno.test("04-events: event, info, warn and exception all land as Events", async () => {
  await using cluster = await clusterWithCrd();
  const runner = await runUntilSettled("04-events", cluster);
  const wanted = [
    "SomeType SomeReason: Some message",
    "Normal SomeReason: Some message",
    "Warning SomeReason: Some message",
    "Error SomeReason: Some exception: Exception text.",
  ];
  wanted.push("Normal Logging: Handler 'createFn' succeeded.");
  const events = await waitForEvents(
    cluster,
    NAME,
    (e) => wanted.every((w) => e.some((m) => m.startsWith(w))),
  );
  assert(events.length >= wanted.length, events.join("\n"));
  await runner.stop();
});
