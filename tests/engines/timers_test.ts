/**
 * The schedule of a timer (`runTimer`) on virtual time: sleeping moves the time forward at
 * once, and each run takes as long as the test says.
 */
import { assertEquals } from "../assert.ts";
import type { TimerHandler } from "../../src/intents/handlers.ts";
import type { Outcome } from "../../src/handling/handler_progress.ts";
import { runTimer, type TimerRun } from "../../src/engines/timers.ts";

interface Script {
  /** Timer options. */
  readonly interval?: number | null;
  readonly idle?: number | null;
  readonly sharp?: boolean;
  readonly initialDelay?: number | null;
  /** How long each run takes, in virtual seconds. */
  readonly runtime?: number;
  /** The outcome of the n-th run (0-based); success by default. */
  readonly outcome?: (n: number) => Outcome;
  /** Stop after this many runs. */
  readonly runs: number;
  /** Virtual times at which the object changes. */
  readonly changes?: readonly number[];
}

/** Run a timer on virtual time; the times at which its runs started, and whether it ended. */
async function schedule(script: Script): Promise<{ starts: number[]; ended: boolean }> {
  const handler = {
    kind: "timer",
    id: "tick",
    interval: script.interval ?? null,
    idle: script.idle ?? null,
    sharp: script.sharp ?? false,
    initialDelay: script.initialDelay ?? null,
  } as TimerHandler;
  let now = 0;
  let stopped = false;
  const starts: number[] = [];
  const changes = [0, ...(script.changes ?? [])];
  const run: TimerRun = {
    handler,
    now: () => now,
    sleep: (seconds) => {
      now += Math.max(0, seconds);
      return Promise.resolve();
    },
    get stopped() {
      return stopped;
    },
    get changedAt() {
      return Math.max(...changes.filter((t) => t <= now));
    },
    attempt: () => {
      starts.push(Math.round(now * 1000) / 1000);
      now += script.runtime ?? 0;
      const outcome = script.outcome?.(starts.length - 1) ?? { final: true };
      if (starts.length >= script.runs) stopped = true;
      return Promise.resolve(outcome);
    },
  };
  const ended = await runTimer(run);
  return { starts, ended };
}

Deno.test("a regular timer waits its interval after the end of each run", async () => {
  const { starts } = await schedule({ interval: 1, runtime: 0.3, runs: 3 });
  assertEquals(starts, [0, 1.3, 2.6]);
});

Deno.test("a sharp timer keeps to the grid of its interval, however long the runs take", async () => {
  assertEquals((await schedule({ interval: 1, sharp: true, runtime: 0.3, runs: 4 })).starts, [
    0,
    1,
    2,
    3,
  ]);
  // A run longer than the interval skips to the next point of the grid.
  assertEquals((await schedule({ interval: 1, sharp: true, runtime: 1.5, runs: 3 })).starts, [
    0,
    2,
    4,
  ]);
});

Deno.test("the initial delay comes once, before the first run", async () => {
  const { starts } = await schedule({ interval: 1, initialDelay: 5, runs: 3 });
  assertEquals(starts, [5, 6, 7]);
});

Deno.test("errors override the schedule with their delays; the interval follows a success", async () => {
  // Three failures retried after the backoff of 5 s, then a success and the 10 s interval.
  const outcome = (n: number): Outcome =>
    n % 4 < 3 ? { final: false, delay: 5, error: new Error("x") } : { final: true };
  const { starts, ended } = await schedule({ interval: 10, outcome, runs: 5 });
  assertEquals(starts, [0, 5, 10, 15, 25]);
  assertEquals(ended, false);
});

Deno.test("a permanent failure ends the timer for good", async () => {
  const outcome = (n: number): Outcome =>
    n === 1 ? { final: true, error: new Error("fatal") } : { final: true };
  const { starts, ended } = await schedule({ interval: 1, outcome, runs: 10 });
  assertEquals(starts, [0, 1]);
  assertEquals(ended, true);
});

Deno.test("an idling timer runs only when the object has been unchanged for its idle time", async () => {
  // Created at 0, changed at 2 and 3: the quiet period ends at 3 + 4 = 7.
  const idleOnly = await schedule({ idle: 4, changes: [2, 3], runs: 1 });
  assertEquals(idleOnly.starts, [4 + 3]);
  // With an interval too: every interval while nothing changes.
  const both = await schedule({ idle: 4, interval: 1, changes: [2], runs: 3 });
  assertEquals(both.starts, [6, 7, 8]);
  // Idle only, no interval: once per quiet period; a change starts another one.
  const again = await schedule({ idle: 2, changes: [10], runs: 2 });
  assertEquals(again.starts, [2, 12]);
});

Deno.test("without interval and idling, a timer runs once", async () => {
  const { starts, ended } = await schedule({ runs: 5 });
  assertEquals(starts, [0]);
  assertEquals(ended, true);
});

Deno.test("an idle wait that rounding leaves 0 s short of its end runs, instead of sleeping 0 s for ever", async () => {
  // now - changedAt < idle holds (3.9999999999999996 < 4) while changedAt + idle - now is 0.
  const changedAt = 0.7003561174719786;
  const handler = {
    kind: "timer",
    id: "tick",
    interval: null,
    idle: 4,
    sharp: false,
    initialDelay: null,
  };
  let sleeps = 0;
  let ran = false;
  const run: TimerRun = {
    handler: handler as TimerHandler,
    now: () => 4.700356117471978,
    sleep: () => {
      if (++sleeps > 100) throw new Error("sleeps 0 s again and again");
      return Promise.resolve();
    },
    stopped: false,
    changedAt,
    attempt: () => {
      ran = true;
      return Promise.resolve({ final: true, error: new Error("done") } as Outcome);
    },
  };
  assertEquals(await runTimer(run), true);
  assertEquals(ran, true);
  assertEquals(sleeps, 0);
});
