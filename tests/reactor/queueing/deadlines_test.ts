import { assertEquals } from "../../assert.ts";
import { Deadlines, type Scheduled } from "../../../src/reactor/queueing/deadlines.ts";
import { ManualClock } from "../../clocks.ts";

interface Item extends Scheduled {
  readonly name: string;
}

function item(name: string): Item {
  return { name, deadline: 0, slot: -1 };
}

function setup() {
  const clock = new ManualClock();
  const fired: string[] = [];
  const deadlines = new Deadlines<Item>(clock, (i) => fired.push(`${i.name}@${clock.now()}`));
  return { clock, fired, deadlines };
}

Deno.test("items fire in deadline order, each once, on a single timer", async () => {
  const { clock, fired, deadlines } = setup();
  const names = ["e", "b", "d", "a", "c", "f", "g", "h"];
  const times = [5, 2, 4, 1, 3, 6, 7, 8];
  names.forEach((name, i) => deadlines.schedule(item(name), times[i]));
  assertEquals(clock.sleepers, 1, "one timer, whatever the number of items");
  await clock.advance(4.5);
  assertEquals(fired, ["a@1", "b@2", "c@3", "d@4"]);
  await clock.advance(10);
  assertEquals(fired.length, 8);
  assertEquals(fired.slice(4), ["e@5", "f@6", "g@7", "h@8"]);
  assertEquals([deadlines.size, clock.sleepers], [0, 0]);
});

Deno.test("rescheduling moves an item either way; cancelling removes it", async () => {
  const { clock, fired, deadlines } = setup();
  const [a, b, c] = [item("a"), item("b"), item("c")];
  deadlines.schedule(a, 1);
  deadlines.schedule(b, 2);
  deadlines.schedule(c, 3);
  deadlines.schedule(a, 5); // later
  deadlines.schedule(c, 0.5); // earlier
  deadlines.cancel(b);
  deadlines.cancel(b); // twice: nothing happens
  await clock.advance(10);
  assertEquals(fired, ["c@0.5", "a@5"]);
  assertEquals([a.slot, b.slot, c.slot], [-1, -1, -1]);
});

Deno.test("a due callback may schedule again; clear stops everything", async () => {
  const clock = new ManualClock();
  const fired: number[] = [];
  const again = item("again");
  const deadlines = new Deadlines<Item>(clock, (i) => {
    fired.push(clock.now());
    if (fired.length < 3) deadlines.schedule(i, clock.now() + 2);
  });
  deadlines.schedule(again, 1);
  await clock.advance(10);
  assertEquals(fired, [1, 3, 5]);
  deadlines.schedule(item("x"), 20);
  deadlines.schedule(item("y"), 30);
  deadlines.clear();
  assertEquals([deadlines.size, clock.sleepers], [0, 0]);
  await clock.advance(30);
  assertEquals(fired, [1, 3, 5]);
});

Deno.test("many items in random order come out sorted", async () => {
  const { clock, fired, deadlines } = setup();
  const times = Array.from({ length: 200 }, (_, i) => (i * 7919) % 200 + 1);
  const items = times.map((t) => item(String(t)));
  items.forEach((it, i) => deadlines.schedule(it, times[i]));
  for (const it of items.filter((_, i) => i % 3 === 0)) deadlines.cancel(it);
  await clock.advance(500);
  const got = fired.map((f) => Number(f.split("@")[0]));
  assertEquals(got, [...got].sort((x, y) => x - y));
  assertEquals(got.length, items.length - Math.ceil(items.length / 3));
});

Deno.test("a timer is armed again only for an earlier deadline; one due later keeps it", async () => {
  const { clock, fired, deadlines } = setup();
  const schedule = clock.schedule.bind(clock);
  let armed = 0;
  clock.schedule = (seconds, callback) => {
    armed++;
    return schedule(seconds, callback);
  };
  const [a, b] = [item("a"), item("b")];
  deadlines.schedule(a, 1);
  deadlines.schedule(b, 5);
  deadlines.cancel(a); // the earliest goes: its timer stays, to fire for nothing
  deadlines.schedule(b, 6); // later still: the same
  assertEquals(armed, 1);
  deadlines.schedule(item("c"), 0.5); // earlier: armed again
  assertEquals(armed, 2);
  await clock.advance(10);
  assertEquals(fired, ["c@0.5", "b@6"]);
  assertEquals(clock.sleepers, 0);
  deadlines.schedule(a, 20);
  deadlines.cancel(a); // none left: no timer
  assertEquals(clock.sleepers, 0);
});
