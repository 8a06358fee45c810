/**
 * The counting semaphore that bounds concurrent writes.
 */
import { assertEquals, assertRejects, assertThrows } from "../assert.ts";
import { Semaphore } from "../../src/structs/semaphores.ts";

Deno.test("at most `limit` holders; the others follow in arrival order", async () => {
  const semaphore = new Semaphore(2);
  const order: string[] = [];
  const gates = new Map<string, () => void>();
  const task = (name: string) =>
    semaphore.run(async () => {
      order.push(`start ${name}`);
      await new Promise<void>((resolve) => gates.set(name, resolve));
      order.push(`end ${name}`);
      return name;
    });
  const all = Promise.all(["a", "b", "c", "d"].map(task));
  await Promise.resolve();
  assertEquals([semaphore.active, semaphore.waiting], [2, 2]);
  gates.get("b")!();
  await new Promise((resolve) => setTimeout(resolve, 0));
  assertEquals(order, ["start a", "start b", "end b", "start c"]);
  gates.get("a")!();
  await new Promise((resolve) => setTimeout(resolve, 0));
  gates.get("c")!();
  gates.get("d")!();
  assertEquals(await all, ["a", "b", "c", "d"]);
  assertEquals([semaphore.active, semaphore.waiting], [0, 0]);
});

Deno.test("a failing holder frees its place; bad limits are refused", async () => {
  const semaphore = new Semaphore(1);
  await semaphore.run(() => Promise.reject(new Error("x"))).catch(() => {});
  assertEquals(await semaphore.run(() => Promise.resolve(1)), 1);
  assertEquals(semaphore.active, 0);
  assertThrows(() => new Semaphore(0), RangeError);
});

Deno.test("a place taken with acquire() is given back once, however often released", async () => {
  const semaphore = new Semaphore(1);
  const release = await semaphore.acquire();
  const next = semaphore.acquire();
  assertEquals([semaphore.active, semaphore.waiting], [1, 1]);
  release();
  release(); // again, e.g. at the end after an early release: no extra place appears
  const releaseNext = await next;
  assertEquals([semaphore.active, semaphore.waiting], [1, 0]);
  releaseNext();
  assertEquals(semaphore.active, 0);
});

Deno.test("a live limit is read again whenever a place is asked for", async () => {
  let limit: number | null = 1;
  const semaphore = new Semaphore(() => limit);
  const first = await semaphore.acquire();
  const second = semaphore.acquire();
  assertEquals([semaphore.active, semaphore.waiting], [1, 1]);
  limit = 3;
  const third = await semaphore.acquire(); // the raised limit lets the waiter in first
  await second;
  assertEquals([semaphore.active, semaphore.waiting], [3, 0]);
  limit = null;
  const more = await Promise.all([1, 2, 3].map(() => semaphore.acquire()));
  assertEquals(semaphore.active, 6);
  for (const release of [first, third, ...more]) release();
  (await second)();
  assertEquals(semaphore.active, 0);
});

Deno.test("an abandoned wait takes no place and keeps the order of the others", async () => {
  const semaphore = new Semaphore(1);
  const release = await semaphore.acquire();
  const stop = new AbortController();
  const abandoned = semaphore.acquire(stop.signal);
  const next = semaphore.acquire();
  stop.abort(new Error("stopped"));
  await assertRejects(() => abandoned, Error, "stopped");
  assertEquals([semaphore.active, semaphore.waiting], [1, 1]);
  release();
  (await next)();
  assertEquals([semaphore.active, semaphore.waiting], [0, 0]);
  await assertRejects(() => semaphore.acquire(stop.signal), Error, "stopped");
  assertEquals(semaphore.active, 0);
});

Deno.test("with lanes, the first lane's waiters go first, until a second lane's has aged", async () => {
  let now = 0;
  const semaphore = new Semaphore(1, { handicaps: [0, 5], now: () => now });
  const order: string[] = [];
  const hold = await semaphore.acquire();
  const waitFor = (name: string, lane: number) =>
    semaphore.acquire(undefined, lane).then((release) => {
      order.push(name);
      release();
    });
  const listed = [waitFor("listed 1", 1), waitFor("listed 2", 1)];
  const live = [waitFor("live 1", 0), waitFor("live 2", 0)];
  hold();
  await Promise.all([...live, ...listed]);
  assertEquals(order, ["live 1", "live 2", "listed 1", "listed 2"]);
  // Aged: the second lane's waiter goes before newer first-lane ones.
  order.length = 0;
  const again = await semaphore.acquire();
  const old = waitFor("listed old", 1);
  now = 6;
  const fresh = waitFor("live fresh", 0);
  again();
  await Promise.all([old, fresh]);
  assertEquals(order, ["listed old", "live fresh"]);
  // Without lanes, a lane changes nothing: arrival order.
  const plain = new Semaphore(1);
  const first = await plain.acquire();
  const plainOrder: string[] = [];
  const a = plain.acquire(undefined, 1).then((r) => (plainOrder.push("a"), r()));
  const b = plain.acquire().then((r) => (plainOrder.push("b"), r()));
  first();
  await Promise.all([a, b]);
  assertEquals(plainOrder, ["a", "b"]);
});

Deno.test("within a lane, the tenants' waiters take turns; an abandoned wait leaves its turn", async () => {
  const semaphore = new Semaphore(1, { handicaps: [0], now: () => 0 });
  const order: string[] = [];
  const hold = await semaphore.acquire();
  const stop = new AbortController();
  const waits = [];
  for (let i = 1; i <= 3; i++) {
    waits.push(semaphore.acquire(undefined, 0, "a").then((r) => (order.push(`a${i}`), r())));
  }
  const gone = semaphore.acquire(stop.signal, 0, "b").catch(() => order.push("b gone"));
  for (let i = 1; i <= 2; i++) {
    waits.push(semaphore.acquire(undefined, 0, "b").then((r) => (order.push(`b${i}`), r())));
  }
  assertEquals(semaphore.waiting, 6);
  stop.abort();
  await gone;
  assertEquals(semaphore.waiting, 5, "the abandoned wait is out at once");
  hold();
  await Promise.all(waits);
  assertEquals(order, ["b gone", "a1", "b1", "a2", "b2", "a3"]);
});

Deno.test("tryAcquire takes a free place at once, and never one that a waiter is owed", async () => {
  const semaphore = new Semaphore(1);
  const release = semaphore.tryAcquire();
  assertEquals(typeof release, "function");
  assertEquals(semaphore.tryAcquire(), undefined, "full");
  const waiting = semaphore.acquire();
  release!();
  assertEquals(semaphore.tryAcquire(), undefined, "the freed place went to the waiter");
  (await waiting)();
  const again = semaphore.tryAcquire();
  assertEquals([typeof again, semaphore.active], ["function", 1]);
  again!();
  again!(); // twice: the place is given back once
  assertEquals(semaphore.active, 0);
});

Deno.test("wait() tells its holder: at once when free, in turn when given back, refused when abandoned", () => {
  const semaphore = new Semaphore(1);
  const told: string[] = [];
  const releases: (() => void)[] = [];
  const holder = (name: string) => ({
    granted: (release: () => void) => {
      told.push(`${name} granted`);
      releases.push(release);
    },
    refused: (reason: unknown) => told.push(`${name} refused: ${(reason as Error).message}`),
  });
  semaphore.wait(holder("a"));
  assertEquals(told, ["a granted"]); // before wait() returned: no promise in between
  const stop = new AbortController();
  semaphore.wait(holder("b"), stop.signal);
  semaphore.wait(holder("c"));
  assertEquals([semaphore.active, semaphore.waiting], [1, 2]);
  stop.abort(new Error("stopped"));
  assertEquals(told, ["a granted", "b refused: stopped"]);
  releases[0]();
  assertEquals(told, ["a granted", "b refused: stopped", "c granted"]);
  releases[1]();
  assertEquals([semaphore.active, semaphore.waiting], [0, 0]);
  semaphore.wait(holder("d"), stop.signal); // already aborted: refused at once, no place taken
  assertEquals(told.at(-1), "d refused: stopped");
  assertEquals(semaphore.active, 0);
});
