/**
 * Timeouts of one length on one timer: called in order when due, cancellable, and no timer
 * left waiting once nothing is pending.
 */
import { assertEquals } from "../assert.ts";
import { DeadlineQueue } from "../../src/structs/deadline_queues.ts";
import { ManualClock } from "../clocks.ts";

Deno.test("callbacks are called when due, in order, on one timer", async () => {
  const clock = new ManualClock();
  const queue = new DeadlineQueue(10, clock);
  const calls: string[] = [];
  queue.add(() => calls.push("a"));
  await clock.advance(3);
  queue.add(() => calls.push("b"));
  queue.add(() => calls.push("c"));
  assertEquals(clock.sleepers, 1, "one timer for all");
  await clock.advance(6.9);
  assertEquals(calls, []);
  await clock.advance(0.1); // t=10: a is due
  assertEquals(calls, ["a"]);
  await clock.advance(3); // t=13: b and c
  assertEquals(calls, ["a", "b", "c"]);
  assertEquals([queue.size, clock.sleepers], [0, 0]);
});

Deno.test("cancelled callbacks are never called; an empty queue leaves no timer", async () => {
  const clock = new ManualClock();
  const queue = new DeadlineQueue(5, clock);
  const calls: string[] = [];
  const cancelA = queue.add(() => calls.push("a"));
  await clock.advance(1);
  const cancelB = queue.add(() => calls.push("b"));
  queue.add(() => calls.push("c"));
  cancelB();
  cancelB(); // twice is harmless
  cancelA(); // the first one: the timer stays for the rest
  assertEquals([queue.size, clock.sleepers], [1, 1]);
  await clock.advance(10);
  assertEquals(calls, ["c"]);
  const cancelD = queue.add(() => calls.push("d"));
  assertEquals(clock.sleepers, 1);
  cancelD();
  assertEquals([queue.size, clock.sleepers], [0, 0], "nothing pending, no timer");
  await clock.advance(10);
  assertEquals(calls, ["c"]);
});

Deno.test("a callback may add more; each is still called once, at its time", async () => {
  const clock = new ManualClock();
  const queue = new DeadlineQueue(2, clock);
  const calls: number[] = [];
  const again = (n: number) => () => {
    calls.push(n);
    if (n < 3) queue.add(again(n + 1));
  };
  queue.add(again(1));
  await clock.advance(1.9);
  assertEquals(calls, []);
  await clock.advance(0.1);
  assertEquals(calls, [1]);
  assertEquals(clock.sleepers, 1);
  await clock.advance(2);
  await clock.advance(2);
  assertEquals(calls, [1, 2, 3]);
  assertEquals([queue.size, clock.sleepers], [0, 0]);
});

Deno.test("entered objects expire when due among the callbacks, unless cancelled", async () => {
  const clock = new ManualClock();
  const queue = new DeadlineQueue(5, clock);
  const calls: string[] = [];
  const expiring = (name: string) => ({ expire: () => calls.push(name) });
  const a = queue.enter(expiring("a"));
  queue.add(() => calls.push("b"));
  const c = queue.enter(expiring("c"));
  queue.cancel(c);
  queue.cancel(c); // twice is harmless
  assertEquals(queue.size, 2);
  await clock.advance(5);
  assertEquals(calls, ["a", "b"]);
  queue.cancel(a); // after it has expired: nothing
  assertEquals([queue.size, clock.sleepers], [0, 0]);
  queue.cancel(queue.enter(expiring("d"))); // the only one: the timer goes with it
  assertEquals([queue.size, clock.sleepers], [0, 0]);
  await clock.advance(10);
  assertEquals(calls, ["a", "b"]);
});

Deno.test("a queue that keeps its timer leaves it to fire when emptied; clear drops all", async () => {
  const clock = new ManualClock();
  const queue = new DeadlineQueue(5, clock, { keepTimer: true });
  const calls: string[] = [];
  const cancelA = queue.add(() => calls.push("a"));
  cancelA();
  assertEquals([queue.size, clock.sleepers], [0, 1], "emptied, the timer stays");
  await clock.advance(2);
  queue.add(() => calls.push("b")); // due at 7: the same timer serves, fires at 5, re-arms
  assertEquals(clock.sleepers, 1);
  await clock.advance(3);
  assertEquals([calls, clock.sleepers], [[], 1]);
  await clock.advance(2);
  assertEquals([calls, queue.size, clock.sleepers], [["b"], 0, 0], "no timer once it fired");
  queue.add(() => calls.push("c"));
  queue.add(() => calls.push("d"));
  queue.clear();
  assertEquals([queue.size, clock.sleepers], [0, 0]);
  await clock.advance(10);
  assertEquals(calls, ["b"]);
});
