/** examples/03-exceptions: permanent, temporary and arbitrary errors, and their retries. */
import { assert, assertEquals } from "../assert.ts";
import { clusterWithCrd, NAME, runUntilSettled, waitForEvents } from "./helpers.ts";

Deno.test("03-exceptions: each handler fails or succeeds the way its errors say", async () => {
  await using cluster = await clusterWithCrd();
  const runner = await runUntilSettled("03-exceptions", cluster, { timeout: 20 });
  await runner.waitForOutput("Creation is processed: 1 succeeded; 3 failed.");
  await runner.stop();
  assertEquals(runner.exitCode, 0);

  const out = runner.lines.filter((l) => l.includes(`[default/${NAME}]`));
  const count = (text: string) => out.filter((l) => l.includes(text)).length;
  // A permanent error: one attempt, no retries.
  assertEquals(count("Handler 'instantFailureWithOnlyAMessage' failed permanently"), 1);
  // Temporary errors on attempts 0, 1, 2; success on attempt 3.
  assertEquals(count("Handler 'eventualSuccessWithFewMessages' failed temporarily"), 3);
  assertEquals(count("Handler 'eventualSuccessWithFewMessages' succeeded."), 1);
  // An arbitrary error with 3 retries: 3 attempts fail, then the retries are exceeded.
  assertEquals(count("Handler 'eventualFailureWithTracebacks' failed with an exception"), 3);
  assertEquals(count("Handler 'eventualFailureWithTracebacks' has exceeded 3 retries."), 1);
  // An arbitrary error in the permanent mode: one attempt.
  assertEquals(
    count("Handler 'instantFailureWithTraceback' failed with an exception. Will stop."),
    1,
  );
  assert(out.some((l) => l.includes("MyError: An error that is supposed to be recoverable.")));

  const events = await waitForEvents(cluster, NAME, (e) => e.some((m) => m.includes("processed")));
  assert(events.some((e) => e.startsWith("Error") && e.includes("Fail once and for all.")));
});
