import { assert, assertEquals } from "../../assert.ts";
import { Backlog } from "../../../src/reactor/queueing/backlog.ts";

Deno.test("the backlog congests at its limit and is relieved at half of it", async () => {
  const backlog = new Backlog(4);
  for (let i = 0; i < 3; i++) backlog.count(true, false, false);
  assertEquals([backlog.size, backlog.congestion], [3, undefined]);
  backlog.count(true, false, false);
  const congestion = backlog.congestion;
  assert(congestion instanceof Promise, "congested at the limit");
  let relieved = false;
  void congestion.then(() => (relieved = true));
  backlog.count(false, false, false);
  await Promise.resolve();
  assertEquals([backlog.size, relieved], [3, false]);
  backlog.count(false, false, false);
  await Promise.resolve();
  assertEquals([backlog.size, relieved, backlog.congestion], [2, true, undefined]);
});

Deno.test("a stopping queueing never congests its feeder", () => {
  const backlog = new Backlog(1);
  backlog.count(true, true, true);
  assertEquals([backlog.size, backlog.congestion], [1, undefined]);
});

Deno.test("live events' objects congest only the live feeders, and only at the limit of their own", async () => {
  const backlog = new Backlog(4);
  for (let i = 0; i < 4; i++) backlog.count(true, false, false); // a listing fills it
  assert(backlog.congestion instanceof Promise, "the listing waits");
  assertEquals(backlog.liveCongestion, undefined, "live events do not");
  for (let i = 0; i < 3; i++) backlog.count(true, false, true);
  assertEquals(backlog.liveCongestion, undefined);
  backlog.count(true, false, true);
  const live = backlog.liveCongestion;
  assert(live instanceof Promise, "four live ones: the live feeders wait too");
  let relieved = false;
  void live.then(() => (relieved = true));
  backlog.count(false, false, true);
  backlog.count(false, false, true);
  await Promise.resolve();
  assertEquals([backlog.size, relieved, backlog.liveCongestion], [6, true, undefined]);
  assert(backlog.congestion instanceof Promise, "the listing still waits: 6 of 4");
  backlog.relieve();
  assertEquals([backlog.congestion, backlog.liveCongestion], [undefined, undefined]);
});

Deno.test("live events' objects congest at the burst limit, read when counted, far beyond the backlog's", async () => {
  let burstLimit = 10;
  const backlog = new Backlog(4, () => burstLimit);
  for (let i = 0; i < 9; i++) backlog.count(true, false, true);
  assert(backlog.congestion instanceof Promise, "a listing would wait");
  assertEquals(backlog.liveCongestion, undefined, "live events do not: 9 of 10");
  backlog.count(true, false, true);
  const live = backlog.liveCongestion;
  assert(live instanceof Promise, "10 of 10");
  let relieved = false;
  void live.then(() => (relieved = true));
  for (let i = 0; i < 4; i++) backlog.count(false, false, true);
  await Promise.resolve();
  assertEquals([backlog.size, relieved], [6, false], "above half of 10");
  burstLimit = 14; // a changed setting counts at the next count
  backlog.count(false, false, true);
  await Promise.resolve();
  assertEquals([backlog.size, relieved], [5, true], "at half of 14");
});
