import { assert, assertEquals } from "../assert.ts";
import { Backoff, DEFAULT_BACKOFF } from "../../src/structs/backoffs.ts";
import { ManualClock } from "../clocks.ts";

Deno.test("pauses double from the initial one up to the cap, jitter within its share", () => {
  const clock = new ManualClock();
  const plain = new Backoff({ clock, jitter: 0 });
  assertEquals([1, 2, 3, 4, 5, 6, 7, 8].map(() => plain.next()), [
    0.8,
    1.6,
    3.2,
    6.4,
    12.8,
    25.6,
    30,
    30,
  ]);
  const jittered = new Backoff({ clock, random: () => 0.5 });
  assertEquals(jittered.next(), 0.8 * 1.5);
  const wild = new Backoff({ clock, random: () => 0.999 });
  for (let i = 0; i < 20; i++) assert(wild.next() <= DEFAULT_BACKOFF.cap, "never over the cap");
});

Deno.test("after a healthy period the pauses start over; within it they keep growing", async () => {
  const clock = new ManualClock();
  const backoff = new Backoff({ clock, jitter: 0 });
  backoff.next();
  backoff.next();
  await clock.advance(60);
  assertEquals(backoff.next(), 3.2, "failures a minute apart are one streak");
  await clock.advance(121);
  assertEquals(backoff.next(), 0.8, "two healthy minutes reset it");
  backoff.next();
  backoff.reset();
  assertEquals(backoff.next(), 0.8);
});
