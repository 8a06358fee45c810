import { assert, assertEquals, assertRejects } from "../assert.ts";
import {
  Manager,
  type OperatorEvent,
  type RunContext,
  type Runnable,
} from "../../src/reactor/manager.ts";
import type { Logger } from "../../src/structs/loggers.ts";

const quiet: Logger = {
  debug: () => {},
  info: () => {},
  warning: () => {},
  error: () => {},
  exception: () => {},
} as unknown as Logger;

/** A runnable that records what happens to it in a shared journal. */
function recorder(
  journal: string[],
  name: string,
  after: readonly Runnable[] = [],
  extra: Partial<Runnable> = {},
): Runnable {
  return {
    name,
    after,
    start: () => void journal.push(`start ${name}`),
    halt: () => void journal.push(`halt ${name}`),
    stop: (budget) => void journal.push(`stop ${name} ${budget}`),
    ...extra,
  };
}

function manager(budget = 7): Manager {
  return new Manager({ logger: quiet, budget: () => budget });
}

/** A last runnable whose start tells that all before it have started. */
function allStarted(m: Manager): Promise<void> {
  let resolve!: () => void;
  const started = new Promise<void>((r) => (resolve = r));
  m.add({ name: "last", after: [], start: () => resolve() });
  return started;
}

Deno.test("runnables start in order, then all halt, then stop one by one in reverse", async () => {
  const journal: string[] = [];
  const m = manager();
  const a = m.add(recorder(journal, "a"));
  const b = m.add(recorder(journal, "b", [a]));
  m.add(recorder(journal, "c", [a, b]));
  const started = allStarted(m);
  const stop = new AbortController();
  const running = m.run(stop.signal);
  await started;
  assertEquals(journal, ["start a", "start b", "start c"]);
  stop.abort();
  await running;
  assertEquals(journal.slice(3), [
    "halt c",
    "halt b",
    "halt a",
    "stop c 7",
    "stop b 7",
    "stop a 7",
  ]);
});

Deno.test("a runnable cannot be added before the runnables it needs", () => {
  const m = manager();
  const a = recorder([], "a");
  let message = "";
  try {
    m.add(recorder([], "b", [a]));
  } catch (error) {
    message = (error as Error).message;
  }
  assertEquals(message, "The runnable b needs a, not added before it.");
});

Deno.test("a failing start stops what has started, and the run rejects with it", async () => {
  const journal: string[] = [];
  const m = manager();
  const a = m.add(recorder(journal, "a"));
  m.add(recorder(journal, "b", [a], {
    start: () => {
      journal.push("start b");
      throw new Error("cannot start b");
    },
  }));
  m.add(recorder(journal, "c"));
  await assertRejects(() => m.run(new AbortController().signal), Error, "cannot start b");
  // b is halted and stopped too: a stop must tolerate what did not start.
  assertEquals(journal, ["start a", "start b", "halt b", "halt a", "stop b 7", "stop a 7"]);
});

Deno.test("a runnable's failure while running stops all, and the run rejects with it", async () => {
  const journal: string[] = [];
  const m = manager();
  let context: RunContext | undefined;
  m.add(recorder(journal, "a", [], { start: (c) => void (context = c) }));
  m.add(recorder(journal, "b"));
  const started = allStarted(m);
  const running = m.run(new AbortController().signal);
  await started;
  assert(context !== undefined);
  context.fail(new Error("the server failed"));
  assertEquals(context.signal.aborted, true);
  await assertRejects(() => running, Error, "the server failed");
  assertEquals(journal, ["start b", "halt b", "halt a", "stop b 7", "stop a 7"]);
});

Deno.test("a failure after the stop was asked for is not the run's failure", async () => {
  const m = manager();
  let context: RunContext | undefined;
  m.add({ name: "a", after: [], start: (c) => void (context = c) });
  const started = allStarted(m);
  const stop = new AbortController();
  const running = m.run(stop.signal);
  await started;
  stop.abort();
  context!.fail(new Error("late"));
  await running; // resolves
});

Deno.test("events reach the reactions of running runnables; the announcer awaits them", async () => {
  const seen: string[] = [];
  const m = manager();
  let context: RunContext | undefined;
  let release!: () => void;
  const slow = new Promise<void>((resolve) => (release = resolve));
  const a = m.add({ name: "a", after: [], start: (c) => void (context = c) });
  m.add({
    name: "b",
    after: [a],
    reactions: {
      losing: async (event) => {
        seen.push(`b losing ${event.deadline}`);
        await slow;
        seen.push("b let go");
      },
      paused: () => void seen.push("b paused"),
    },
  });
  m.add({ name: "c", after: [a], reactions: { paused: () => void seen.push("c paused") } });
  const started = allStarted(m);
  const stop = new AbortController();
  const running = m.run(stop.signal);
  await started;
  await context!.announce({ type: "paused" });
  assertEquals(seen, ["b paused", "c paused"]);
  let announced = false;
  const losing: OperatorEvent = { type: "losing", deadline: 5, active: false };
  const done = context!.announce(losing).then(() => (announced = true));
  await Promise.resolve();
  assertEquals([seen.at(-1), announced], ["b losing 5", false]);
  release();
  await done;
  assertEquals(seen.at(-1), "b let go");
  stop.abort();
  await running;
  // Stopped runnables react no more.
  await context!.announce({ type: "paused" });
  assertEquals(seen.filter((s) => s.endsWith("paused")).length, 2);
});

Deno.test("a failing reaction fails the operator", async () => {
  const m = manager();
  let context: RunContext | undefined;
  const a = m.add({ name: "a", after: [], start: (c) => void (context = c) });
  m.add({
    name: "b",
    after: [a],
    reactions: {
      gained: () => {
        throw new Error("cannot serve");
      },
    },
  });
  const started = allStarted(m);
  const running = m.run(new AbortController().signal);
  await started;
  await context!.announce({ type: "gained" });
  await assertRejects(() => running, Error, "cannot serve");
});

Deno.test("what starts after a runnable runs within its enclosure", async () => {
  const m = manager();
  const inside: string[] = [];
  let depth = 0;
  const a = m.add({
    name: "a",
    after: [],
    enclose: <T>(fn: () => T): T => {
      depth++;
      try {
        return fn();
      } finally {
        depth--;
      }
    },
  });
  m.add({ name: "b", after: [a], start: () => void inside.push(`b at depth ${depth}`) });
  m.add({ name: "c", after: [a], start: () => void inside.push(`c at depth ${depth}`) });
  const started = allStarted(m);
  const stop = new AbortController();
  const running = m.run(stop.signal);
  await started;
  stop.abort();
  await running;
  assertEquals(inside, ["b at depth 1", "c at depth 1"]);
});

Deno.test("a stop asked for before the start starts nothing", async () => {
  const journal: string[] = [];
  const m = manager();
  m.add(recorder(journal, "a"));
  const stop = new AbortController();
  stop.abort();
  await m.run(stop.signal);
  assertEquals(journal, []);
});
