/**
 * The fair queue: lanes by priority with handicaps (later, never starved), tenants in turn
 * within a lane, each tenant's items in arrival order, and removal from anywhere.
 */
import fc from "fast-check";
import { assert, assertEquals, assertThrows } from "../assert.ts";
import { FairItem, FairQueue } from "../../src/structs/fair_queues.ts";

class Item extends FairItem {
  constructor(readonly name: string) {
    super();
  }
}

function drain(queue: FairQueue<Item>): string[] {
  const names: string[] = [];
  for (let item = queue.shift(); item !== undefined; item = queue.shift()) names.push(item.name);
  return names;
}

Deno.test("one lane, one tenant: a plain FIFO", () => {
  const queue = new FairQueue<Item>();
  for (const name of ["a", "b", "c"]) queue.push(new Item(name));
  assertEquals(queue.size, 3);
  assertEquals(drain(queue), ["a", "b", "c"]);
  assertEquals([queue.size, queue.empty, queue.shift()], [0, true, undefined]);
});

Deno.test("within a lane, the tenants take turns, whoever came first and with however many", () => {
  const queue = new FairQueue<Item>();
  for (let i = 1; i <= 5; i++) queue.push(new Item(`a${i}`), 0, "a");
  queue.push(new Item("b1"), 0, "b");
  queue.push(new Item("b2"), 0, "b");
  queue.push(new Item("c1"), 0, "c");
  assertEquals(drain(queue), ["a1", "b1", "c1", "a2", "b2", "a3", "a4", "a5"]);
});

Deno.test("a tenant that comes during a round joins its end", () => {
  const queue = new FairQueue<Item>();
  for (let i = 1; i <= 3; i++) queue.push(new Item(`a${i}`), 0, "a");
  queue.push(new Item("b1"), 0, "b");
  assertEquals(queue.shift()?.name, "a1");
  queue.push(new Item("c1"), 0, "c"); // after everyone waiting: b, then a again
  assertEquals(drain(queue), ["b1", "a2", "c1", "a3"]);
});

Deno.test("lanes go by priority, and a lower lane's item goes first once its handicap has passed", () => {
  let now = 0;
  const queue = new FairQueue<Item>({ handicaps: [0, 2, 5], now: () => now });
  queue.push(new Item("listed"), 2);
  queue.push(new Item("retry"), 1);
  queue.push(new Item("live"), 0);
  assertEquals(drain(queue), ["live", "retry", "listed"]);
  queue.push(new Item("listed at 0"), 2);
  queue.push(new Item("retry at 0"), 1);
  now = 3;
  queue.push(new Item("live at 3"), 0);
  now = 6;
  queue.push(new Item("live at 6"), 0);
  // Due at: retry 2, live 3, listed 5, live 6.
  assertEquals(drain(queue), ["retry at 0", "live at 3", "listed at 0", "live at 6"]);
});

Deno.test("an item taken out anywhere leaves its lane and tenant whole", () => {
  const queue = new FairQueue<Item>({ handicaps: [0, 1], now: () => 0 });
  const items = ["a1", "a2", "a3", "b1"].map((name) => new Item(name));
  for (const item of items) queue.push(item, 0, item.name[0]);
  const lone = new Item("x1");
  queue.push(lone, 1, "x");
  queue.remove(items[1]); // a2: inside a tenant
  queue.remove(items[3]); // b1: a whole tenant
  queue.remove(lone); // a whole lane
  queue.remove(lone); // again: nothing happens
  assertEquals(queue.size, 2);
  assertEquals(drain(queue), ["a1", "a3"]);
  // A removed tenant comes back at the end of the round.
  queue.push(new Item("a4"), 0, "a");
  queue.push(new Item("b2"), 0, "b");
  queue.push(new Item("a5"), 0, "a");
  assertEquals(drain(queue), ["a4", "b2", "a5"]);
});

Deno.test("bad handicaps are refused; lanes beyond the last are the last", () => {
  assertThrows(() => new FairQueue({ handicaps: [], now: () => 0 }), RangeError);
  assertThrows(() => new FairQueue({ handicaps: [0, -1], now: () => 0 }), RangeError);
  const queue = new FairQueue<Item>({ handicaps: [0, 1], now: () => 0 });
  queue.push(new Item("far"), 7);
  queue.push(new Item("live"), 0);
  assertEquals(drain(queue), ["live", "far"]);
});

Deno.test("under a steady stream of live items, a listed one waits its handicap, not for ever", () => {
  let now = 0;
  const queue = new FairQueue<Item>({ handicaps: [0, 2, 5], now: () => now });
  queue.push(new Item("listed"), 2, "b");
  queue.push(new Item("live 0"), 0, "a");
  let servedAt: number | undefined;
  for (let tick = 1; tick <= 20 && servedAt === undefined; tick++) {
    queue.push(new Item(`live ${tick}`), 0, "a"); // one arrives as one is served: never empty
    if (queue.shift()!.name === "listed") servedAt = now;
    now++;
  }
  assertEquals(servedAt, 7, "after the live items that came within its 5 seconds (0 to 5)");
});

Deno.test("any arrivals: every item is served once, each tenant's in its order per lane", () => {
  // Items arrive one per tick in random lanes and tenants, one served every other tick: a
  // queue that grows, then drains.
  const arrival = fc.record({ lane: fc.integer({ min: 0, max: 2 }), tenant: fc.nat(3) });
  fc.assert(
    fc.property(fc.array(arrival, { minLength: 1, maxLength: 200 }), (arrivals) => {
      let now = 0;
      const queue = new FairQueue<Item>({ handicaps: [0, 2, 5], now: () => now });
      const order = new Map<string, string[]>();
      const served: string[] = [];
      const serve = () => {
        const item = queue.shift();
        if (item === undefined) return;
        served.push(item.name);
        const tenant = item.name.split(":")[0];
        assertEquals(order.get(tenant)!.shift(), item.name, "a tenant's items in order");
      };
      arrivals.forEach(({ lane, tenant }, i) => {
        // Per lane, a tenant's items must come out in order; key the order by both.
        const name = `${tenant}/${lane}:${i}`;
        const key = name.split(":")[0];
        order.set(key, [...(order.get(key) ?? []), name]);
        queue.push(new Item(name), lane, `${tenant}`);
        if (i % 2 === 1) serve(); // arrivals outpace service: the queue grows
        now++;
      });
      while (!queue.empty) {
        serve();
        now++;
      }
      assertEquals(new Set(served).size, arrivals.length, "each item once");
      assert(served.length === arrivals.length);
    }),
  );
});

Deno.test("an item moved up to a lane before its own joins it as it comes now", () => {
  let now = 0;
  const queue = new FairQueue<Item>({ handicaps: [0, 5], now: () => now });
  const listed = new Item("listed");
  queue.push(listed, 1, "a");
  now = 1;
  queue.push(new Item("live b"), 0, "b");
  assertEquals(queue.promote(listed, 1), false, "not to its own lane");
  now = 2;
  assertEquals(queue.promote(listed, 0), true);
  assertEquals(queue.promote(listed, 1), false, "never down");
  assertEquals([listed.lane, listed.since], [0, 2]);
  const other = new Item("other");
  queue.push(other, 1, "a");
  const stranger = new FairQueue<Item>({ handicaps: [0, 5], now: () => now });
  assertEquals(stranger.promote(other, 0), false, "not another queue's item");
  assertEquals(drain(queue), ["live b", "listed", "other"]);
});
