import { assert, assertEquals } from "../assert.ts";
import { realClock, settlesWithin, sleep } from "../../src/structs/clock.ts";
import { ManualClock } from "../clocks.ts";

Deno.test("the real clock sleeps for the given time and says it slept", async () => {
  const start = realClock.now();
  assertEquals(await sleep(0.02), true);
  assert(realClock.now() - start >= 0.015, "slept at least about 20ms");
});

Deno.test("a sleep ends early, without an error, when the signal aborts", async () => {
  const controller = new AbortController();
  const start = realClock.now();
  const sleeping = sleep(60, controller.signal);
  controller.abort();
  assertEquals(await sleeping, false);
  assert(realClock.now() - start < 1);
});

Deno.test("an infinite sleep waits for the signal only", async () => {
  const controller = new AbortController();
  let woke = false;
  const sleeping = sleep(Infinity, controller.signal).then(() => woke = true);
  await new Promise((resolve) => setTimeout(resolve, 5));
  assertEquals(woke, false);
  controller.abort();
  await sleeping;
  assertEquals(woke, true);
});

Deno.test("a sleep with an aborted signal or no time left returns at once", async () => {
  const start = realClock.now();
  assertEquals(await sleep(60, AbortSignal.abort()), false);
  assertEquals(await sleep(0), true);
  assertEquals(await sleep(-5), true);
  assert(realClock.now() - start < 1, "none of them waited");
});

Deno.test("a scheduled call can be cancelled and is never synchronous", async () => {
  const calls: string[] = [];
  const cancel = realClock.schedule(0, () => calls.push("cancelled"));
  realClock.schedule(0, () => calls.push("kept"));
  assertEquals(calls, [], "not called synchronously, even for zero seconds");
  cancel();
  await sleep(0.01);
  assertEquals(calls, ["kept"]);
});

Deno.test("the real clock's wall time is the epoch time", () => {
  const before = Date.now();
  const wall = realClock.wall();
  assert(before <= wall && wall <= Date.now());
});

Deno.test("a sleep runs on the clock it is given, wall time included", async () => {
  const clock = new ManualClock(Date.UTC(2020, 0, 1));
  let slept: boolean | undefined;
  const sleeping = sleep(30, undefined, clock).then((done) => (slept = done));
  await clock.advance(29);
  assertEquals(slept, undefined, "not before its time on that clock");
  await clock.advance(1);
  await sleeping;
  assertEquals(slept, true);
  assertEquals(clock.wall(), Date.UTC(2020, 0, 1, 0, 0, 30));
});

Deno.test("settlesWithin: true when the promise settles in time, false when the time or a signal comes first", async () => {
  const clock = new ManualClock();
  let resolve!: () => void;
  const late = new Promise<void>((r) => (resolve = r));
  const timed = settlesWithin(late, 5, clock);
  await clock.advance(5);
  assertEquals(await timed, false);
  const early = settlesWithin(late, 5, clock);
  resolve();
  assertEquals(await early, true);
  const stop = new AbortController();
  const stopped = settlesWithin(new Promise(() => {}), 5, clock, stop.signal);
  stop.abort();
  assertEquals(await stopped, false);
  assertEquals(await settlesWithin(new Promise(() => {}), 5, clock, stop.signal), false);
  assertEquals(clock.sleepers, 0, "no timer is left behind");
});
