import { assert, assertEquals } from "../../assert.ts";
import { Backlog } from "../../../src/reactor/queueing/backlog.ts";

Deno.test("the backlog congests at its limit and is relieved at half of it", async () => {
  const backlog = new Backlog(4);
  for (let i = 0; i < 3; i++) backlog.count(true, false);
  assertEquals([backlog.size, backlog.congestion], [3, undefined]);
  backlog.count(true, false);
  const congestion = backlog.congestion;
  assert(congestion instanceof Promise, "congested at the limit");
  let relieved = false;
  void congestion.then(() => (relieved = true));
  backlog.count(false, false);
  await Promise.resolve();
  assertEquals([backlog.size, relieved], [3, false]);
  backlog.count(false, false);
  await Promise.resolve();
  assertEquals([backlog.size, relieved, backlog.congestion], [2, true, undefined]);
});

Deno.test("a stopping queueing never congests its feeder", () => {
  const backlog = new Backlog(1);
  backlog.count(true, true);
  assertEquals([backlog.size, backlog.congestion], [1, undefined]);
});
