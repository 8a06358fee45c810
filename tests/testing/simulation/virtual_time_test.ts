import { assert, assertEquals, assertRejects } from "../../assert.ts";
import { SimulationStallError, VirtualTime } from "../../../src/testing/simulation/virtual_time.ts";
import { sleep } from "../../../src/structs/clock.ts";

Deno.test("timers fire in order of time, and of scheduling among equal times", async () => {
  const time = new VirtualTime(0);
  const fired: string[] = [];
  time.add(2, () => fired.push("b"), undefined);
  time.add(1, () => fired.push("a1"), undefined);
  time.add(1, () => fired.push("a2"), undefined);
  const cancelled = time.add(1.5, () => fired.push("never"), undefined);
  time.cancel(cancelled);
  assertEquals(await time.run(() => false, 10), "idle");
  assertEquals(fired, ["a1", "a2", "b"]);
  assertEquals(time.now(), 2);
  assertEquals(time.steps, 3);
});

Deno.test("the promise reactions of one timer run before the next timer", async () => {
  const time = new VirtualTime(0);
  const seen: string[] = [];
  time.add(1, () => {
    Promise.resolve().then(() => Promise.resolve()).then(() => seen.push("reaction of 1"));
  }, undefined);
  time.add(1, () => seen.push("timer 2"), undefined);
  await time.run(() => false, 5);
  assertEquals(seen, ["reaction of 1", "timer 2"]);
});

Deno.test("a sleep of hours on the virtual clock passes in steps; the wall time follows", async () => {
  const time = new VirtualTime(Date.UTC(2030, 0, 1));
  let woke = false;
  sleep(6 * 3600, undefined, time).then(() => (woke = true));
  assertEquals(await time.run(() => woke, 86_400), "done");
  assertEquals(time.now(), 6 * 3600);
  assertEquals(new Date(time.wall()).toISOString(), "2030-01-01T06:00:00.000Z");
});

Deno.test("the run stops at its limit with the clock there, and intervals repeat", async () => {
  const time = new VirtualTime(0);
  let ticks = 0;
  time.add(10, () => ticks++, 10);
  assertEquals(await time.run(() => false, 95), "limit");
  assertEquals([ticks, time.now()], [9, 95]);
});

Deno.test("a timer that reschedules itself with no delay for ever is a stall, not a hang", async () => {
  const time = new VirtualTime(0);
  const again = () => void time.add(0, again, undefined);
  again();
  await assertRejects(
    () => time.run(() => false, 10),
    SimulationStallError,
    "without it moving on",
  );
});

Deno.test("what a timer throws is kept as uncaught, and the run goes on", async () => {
  const time = new VirtualTime(0);
  time.add(1, () => {
    throw new Error("boom");
  }, undefined);
  let later = false;
  time.add(2, () => (later = true), undefined);
  await time.run(() => false, 5);
  assert(later);
  assertEquals((time.uncaught[0] as Error).message, "boom");
});
