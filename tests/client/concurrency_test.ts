/**
 * The adaptive limit of requests in flight, on a clock moved by hand: how 429s and rising
 * latencies lower it, how answers raise it, the order of the waits, and a model API server
 * that admits a few requests at once, against which it settles below the server's limit.
 */
import { assert, assertEquals, assertRejects } from "../assert.ts";
import type { Clock } from "../../src/structs/clock.ts";
import { sleep } from "../../src/structs/clock.ts";
import {
  type ConcurrencyBounds,
  ConcurrencyLimiter,
  DEFERRED_AGING,
  type Permit,
} from "../../src/client/concurrency.ts";
import {
  currentRequestPriority,
  requestPriorityBinding,
  runWithRequestPriority,
} from "../../src/client/request_priorities.ts";
import { AsyncContext } from "../../src/platform/async_context.ts";
import type { RequestPriority } from "../../src/client/request_priorities.ts";
import { ManualClock } from "../clocks.ts";

function bounds(initial: number, min = 1, max = 256): ConcurrencyBounds {
  return { initialConcurrency: initial, minConcurrency: min, maxConcurrency: max };
}

/** Take `n` places at once (all free). */
async function take(limiter: ConcurrencyLimiter, n: number): Promise<Permit[]> {
  return await Promise.all(Array.from({ length: n }, () => limiter.acquire("live")));
}

Deno.test("a 429 lowers the limit to 0.7 of itself and below those in flight, once per round", async () => {
  const limiter = new ConcurrencyLimiter(bounds(16), new ManualClock());
  const permits = await take(limiter, 16);
  assertEquals([limiter.limit, limiter.inflight], [16, 16]);
  // The server admitted 4: the 5th and later were refused; only the first refusal counts.
  limiter.throttle(permits[4]);
  assertEquals(limiter.limit, 11);
  for (const permit of permits.slice(5)) limiter.throttle(permit);
  assertEquals(limiter.limit, 11, "the others of the same round are old news");
  assertEquals(limiter.throttled, 12);
  // And the answers of that round do not raise it either.
  for (const permit of permits.slice(0, 4)) limiter.answered(permit, true);
  assertEquals([limiter.limit, limiter.inflight], [11, 0]);
  // The next round: 11 sent, 4 admitted; the first 429 comes with 10 others in flight.
  const next = await take(limiter, 11);
  limiter.throttle(next[10]);
  assertEquals(limiter.limit, 7, "0.7 of 11");
  for (const permit of next) permit.release();
  // With few in flight, the ceiling is what bounds it: 3 in flight, 2 others.
  const few = await take(limiter, 3);
  limiter.throttle(few[2]);
  assertEquals(limiter.limit, 2);
  for (const permit of few) permit.release();
});

Deno.test("answers raise the limit by one per round, only while it is in use", async () => {
  const limiter = new ConcurrencyLimiter(bounds(4), new ManualClock());
  // Under half in use (1 of 4): no growth however many answers.
  for (let i = 0; i < 50; i++) limiter.answered(await limiter.acquire("live"), false);
  assertEquals(limiter.limit, 4);
  // In use: a round of `limit` answers adds one.
  const rounds: number[] = [];
  for (let round = 0; round < 3; round++) {
    const permits = await take(limiter, limiter.limit);
    for (const permit of permits) limiter.answered(permit, false);
    rounds.push(limiter.limit);
  }
  // The places filled one by one: those admitted with under half in use do not count.
  assert(rounds[2] > 4, `grew: ${rounds}`);
  assert(rounds[2] <= 7, `at most one per round: ${rounds}`);
});

Deno.test("above the ceiling a 429 showed, the limit is probed slowly, and half as often after each failed probe", async () => {
  const limiter = new ConcurrencyLimiter(bounds(8), new ManualClock());
  // The server admits 4.
  const first = await take(limiter, 5);
  limiter.throttle(first[4]);
  for (const permit of first.slice(0, 4)) limiter.failed(permit);
  assertEquals(limiter.limit, 4);
  /** Answers (in full rounds) until the limit passes 4, then the refused probe. */
  const probe = async (): Promise<number> => {
    let answers = 0;
    while (limiter.limit <= 4) {
      const permits = await take(limiter, limiter.limit);
      for (const permit of permits) {
        limiter.answered(permit, false);
        answers++;
      }
    }
    const permits = await take(limiter, limiter.limit);
    limiter.throttle(permits[4]); // the fifth in flight is refused again
    for (const permit of permits) permit.release();
    return answers;
  };
  const spans = [await probe(), await probe(), await probe()];
  // Each refused probe at the same ceiling doubles the answers before the next (by `bound`
  // answers only: one of each round of 4 took the last place, plus the way back from 3).
  assert(spans[1] > spans[0] * 1.7 && spans[2] > spans[1] * 1.7, `spans: ${spans}`);
  assertEquals(limiter.limit, 3, "a refused probe steps back below the ceiling");
});

Deno.test("rising latencies of writes lower the limit; reads are not sampled", async () => {
  const clock = new ManualClock();
  const limiter = new ConcurrencyLimiter(bounds(10), clock);
  const answerAll = async (latency: number, sampled: boolean) => {
    const permits = await take(limiter, limiter.limit);
    await clock.advance(latency);
    for (const permit of permits) limiter.answered(permit, sampled);
  };
  for (let i = 0; i < 5; i++) await answerAll(0.005, true); // a baseline of 5 ms
  const before = limiter.limit;
  for (let i = 0; i < 5; i++) await answerAll(0.5, false); // slow lists: no sample
  assert(limiter.limit >= before, "slow reads say nothing");
  for (let i = 0; i < 10; i++) await answerAll(0.2, true); // writes now take 40 times as long
  assert(limiter.limit < before, `lowered: ${before} → ${limiter.limit}`);
  // A small rise (under 10 ms) is noise, even at twice the baseline.
  const quiet = new ConcurrencyLimiter(bounds(10), clock);
  const permits = await take(quiet, 10);
  for (const permit of permits.slice(0, 5)) quiet.answered(permit, true);
  await clock.advance(0.008);
  for (const permit of permits.slice(5)) quiet.answered(permit, true);
  assertEquals(quiet.limit, 10);
});

Deno.test("the bounds hold, and are read when the limit changes", async () => {
  const live = { initialConcurrency: 50, minConcurrency: 2, maxConcurrency: 20 };
  const limiter = new ConcurrencyLimiter(live, new ManualClock());
  assertEquals(limiter.limit, 20, "the initial limit is within the bounds");
  const [alone] = await take(limiter, 1);
  limiter.throttle(alone); // refused with none other in flight
  assertEquals(limiter.limit, 2, "never below the minimum");
  live.minConcurrency = live.maxConcurrency = 6;
  assertEquals(limiter.limit, 6, "a fixed limit, set live");
});

Deno.test("waits: live requests go before deferred ones, unless those have aged", async () => {
  const clock = new ManualClock();
  const limiter = new ConcurrencyLimiter(bounds(1, 1, 1), clock);
  const [held] = await take(limiter, 1);
  const order: string[] = [];
  const wait = (name: string, priority: RequestPriority) =>
    limiter.acquire(priority).then((permit) => {
      order.push(name);
      return permit;
    });
  const deferred = wait("deferred", "deferred");
  const live = wait("live", "live");
  assertEquals(limiter.waiting, 2);
  limiter.answered(held, false);
  limiter.answered(await live, false);
  limiter.answered(await deferred, false);
  assertEquals(order, ["live", "deferred"]);
  // Aged: a deferred request goes before a live one that came more than its handicap later.
  const [again] = await take(limiter, 1);
  const old = wait("old deferred", "deferred");
  await clock.advance(DEFERRED_AGING + 1);
  const fresh = wait("fresh live", "live");
  again.release();
  (await old).release();
  (await fresh).release();
  assertEquals(order.slice(2), ["old deferred", "fresh live"]);
});

Deno.test("an abandoned wait rejects with the signal's reason and takes no place", async () => {
  const limiter = new ConcurrencyLimiter(bounds(1, 1, 1), new ManualClock());
  const [held] = await take(limiter, 1);
  const stop = new AbortController();
  const waiting = limiter.acquire("live", stop.signal);
  stop.abort(new Error("stopped"));
  await assertRejects(() => waiting, Error, "stopped");
  held.release();
  assertEquals([limiter.inflight, limiter.waiting], [0, 0]);
});

Deno.test("the priority follows the flow of calls; requests made outside any are live", async () => {
  assertEquals(currentRequestPriority(), "live");
  const seen = await runWithRequestPriority("deferred", async () => {
    await Promise.resolve();
    return [currentRequestPriority(), runWithRequestPriority("live", currentRequestPriority)];
  });
  assertEquals(seen, ["deferred", "live"]);
  const bound = AsyncContext.runAll([requestPriorityBinding("deferred")], currentRequestPriority);
  assertEquals(bound, "deferred");
});

/** Virtual time for the model: timers in order, the promise jobs run between them. */
class ModelClock implements Clock {
  #now = 0;
  #seq = 0;
  readonly #timers: { at: number; seq: number; fire: () => void }[] = [];
  now = (): number => this.#now;
  wall = (): number => this.#now * 1000;
  schedule = (seconds: number, fire: () => void): () => void => {
    const timer = { at: this.#now + Math.max(0, seconds), seq: this.#seq++, fire };
    this.#timers.push(timer);
    return () => {
      const index = this.#timers.indexOf(timer);
      if (index >= 0) this.#timers.splice(index, 1);
    };
  };

  /** Fire the timers in order until `done()`; the promise jobs run between timers. */
  async run(done: () => boolean): Promise<void> {
    for (;;) {
      for (let i = 0; i < 20; i++) await null; // the jobs a timer starts, to their next wait
      if (done()) return;
      if (this.#timers.length === 0) throw new Error("the model stalled");
      let next = 0;
      for (let i = 1; i < this.#timers.length; i++) {
        const [a, b] = [this.#timers[i], this.#timers[next]];
        if (a.at < b.at || (a.at === b.at && a.seq < b.seq)) next = i;
      }
      const [timer] = this.#timers.splice(next, 1);
      this.#now = Math.max(this.#now, timer.at);
      timer.fire();
    }
  }
}

/**
 * A model API server executing `capacity` requests at once, each for `service` seconds,
 * queueing up to `queued` more and refusing the rest with 429 and `Retry-After: 1`; `tasks`
 * callers send `requests` in all through the limiter.
 */
async function model(options: {
  capacity: number;
  queued: number;
  tasks: number;
  requests: number;
  service: number;
}): Promise<{ throttled: number; sent: number; seconds: number; peak: number }> {
  const clock = new ModelClock();
  const limiter = new ConcurrencyLimiter(bounds(8), clock);
  let executing = 0;
  let peak = 0;
  const queue: (() => void)[] = [];
  let left = options.requests;
  let done = 0;
  let sent = 0;
  let throttled = 0;
  const serve = async (): Promise<boolean> => {
    if (executing >= options.capacity) {
      if (queue.length >= options.queued) return false;
      await new Promise<void>((resolve) => queue.push(resolve));
    } else executing++;
    peak = Math.max(peak, executing);
    await sleep(options.service, undefined, clock);
    const next = queue.shift();
    if (next !== undefined) next(); // its seat passes on
    else executing--;
    return true;
  };
  const task = async () => {
    while (left > 0) {
      left--;
      for (;;) {
        const permit = await limiter.acquire("live");
        sent++;
        if (await serve()) {
          limiter.answered(permit, true);
          break;
        }
        throttled++;
        limiter.throttle(permit);
        await sleep(1, undefined, clock);
      }
      done++;
    }
  };
  const tasks = Array.from({ length: options.tasks }, task);
  await clock.run(() => done === options.requests);
  await Promise.all(tasks);
  return { throttled, sent, seconds: clock.now(), peak };
}

Deno.test("against a server that admits 4 at once without a queue: ≤ 1% throttled, near its pace", async () => {
  const { throttled, sent, seconds, peak } = await model({
    capacity: 4,
    queued: 0,
    tasks: 300,
    requests: 3000,
    service: 0.01,
  });
  const best = 3000 * 0.01 / 4; // 4 at a time, back to back
  assert(throttled / sent <= 0.01, `${throttled} of ${sent} throttled`);
  assert(seconds <= best * 1.3, `${seconds.toFixed(2)} s, the server's pace: ${best} s`);
  assertEquals(peak, 4);
});

Deno.test("against a server that queues: its queue is not filled for long, and nothing is lost", async () => {
  const { throttled, sent, seconds } = await model({
    capacity: 4,
    queued: 4,
    tasks: 300,
    requests: 3000,
    service: 0.02,
  });
  const best = 3000 * 0.02 / 4;
  assert(throttled / sent <= 0.01, `${throttled} of ${sent} throttled`);
  assert(seconds <= best * 1.3, `${seconds.toFixed(2)} s, the server's pace: ${best} s`);
});
