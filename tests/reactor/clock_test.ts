import { assert, assertEquals } from "../assert.ts";
import { realClock, sleep } from "../../src/reactor/clock.ts";

Deno.test("the real clock sleeps for the given time", async () => {
  const start = realClock.now();
  await sleep(realClock, 0.02);
  assert(realClock.now() - start >= 0.015, "slept at least about 20ms");
});

Deno.test("a sleep ends early, without an error, when the signal aborts", async () => {
  const controller = new AbortController();
  const start = realClock.now();
  const sleeping = sleep(realClock, 60, controller.signal);
  controller.abort();
  await sleeping;
  assert(realClock.now() - start < 1);
});

Deno.test("an infinite sleep waits for the signal only", async () => {
  const controller = new AbortController();
  let woke = false;
  const sleeping = sleep(realClock, Infinity, controller.signal).then(() => woke = true);
  await new Promise((resolve) => setTimeout(resolve, 5));
  assertEquals(woke, false);
  controller.abort();
  await sleeping;
  assertEquals(woke, true);
});

Deno.test("a sleep with an aborted signal or no time left returns at once", async () => {
  const start = realClock.now();
  await sleep(realClock, 60, AbortSignal.abort());
  await sleep(realClock, 0);
  await sleep(realClock, -5);
  assert(realClock.now() - start < 1, "none of them waited");
});

Deno.test("a scheduled call can be cancelled and is never synchronous", async () => {
  const calls: string[] = [];
  const cancel = realClock.schedule(0, () => calls.push("cancelled"));
  realClock.schedule(0, () => calls.push("kept"));
  assertEquals(calls, [], "not called synchronously, even for zero seconds");
  cancel();
  await sleep(realClock, 0.01);
  assertEquals(calls, ["kept"]);
});
