import { DaemonStopper } from "../../src/structs/stoppers.ts";
import { assert, assertEquals } from "../assert.ts";

Deno.test("the stop-flag wakes waiters at once and aborts its signal", async () => {
  const stopper = new DaemonStopper();
  assertEquals([stopper.isSet, stopper.reason, stopper.signal.aborted], [false, null, false]);
  const waiting = stopper.wait(3600);
  stopper.stop("resource-deleted");
  stopper.stop("operator-exiting"); // the first reason stays
  assertEquals(await waiting, true);
  assertEquals([stopper.isSet, stopper.reason, stopper.signal.aborted], [
    true,
    "resource-deleted",
    true,
  ]);
  assertEquals(await stopper.wait(), true);
});

Deno.test("waiting with a timeout resolves false when nobody stops the daemon", async () => {
  const stopper = new DaemonStopper();
  assertEquals(await stopper.wait(0), false);
  assert(!stopper.isSet);
});
