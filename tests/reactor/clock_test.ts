import { assert, assertEquals } from "../assert.ts";
import { realClock } from "../../src/reactor/clock.ts";

Deno.test("the real clock sleeps for the given time", async () => {
  const start = realClock.now();
  await realClock.sleep(0.02);
  assert(realClock.now() - start >= 0.015, "slept at least about 20ms");
});

Deno.test("the real clock's sleep ends early, without an error, when the signal aborts", async () => {
  const controller = new AbortController();
  const start = realClock.now();
  const sleeping = realClock.sleep(60, controller.signal);
  controller.abort();
  await sleeping;
  assert(realClock.now() - start < 1);
});

Deno.test("an infinite sleep waits for the signal only", async () => {
  const controller = new AbortController();
  let woke = false;
  const sleeping = realClock.sleep(Infinity, controller.signal).then(() => woke = true);
  await new Promise((resolve) => setTimeout(resolve, 5));
  assertEquals(woke, false);
  controller.abort();
  await sleeping;
  assertEquals(woke, true);
});

Deno.test("a sleep with an aborted signal or no time left returns at once", async () => {
  await realClock.sleep(60, AbortSignal.abort());
  await realClock.sleep(0);
  await realClock.sleep(-5);
});
