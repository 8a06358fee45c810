import { assert, assertEquals, assertStringIncludes } from "../../assert.ts";
import { Resource } from "../../../src/structs/resources.ts";
import type { ObservedEvent, RawBody, WatchEventType } from "../../../src/structs/bodies.ts";
import type { BatchingSettings } from "../../../src/settings/processing_settings.ts";
import { QueueingSettings } from "../../../src/settings/queueing_settings.ts";
import { Multiplexer } from "../../../src/reactor/queueing/multiplexer.ts";
import { ObjectTable } from "../../../src/reactor/objects/object_table.ts";
import { deferredEvent } from "../../../src/reactor/objects/deferred_states.ts";
import type { ProcessingContext } from "../../../src/reactor/queueing/workers.ts";
import type { Reconciliation } from "../../../src/reactor/pipeline/object_processing.ts";
import { deferred, ManualClock, settle } from "../../clocks.ts";
import { RecordingLogger } from "../recording_logger.ts";

const KEX = new Resource({ group: "kopf.dev", version: "v1", plural: "kopfexamples" });
const PODS = new Resource({ group: "", version: "v1", plural: "pods" });

function body(uid: string, rv: string, extra: Record<string, string> = {}): RawBody {
  return {
    metadata: { uid, name: `n-${uid}`, namespace: "ns", resourceVersion: rv },
    spec: { ...extra },
  };
}

function ev(uid: string, rv: string, type: WatchEventType | null = "MODIFIED"): ObservedEvent {
  return { type, object: body(uid, rv) };
}

/** The exit timeout the operator's manager gives the queueing's shutdown here. */
const EXIT_TIMEOUT = 5;

function settings(overrides: Partial<BatchingSettings> = {}): BatchingSettings {
  return {
    batchWindow: 0,
    idleTimeout: 10,
    workerLimit: null,
    exitTimeout: EXIT_TIMEOUT,
    errorDelays: [],
    ...overrides,
  };
}

/** A processor whose calls are recorded and may be held until released by the test. */
class Script {
  readonly seen: string[] = [];
  /** The states processed, as the processor got them. */
  readonly events: ObservedEvent[] = [];
  readonly contexts: ProcessingContext[] = [];
  readonly #gates = new Map<string, ReturnType<typeof deferred<Reconciliation | void>>>();
  #holding = false;
  active = 0;
  maxActive = 0;

  /** From now on, each call waits for {@link release} of its `uid@rv`. */
  hold(): void {
    this.#holding = true;
  }

  release(id: string, result?: Reconciliation | Error): void {
    const gate = this.#gate(id);
    if (result instanceof Error) gate.reject(result);
    else gate.resolve(result);
  }

  #gate(id: string) {
    let gate = this.#gates.get(id);
    if (gate === undefined) this.#gates.set(id, gate = deferred<Reconciliation | void>());
    return gate;
  }

  readonly processor = async (event: ObservedEvent, ctx: ProcessingContext) => {
    const id = `${event.object.metadata?.uid}@${event.object.metadata?.resourceVersion}`;
    this.seen.push(event.type === null ? `${id}:listed` : id);
    this.events.push(event);
    this.contexts.push(ctx);
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    try {
      if (this.#holding) return await this.#gate(id).promise;
    } finally {
      this.active--;
    }
  };
}

function setup(
  batching: Partial<BatchingSettings> = {},
  consistencyTimeout?: number,
  processor?: (event: ObservedEvent, ctx: ProcessingContext) => Promise<Reconciliation | void>,
) {
  const clock = new ManualClock();
  const logger = new RecordingLogger();
  const script = new Script();
  const objects = new ObjectTable({});
  const mux = new Multiplexer({
    processor: { reconcile: processor ?? script.processor },
    batching: settings(batching),
    persistence: consistencyTimeout === undefined ? undefined : { consistencyTimeout },
    clock,
    logger,
    objects,
  });
  return { clock, logger, script, mux, objects };
}

async function stop(mux: Multiplexer, clock: ManualClock): Promise<void> {
  const done = mux.shutdown(EXIT_TIMEOUT);
  await clock.advance(100);
  await done;
  assertEquals(mux.size, 0);
}

Deno.test("events of one object are processed in arrival order, one at a time", async () => {
  const { clock, script, mux } = setup();
  mux.push(KEX, ev("a", "1"));
  await settle();
  mux.push(KEX, ev("a", "2"));
  await settle();
  mux.push(KEX, ev("a", "3"));
  await settle();
  assertEquals(script.seen, ["a@1", "a@2", "a@3"]);
  assertEquals(script.maxActive, 1);
  await stop(mux, clock);
});

Deno.test("different objects are processed concurrently", async () => {
  const { clock, script, mux } = setup();
  script.hold();
  mux.push(KEX, ev("a", "1"));
  mux.push(KEX, ev("b", "1"));
  await settle();
  assertEquals(script.seen, ["a@1", "b@1"]);
  assertEquals(script.active, 2, "b does not wait for a");
  script.release("a@1");
  script.release("b@1");
  await stop(mux, clock);
});

Deno.test("while an object is busy, only its latest event waits; older ones are dropped", async () => {
  const { clock, script, mux } = setup();
  script.hold();
  mux.push(KEX, ev("a", "1"));
  await settle();
  mux.push(KEX, ev("a", "2"));
  mux.push(KEX, ev("a", "3"));
  mux.push(KEX, ev("a", "4"));
  script.release("a@1");
  script.release("a@4");
  await settle();
  assertEquals(script.seen, ["a@1", "a@4"]);
  await stop(mux, clock);
});

Deno.test("the batch window coalesces a burst and restarts with every arrival", async () => {
  const { clock, script, mux } = setup({ batchWindow: 1 });
  mux.push(KEX, ev("a", "1"));
  mux.push(KEX, ev("a", "2"));
  await clock.advance(0.5);
  mux.push(KEX, ev("a", "3"));
  await clock.advance(0.9);
  assertEquals(script.seen, [], "the window restarted at 0.5s, so nothing is processed at 1.4s");
  await clock.advance(0.2);
  assertEquals(script.seen, ["a@3"]);
  await stop(mux, clock);
});

Deno.test("the same uid in two resources are two objects", async () => {
  const { clock, script, mux } = setup();
  script.hold();
  mux.push(KEX, ev("x", "1"));
  mux.push(PODS, ev("x", "1"));
  await settle();
  assertEquals(script.active, 2);
  assertEquals(mux.size, 2);
  assert(mux.has(KEX, body("x", "1")) && mux.has(PODS, body("x", "1")));
  script.release("x@1");
  await stop(mux, clock);
});

Deno.test("a worker ends after idling and leaves nothing behind; a new event starts a new one", async () => {
  const { clock, script, mux } = setup({ idleTimeout: 3 });
  mux.push(KEX, ev("a", "1"));
  await clock.advance(2.9);
  assertEquals(mux.size, 1);
  assert(mux.has(KEX, body("a", "1")));
  await clock.advance(0.2);
  assertEquals(mux.size, 0);
  assert(!mux.has(KEX, body("a", "1")));
  assertEquals(clock.sleepers, 0, "no timers are left behind");
  mux.push(KEX, ev("a", "2"));
  await settle();
  assertEquals(script.seen, ["a@1", "a@2"]);
  await stop(mux, clock);
});

Deno.test("an object's worker is kept on its record in the object table, which goes with it", async () => {
  const { clock, mux, objects } = setup({ idleTimeout: 3 });
  const watched = objects.entry(KEX, body("w", "1"));
  watched.tell("1");
  mux.push(KEX, ev("w", "1"));
  mux.push(KEX, ev("u", "1")); // an object no watch knows: a record for its work alone
  await settle();
  assert(
    objects.get(KEX, "ns", "w")?.work !== undefined &&
      objects.get(KEX, "ns", "u")?.work !== undefined,
  );
  await clock.advance(3.1);
  assertEquals(mux.size, 0);
  assert(
    objects.get(KEX, "ns", "w") === watched && watched.work === undefined,
    "the watch keeps it",
  );
  assertEquals(objects.get(KEX, "ns", "u"), undefined, "nothing keeps it any more");
});

Deno.test("an event arriving during the idle wait keeps the worker alive", async () => {
  const { clock, script, mux } = setup({ idleTimeout: 3 });
  mux.push(KEX, ev("a", "1"));
  await clock.advance(2);
  mux.push(KEX, ev("a", "2"));
  await clock.advance(2);
  assertEquals(mux.size, 1, "the idle time restarted after the second event");
  await clock.advance(1.1);
  assertEquals(mux.size, 0);
  assertEquals(script.seen, ["a@1", "a@2"]);
});

Deno.test("a deleted object's worker ends at once", async () => {
  const { clock, script, mux } = setup({ idleTimeout: 100 });
  mux.push(KEX, ev("a", "1", "DELETED"));
  await settle();
  assertEquals(script.seen, ["a@1"]);
  assertEquals(mux.size, 0);
  await mux.depleted();
  await stop(mux, clock);
});

Deno.test("listed objects are delivered with a null type", async () => {
  const { clock, script, mux } = setup();
  mux.push(KEX, ev("a", "1", null));
  await settle();
  assertEquals(script.seen, ["a@1:listed"]);
  await stop(mux, clock);
});

Deno.test("the worker limit caps concurrent processing, first come first served", async () => {
  const { clock, script, mux } = setup({ workerLimit: 2 });
  script.hold();
  for (const uid of ["a", "b", "c", "d"]) mux.push(KEX, ev(uid, "1"));
  await settle();
  assertEquals(script.seen, ["a@1", "b@1"]);
  script.release("b@1");
  await settle();
  assertEquals(script.seen, ["a@1", "b@1", "c@1"]);
  assertEquals(script.active, 2);
  script.release("a@1");
  script.release("c@1");
  script.release("d@1");
  await settle();
  assertEquals(script.seen, ["a@1", "b@1", "c@1", "d@1"]);
  assertEquals(script.maxActive, 2);
  await stop(mux, clock);
});

Deno.test("without a worker limit, all objects are processed at once (up to the start limit)", async () => {
  const { clock, script, mux } = setup({ workerLimit: null });
  script.hold();
  for (let i = 0; i < 20; i++) mux.push(KEX, ev(`o${i}`, "1"));
  await settle();
  assertEquals(script.active, 20);
  for (let i = 0; i < 20; i++) script.release(`o${i}@1`);
  await stop(mux, clock);
});

Deno.test("the shutdown lets busy workers finish within the exit timeout", async () => {
  const { clock, script, mux } = setup({ exitTimeout: 5 });
  script.hold();
  mux.push(KEX, ev("a", "1"));
  await settle();
  let stopped = false;
  const done = mux.shutdown(EXIT_TIMEOUT).then(() => stopped = true);
  await clock.advance(4);
  assertEquals(stopped, false);
  assertEquals(script.contexts[0].stopping.aborted, true);
  assertEquals(script.contexts[0].signal.aborted, false);
  script.release("a@1");
  await done;
  assertEquals(script.contexts[0].signal.aborted, false, "never aborted: it finished in time");
  assertEquals(mux.size, 0);
});

Deno.test("the shutdown aborts the processing after the exit timeout", async () => {
  const logger = new RecordingLogger();
  const clock = new ManualClock();
  let aborted = false;
  const mux = new Multiplexer({
    batching: settings({ exitTimeout: 5, errorDelays: [1] }),
    clock,
    logger,
    processor: {
      reconcile: (_event, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener("abort", () => {
            aborted = true;
            reject(new Error("aborted"));
          });
        }),
    },
  });
  mux.push(KEX, ev("a", "1"));
  await settle();
  const done = mux.shutdown(EXIT_TIMEOUT);
  await clock.advance(4.9);
  assertEquals(aborted, false);
  await clock.advance(0.2);
  await done;
  assertEquals(aborted, true);
  assertEquals(mux.size, 0);
  assertEquals(logger.at("warning").length, 1);
  assertEquals(logger.at("error").length, 0, "an aborted processing is not reported as a failure");
});

Deno.test("during the shutdown, workers finish their waiting events but no new objects start", async () => {
  const { clock, script, mux } = setup({ batchWindow: 1 });
  script.hold();
  mux.push(KEX, ev("a", "1"));
  await clock.advance(1);
  assertEquals(script.seen, ["a@1"]);
  mux.push(KEX, ev("a", "2"));
  const done = mux.shutdown(EXIT_TIMEOUT);
  mux.push(KEX, ev("b", "1"));
  mux.push(KEX, ev("a", "3"));
  script.release("a@1");
  script.release("a@3");
  await settle();
  assertEquals(script.seen, ["a@1", "a@3"], "no batch window at exit; b was not started");
  await done;
  assertEquals(mux.size, 0);
});

Deno.test("unexpected errors are retried along the error delays, repeating the last one", async () => {
  let failing = true;
  const times: number[] = [];
  const clock = new ManualClock();
  const logger = new RecordingLogger();
  const mux = new Multiplexer({
    batching: settings({ errorDelays: [1, 2] }),
    clock,
    logger,
    processor: {
      reconcile: () => {
        times.push(clock.now());
        if (failing) return Promise.reject(new Error("boom"));
        return Promise.resolve();
      },
    },
  });
  mux.push(KEX, ev("a", "1"));
  await clock.advance(5.5);
  assertEquals(times, [0, 1, 3, 5]);
  failing = false;
  await clock.advance(2);
  assertEquals(times, [0, 1, 3, 5, 7]);
  assertEquals(logger.at("error").length, 4);
  assertStringIncludes(logger.at("error")[0], "retrying in 1s");
  assertStringIncludes(logger.at("error")[0], "boom");
  // A success starts the delays over.
  failing = true;
  mux.push(KEX, ev("a", "2"));
  await clock.advance(1.5);
  assertEquals(times, [0, 1, 3, 5, 7, 7.5, 8.5], "1s again, then 2s");
  failing = false;
  await clock.advance(1.4);
  assertEquals(times.length, 7);
  await clock.advance(0.2);
  assertEquals(times, [0, 1, 3, 5, 7, 7.5, 8.5, 10.5]);
  await stop(mux, clock);
});

Deno.test("a newer event during the error delay is retried instead, and not earlier", async () => {
  const seen: string[] = [];
  const clock = new ManualClock();
  const mux = new Multiplexer({
    batching: settings({ errorDelays: [10] }),
    clock,
    logger: new RecordingLogger(),
    processor: {
      reconcile: (event) => {
        seen.push(`${event.object.metadata?.resourceVersion}@${clock.now()}`);
        return seen.length === 1 ? Promise.reject(new Error("boom")) : Promise.resolve();
      },
    },
  });
  mux.push(KEX, ev("a", "1"));
  await clock.advance(3);
  mux.push(KEX, ev("a", "2"));
  await clock.advance(6);
  assertEquals(seen, ["1@0"], "the throttling is not cut short by new events");
  await clock.advance(2);
  assertEquals(seen, ["1@0", "2@10"]);
  await stop(mux, clock);
});

Deno.test("with no error delays, a failed state is not retried; the next event is processed", async () => {
  const seen: string[] = [];
  const logger = new RecordingLogger();
  const clock = new ManualClock();
  const mux = new Multiplexer({
    batching: settings({ errorDelays: [] }),
    clock,
    logger,
    processor: {
      reconcile: (event) => {
        seen.push(event.object.metadata!.resourceVersion!);
        return Promise.reject("not an error object");
      },
    },
  });
  mux.push(KEX, ev("a", "1"));
  await clock.advance(100);
  assertEquals(seen, ["1"]);
  assertStringIncludes(logger.at("error")[0], "waiting for its next change");
  assertStringIncludes(logger.at("error")[0], "waiting for its next change: not an error object");
  assert(!logger.at("error")[0].includes("Non-error"), "a thrown string reads as what it says");
  mux.push(KEX, ev("a", "2"));
  await settle();
  assertEquals(seen, ["1", "2"]);
  await stop(mux, clock);
});

Deno.test("a shutdown during the error delay ends the worker without a retry", async () => {
  let calls = 0;
  const clock = new ManualClock();
  const mux = new Multiplexer({
    batching: settings({ errorDelays: [30] }),
    clock,
    logger: new RecordingLogger(),
    processor: {
      reconcile: () => {
        calls++;
        return Promise.reject(new Error("boom"));
      },
    },
  });
  mux.push(KEX, ev("a", "1"));
  await clock.advance(1);
  await mux.shutdown(EXIT_TIMEOUT);
  assertEquals(calls, 1);
  assertEquals(mux.size, 0);
});

/**
 * A multiplexer whose first processing (of `uid@rv`) reported a patch with version
 * `expected`; further processings are held until released.
 */
async function afterPatch(
  rv: string,
  expected: string,
  batching: Partial<BatchingSettings> = {},
) {
  const parts = setup(batching, 5);
  parts.script.hold();
  parts.mux.push(KEX, ev("a", rv));
  await settle();
  parts.script.release(`a@${rv}`, { expectedResourceVersion: expected });
  await settle();
  return parts;
}

Deno.test("after a patch, older states wait for the patched version and are then skipped", async () => {
  const { clock, script, mux } = await afterPatch("3", "5");
  mux.push(KEX, ev("a", "4")); // the state between someone's change and our patch
  await clock.advance(1);
  assertEquals(script.seen, ["a@3"]);
  mux.push(KEX, ev("a", "5"));
  await settle();
  assertEquals(script.seen, ["a@3", "a@5"]);
  script.release("a@5");
  await stop(mux, clock);
});

Deno.test("a version newer than the patched one satisfies the wait", async () => {
  const { clock, script, mux } = await afterPatch("9", "10");
  mux.push(KEX, ev("a", "11"));
  await settle();
  assertEquals(script.seen, ["a@9", "a@11"]);
  script.release("a@11");
  await stop(mux, clock);
});

Deno.test("without the patched version in time, the latest stale state is processed", async () => {
  const { clock, script, mux } = await afterPatch("3", "5");
  mux.push(KEX, ev("a", "4"));
  await clock.advance(4.9);
  assertEquals(script.seen, ["a@3"]);
  await clock.advance(0.2);
  assertEquals(script.seen, ["a@3", "a@4"]);
  script.release("a@4");
  await stop(mux, clock);
});

Deno.test("the worker outlives its idle timeout while a patched version is awaited", async () => {
  const { clock, script, mux } = await afterPatch("3", "5", { idleTimeout: 1 });
  await clock.advance(3);
  assertEquals(mux.size, 1);
  mux.push(KEX, ev("a", "4")); // a late stale state: still held back
  await clock.advance(1);
  assertEquals(script.seen, ["a@3"]);
  mux.push(KEX, ev("a", "5"));
  await settle();
  assertEquals(script.seen, ["a@3", "a@5"]);
  script.release("a@5");
  await clock.advance(1.1);
  assertEquals(mux.size, 0, "after the expectation is met, the idle timeout applies again");
});

Deno.test("an expectation with no events at all lapses, and the worker ends", async () => {
  const { clock, mux } = await afterPatch("3", "5", { idleTimeout: 1 });
  await clock.advance(4.9);
  assertEquals(mux.size, 1);
  await clock.advance(0.2);
  assertEquals(mux.size, 0);
});

Deno.test("a deletion is processed at once even while a patched version is awaited", async () => {
  const { clock, script, mux } = await afterPatch("3", "xyz");
  mux.push(KEX, ev("a", "4", "DELETED"));
  await settle();
  assertEquals(script.seen, ["a@3", "a@4"]);
  script.release("a@4");
  await stop(mux, clock);
});

/**
 * A multiplexer whose first processing (of `a@3`) wrote these versions (4 and 5 by default)
 * and said their states need nothing (`echoes`); further processings are held until released.
 * With a batch window, the first processing began after it.
 */
async function afterSettledPatch(echoes = ["4", "5"], batchWindow = 0) {
  const parts = setup({ batchWindow }, 5);
  parts.script.hold();
  parts.mux.push(KEX, ev("a", "3"));
  await parts.clock.advance(batchWindow);
  parts.script.release("a@3", { expectedResourceVersion: echoes.at(-1), echoes });
  await settle();
  return parts;
}

Deno.test("our writes' own states that need nothing are not processed; the next change is", async () => {
  const { clock, script, mux } = await afterSettledPatch();
  mux.push(KEX, ev("a", "4"));
  mux.push(KEX, ev("a", "5"));
  await settle();
  assertEquals(script.seen, ["a@3"]);
  assertEquals(mux.backlog, 0);
  mux.push(KEX, ev("a", "6")); // someone else's change: processed, no expectation left
  await settle();
  assertEquals(script.seen, ["a@3", "a@6"]);
  script.release("a@6");
  await stop(mux, clock);
});

Deno.test("our last write's state passes its parked worker by: never waiting, no window begun", async () => {
  const { clock, script, mux } = await afterSettledPatch(["4"], 0.5);
  const sleepers = clock.sleepers; // the parked worker's idle deadline
  mux.push(KEX, ev("a", "4"));
  // Never counted as waiting (the queue's gauges): passed by before any wait of the loop.
  assertEquals(mux.waiting().get(KEX)?.depth, 0);
  await settle();
  assertEquals(clock.sleepers, sleepers, "no batch window begun for it");
  mux.push(KEX, ev("a", "5")); // another writer's change: its window, then processed
  assertEquals(mux.waiting().get(KEX)?.depth, 1);
  await clock.advance(0.5);
  assertEquals(script.seen, ["a@3", "a@5"]);
  script.release("a@5");
  await stop(mux, clock);
});

Deno.test("our last write's state is passed by before it is pushed, while its worker is parked only", async () => {
  const { clock, script, mux, objects } = await afterSettledPatch(["4", "5"], 0.5);
  const entry = objects.peek(KEX, body("a", "3"))!;
  const sleepers = clock.sleepers;
  assertEquals(mux.passEcho(entry, "4"), false, "our first write's: the last write's is due");
  assertEquals(mux.passEcho(entry, "6"), false, "not one of ours");
  mux.push(KEX, ev("a", "4")); // our first write's, held at the parked worker
  await settle();
  assertEquals(mux.passEcho(entry, "5"), true, "the last write's: it passes both by");
  assertEquals(mux.backlog, 0);
  assertEquals(clock.sleepers, sleepers, "no batch window begun");
  assertEquals(mux.passEcho(entry, "5"), false, "passed once: nothing is expected any more");
  await clock.advance(5.1); // past the consistency timeout: the held state was passed too
  assertEquals(script.seen, ["a@3"]);
  mux.push(KEX, ev("a", "6")); // another writer's change: processed as usual
  await clock.advance(0.5);
  assertEquals(script.seen, ["a@3", "a@6"]);
  // While a processing runs, nothing is passed by before it is pushed.
  assertEquals(mux.passEcho(entry, "7"), false);
  script.release("a@6", { expectedResourceVersion: "7", echoes: ["7"] });
  await settle();
  assertEquals(mux.passEcho(entry, "7"), true, "parked again, with our write's state due");
  await stop(mux, clock);
});

Deno.test("our last write's state is not passed by before it is pushed after more states than a processing writes", async () => {
  const { clock, script, mux, objects } = await afterSettledPatch(["4", "5"], 0.5);
  const entry = objects.peek(KEX, body("a", "3"))!;
  mux.push(KEX, ev("a", "4"));
  await settle();
  // Four states in all since the processing, three of ours: more than one processing writes.
  for (const rv of ["4", "4", "4"]) mux.push(KEX, ev("a", rv));
  await settle();
  assertEquals(mux.passEcho(entry, "5"), false, "too many states since: not all ours");
  mux.push(KEX, ev("a", "5"));
  await clock.advance(0.5);
  assertEquals(script.seen, ["a@3", "a@5"], "processed as pushed, as the loop finds it");
  script.release("a@5");
  await stop(mux, clock);
});

/** A state queued by its identity and version, its watch event's text parsed if processed. */
function deferredEv(uid: string, rv: string, text = eventText(uid, rv)): ObservedEvent {
  return deferredEvent({ namespace: "ns", uid, resourceVersion: rv }, text);
}

function eventText(uid: string, rv: string): string {
  return JSON.stringify({ type: "MODIFIED", object: body(uid, rv, { whole: "yes" }) });
}

Deno.test("a deferred state is made whole when taken for processing, and passed by unparsed when ours", async () => {
  const { clock, script, mux } = setup({ batchWindow: 0 }, 5);
  script.hold();
  mux.push(KEX, ev("a", "3"));
  await settle();
  // Our writes' states come while the processing that wrote them runs: never parsed.
  mux.push(KEX, deferredEv("a", "4", "not JSON: never parsed"));
  mux.push(KEX, deferredEv("a", "5", "nor this"));
  script.release("a@3", { expectedResourceVersion: "5", echoes: ["4", "5"] });
  await settle();
  assertEquals(script.seen, ["a@3"]);
  assertEquals(mux.backlog, 0);
  // Another writer's: parsed as it is taken for processing.
  mux.push(KEX, deferredEv("a", "6"));
  await settle();
  assertEquals(script.seen, ["a@3", "a@6"]);
  assertEquals(script.events.at(-1), {
    type: "MODIFIED",
    object: body("a", "6", { whole: "yes" }),
  });
  script.release("a@6");
  await stop(mux, clock);
});

Deno.test("a deferred state whose text is not its event is reported and skipped; the next is processed", async () => {
  const { clock, script, logger, mux } = setup();
  mux.push(KEX, ev("a", "3"));
  await settle();
  mux.push(KEX, deferredEv("a", "4", eventText("a", "9")));
  await settle();
  assertEquals(script.seen, ["a@3"]);
  const errors = logger.at("error");
  assertEquals(errors.length, 1);
  assertStringIncludes(errors[0], "A watch event of kopfexamples ns/n-a could not be read");
  mux.push(KEX, deferredEv("a", "5"));
  await settle();
  assertEquals(script.seen, ["a@3", "a@5"]);
  await stop(mux, clock);
});

Deno.test("our last write's state that came during its processing is passed by with no window", async () => {
  const { clock, script, mux } = setup({ batchWindow: 0.5 }, 5);
  script.hold();
  mux.push(KEX, ev("a", "3"));
  await clock.advance(0.5);
  mux.push(KEX, ev("a", "4")); // our write's echo, while the processing that wrote still runs
  script.release("a@3", { expectedResourceVersion: "4", echoes: ["4"] });
  await settle();
  assertEquals(mux.waiting().get(KEX)?.depth, 0, "not waiting out a batch window");
  await clock.advance(0.5);
  assertEquals(script.seen, ["a@3"]);
  await stop(mux, clock);
});

Deno.test("our first write's state waits at its parked worker for the last's, which passes both by", async () => {
  const { clock, script, mux } = await afterSettledPatch(["4", "5"], 0.5);
  const sleepers = clock.sleepers;
  mux.push(KEX, ev("a", "4"));
  await settle();
  assertEquals(mux.backlog, 0, "held for the last write's, not waiting for a place");
  assertEquals(clock.sleepers, sleepers, "no batch window begun for it");
  mux.push(KEX, ev("a", "5"));
  await clock.advance(5.1); // past the consistency timeout: nothing was left to process
  assertEquals(script.seen, ["a@3"]);
  assertEquals(mux.size, 1, "the worker idles on");
  await stop(mux, clock);
});

Deno.test("the batch windows of many objects share one timer, and so do their echoes held for our last writes", async () => {
  const { clock, script, mux } = setup({ batchWindow: 0.5 }, 5);
  const uids = Array.from({ length: 20 }, (_, i) => `o${i}`);
  for (const uid of uids) mux.push(KEX, ev(uid, "3"));
  assertEquals(clock.sleepers, 1, "one timer for all the windows");
  script.hold();
  await clock.advance(0.5);
  // Our first write's state comes while the processing that wrote it still runs: once it
  // ends, the worker holds it for the last write's, parked, with no batch window.
  for (const uid of uids) mux.push(KEX, ev(uid, "4"));
  for (const uid of uids) {
    script.release(`${uid}@3`, { expectedResourceVersion: "5", echoes: ["4", "5"] });
  }
  await clock.advance(0.5); // past any batch window
  assertEquals(mux.backlog, 0, "held, not waiting for places");
  // One for all the parked workers, and the one the start limit keeps for the processings.
  assertEquals(clock.sleepers, 2, "one timer for all the held states");
  for (const uid of uids) mux.push(KEX, ev(uid, "5"));
  await settle();
  assertEquals(script.seen.length, uids.length, "our writes' states need nothing");
  await stop(mux, clock);
});

Deno.test("our write's state is processed after another writer's change came between", async () => {
  // 4 is our first write's, 5 another writer's; our last write's 6 holds that change too (the
  // versions grow with every write, as etcd's revisions do): it is processed.
  const { clock, script, mux } = await afterSettledPatch(["4", "6"]);
  for (const rv of ["4", "5", "6"]) {
    mux.push(KEX, ev("a", rv));
    await settle();
  }
  assertEquals(script.seen, ["a@3", "a@6"]);
  script.release("a@6");
  await stop(mux, clock);
});

Deno.test("our write's state is processed when another change came during its processing", async () => {
  const { clock, script, mux } = setup({}, 5);
  script.hold();
  mux.push(KEX, ev("a", "3"));
  await settle();
  mux.push(KEX, ev("a", "4")); // another writer's, while a@3 is processed
  script.release("a@3", { expectedResourceVersion: "5", echoes: ["5"] });
  await settle();
  mux.push(KEX, ev("a", "5"));
  await settle();
  assertEquals(script.seen, ["a@3", "a@5"]);
  script.release("a@5");
  await stop(mux, clock);
});

Deno.test("our write's state is processed when another change came while its state waited for a place", async () => {
  const { clock, script, mux } = setup({ workerLimit: 1 }, 5);
  script.hold();
  mux.push(KEX, ev("b", "1")); // takes the only place
  await settle();
  mux.push(KEX, ev("a", "3")); // taken, waits for a place
  await settle();
  mux.push(KEX, ev("a", "4")); // another writer's, while a@3 waits
  script.release("b@1");
  await settle();
  script.release("a@3", { expectedResourceVersion: "5", echoes: ["5"] });
  await settle();
  mux.push(KEX, ev("a", "5"));
  await settle();
  assertEquals(script.seen, ["b@1", "a@3", "a@5"]);
  script.release("a@5");
  await stop(mux, clock);
});

Deno.test("our write's state is processed after a listing, which may hide another writer's change", async () => {
  // The watch had a gap: another writer changed the object (unseen), then our write landed,
  // and the listing after the gap shows our write's version 4, which holds that change too.
  const { clock, script, mux } = await afterSettledPatch(["4", "5"]);
  mux.push(KEX, ev("a", "4", null));
  await settle();
  mux.push(KEX, ev("a", "5"));
  await settle();
  assertEquals(script.seen, ["a@3", "a@5"]);
  script.release("a@5");
  await stop(mux, clock);
});

Deno.test("our write's state is processed when asked for again, or when not the last write's", async () => {
  {
    const { clock, script, mux } = await afterSettledPatch();
    mux.push(KEX, ev("a", "5"), true); // a processing asked for again (e.g. children)
    await settle();
    assertEquals(script.seen, ["a@3", "a@5"]);
    script.release("a@5");
    await stop(mux, clock);
  }
  {
    // The consistency wait lapses with our first write's state only: it is processed.
    const { clock, script, mux } = await afterSettledPatch();
    mux.push(KEX, ev("a", "4"));
    await clock.advance(5.1);
    assertEquals(script.seen, ["a@3", "a@4"]);
    script.release("a@4");
    await stop(mux, clock);
  }
  {
    // More events than one processing's writes: not all ours, whatever their versions; and
    // more still, once that is known, change nothing (a simulation's seed once broke here).
    const { clock, script, mux } = setup({}, 5);
    script.hold();
    mux.push(KEX, ev("a", "1"));
    await settle();
    const versions = ["2", "3", "4", "5", "6", "7", "8"];
    for (const rv of versions) mux.push(KEX, ev("a", rv));
    script.release("a@1", { expectedResourceVersion: "8", echoes: versions });
    await settle();
    assertEquals(script.seen, ["a@1", "a@8"]);
    script.release("a@8");
    await stop(mux, clock);
  }
  {
    // A deletion is never passed over.
    const { clock, script, mux } = await afterSettledPatch();
    mux.push(KEX, ev("a", "5", "DELETED"));
    await settle();
    assertEquals(script.seen, ["a@3", "a@5"]);
    script.release("a@5");
    await stop(mux, clock);
  }
});

Deno.test("with consistency waiting disabled, the stale states are processed at once", async () => {
  for (const timeout of [undefined, 0]) {
    const { clock, script, mux } = setup({}, timeout);
    mux.push(KEX, ev("a", "3"));
    await settle();
    mux.push(KEX, ev("a", "4"));
    await settle();
    assertEquals(script.seen, ["a@3", "a@4"]);
    await stop(mux, clock);
  }
});

Deno.test("a stale state is left unprocessed when the shutdown begins", async () => {
  const { clock, script, mux } = await afterPatch("3", "5");
  mux.push(KEX, ev("a", "4"));
  await settle();
  await mux.shutdown(EXIT_TIMEOUT);
  assertEquals(script.seen, ["a@3"]);
  assertEquals(mux.size, 0);
  await clock.advance(10);
  assertEquals(script.seen, ["a@3"]);
});

Deno.test("settings are read when used, so a change takes effect for later waits", async () => {
  const batching = { ...settings({ idleTimeout: 1 }) };
  const clock = new ManualClock();
  const mux = new Multiplexer({
    batching,
    clock,
    processor: { reconcile: () => Promise.resolve() },
  });
  batching.idleTimeout = 7;
  mux.push(KEX, ev("a", "1"));
  await clock.advance(6.9);
  assertEquals(mux.size, 1);
  await clock.advance(0.2);
  assertEquals(mux.size, 0);
});

Deno.test("a requested delay processes the same state again when due, outliving the idle time", async () => {
  const times: number[] = [];
  const clock = new ManualClock();
  const mux = new Multiplexer({
    batching: settings({ idleTimeout: 1 }),
    clock,
    processor: {
      reconcile: () => {
        times.push(clock.now());
        return Promise.resolve(times.length < 3 ? { delay: 3 } : undefined);
      },
    },
  });
  mux.push(KEX, ev("a", "1"));
  await clock.advance(2.9);
  assertEquals(times, [0]);
  assertEquals(mux.size, 1, "kept alive for the revisit");
  await clock.advance(0.2);
  assertEquals(times, [0, 3]);
  await clock.advance(3);
  assertEquals(times, [0, 3, 6]);
  await clock.advance(1.1);
  assertEquals(mux.size, 0, "no more revisits requested: the idle timeout applies");
});

Deno.test("a newer event comes before a requested delay and replaces the revisit", async () => {
  const seen: string[] = [];
  const clock = new ManualClock();
  const mux = new Multiplexer({
    batching: settings({ idleTimeout: 1 }),
    clock,
    processor: {
      reconcile: (event) => {
        seen.push(`${event.object.metadata?.resourceVersion}@${clock.now()}`);
        return Promise.resolve(seen.length === 1 ? { delay: 10 } : undefined);
      },
    },
  });
  mux.push(KEX, ev("a", "1"));
  await clock.advance(2);
  mux.push(KEX, ev("a", "2"));
  await clock.advance(20);
  assertEquals(seen, ["1@0", "2@2"]);
  assertEquals(mux.size, 0);
});

Deno.test("a shutdown ends a worker waiting for a requested delay", async () => {
  let calls = 0;
  const clock = new ManualClock();
  const mux = new Multiplexer({
    batching: settings(),
    clock,
    processor: { reconcile: () => Promise.resolve(++calls === 1 ? { delay: 60 } : undefined) },
  });
  mux.push(KEX, ev("a", "1"));
  await settle();
  await mux.shutdown(EXIT_TIMEOUT);
  assertEquals(calls, 1);
  assertEquals(mux.size, 0);
});

Deno.test("a deleted object is not revisited whatever the processor asks", async () => {
  let calls = 0;
  const clock = new ManualClock();
  const mux = new Multiplexer({
    batching: settings(),
    clock,
    processor: { reconcile: () => Promise.resolve(++calls < 5 ? { delay: 1 } : undefined) },
  });
  mux.push(KEX, ev("a", "1", "DELETED"));
  await clock.advance(5);
  assertEquals(calls, 1);
  assertEquals(mux.size, 0);
});

Deno.test("with the real clock, a shutdown leaves no timers behind", async () => {
  const processed = deferred();
  const seen: string[] = [];
  const mux = new Multiplexer({
    batching: settings({ batchWindow: 0.01, idleTimeout: 60, exitTimeout: 1, errorDelays: [30] }),
    persistence: { consistencyTimeout: 60 },
    logger: new RecordingLogger(),
    processor: {
      reconcile: (event) => {
        seen.push(event.object.metadata!.uid!);
        if (seen.length === 3) processed.resolve();
        // One object awaits its patch's echo, one retries an error later, one idles.
        if (event.object.metadata!.uid === "b") return Promise.reject(new Error("boom"));
        return Promise.resolve(
          event.object.metadata!.uid === "a" ? { expectedResourceVersion: "9" } : undefined,
        );
      },
    },
  });
  for (const uid of ["a", "b", "c"]) mux.push(KEX, ev(uid, "1"));
  await processed.promise;
  assertEquals(seen.sort(), ["a", "b", "c"]);
  await mux.shutdown(1);
  assertEquals(mux.size, 0);
});

function scripted(
  options: {
    startLimit?: number;
    backlogLimit?: number;
    startHold?: number;
    queueing?: Partial<QueueingSettings>;
  } = {},
  logger = new RecordingLogger(),
) {
  const clock = new ManualClock();
  const script = new Script();
  const mux = new Multiplexer({
    processor: { reconcile: script.processor },
    batching: settings({ idleTimeout: 5 }),
    clock,
    logger,
    startHold: 1,
    ...options,
    queueing: { ...new QueueingSettings(), ...options.queueing },
  });
  return { clock, script, mux };
}

/** The burst limit as low as the backlog's: live events congest the feeder at `limit`. */
function burst(limit: number): Partial<QueueingSettings> {
  return { burstLimit: limit };
}

Deno.test("at most the start limit of objects start at once; a slow one gives way after the hold", async () => {
  const { clock, script, mux } = scripted({ startLimit: 2 });
  script.hold();
  for (const uid of ["a", "b", "c", "d", "e"]) mux.push(KEX, ev(uid, "1"));
  await settle();
  assertEquals(script.seen, ["a@1", "b@1"]);
  script.release("a@1");
  await settle();
  assertEquals(script.seen, ["a@1", "b@1", "c@1"], "a finished: the next one starts");
  await clock.advance(1.1);
  assertEquals(script.seen, ["a@1", "b@1", "c@1", "d@1", "e@1"], "slow ones gave way");
  assertEquals(script.active, 4, "the slow ones still run; only their places were given up");
  for (const id of ["b@1", "c@1", "d@1", "e@1"]) script.release(id);
  await stop(mux, clock);
});

Deno.test("a full backlog asks the feeder to wait until half of it is processed", async () => {
  const { clock, script, mux } = scripted({ startLimit: 1, backlogLimit: 4, queueing: burst(4) });
  script.hold();
  assertEquals(mux.push(KEX, ev("a", "1")), undefined);
  await settle();
  // "a" is processing; b, c, d, e wait: the fourth waiting one fills the backlog.
  const answers = ["b", "c", "d", "e"].map((uid) => mux.push(KEX, ev(uid, "1")));
  await settle();
  assertEquals(answers.slice(0, 3), [undefined, undefined, undefined]);
  assert(answers[3] instanceof Promise);
  assertEquals(mux.backlog, 4);
  let resumed = false;
  void answers[3].then(() => (resumed = true));
  // A newer event of an object already waiting does not grow the backlog.
  assert(mux.push(KEX, ev("d", "2")) instanceof Promise, "still full");
  assertEquals(mux.backlog, 4);
  script.release("a@1");
  await settle();
  assertEquals([mux.backlog, resumed], [3, false]);
  script.release("b@1");
  await settle();
  assertEquals([mux.backlog, resumed], [2, true], "resumed at half the limit");
  assertEquals(mux.push(KEX, ev("f", "1")), undefined);
  for (const id of ["c@1", "d@1", "d@2", "e@1", "f@1"]) script.release(id);
  await stop(mux, clock);
});

Deno.test("objects in their batch window are not counted in the backlog until it has passed", async () => {
  const clock = new ManualClock();
  const script = new Script();
  script.hold();
  const mux = new Multiplexer({
    processor: { reconcile: script.processor },
    batching: settings({ batchWindow: 0.1 }),
    clock,
    startLimit: 1,
    backlogLimit: 2,
    queueing: { fairness: "namespace", burstLimit: 2 },
  });
  // More objects than the backlog limit arrive within one window: the feeding goes on, or it
  // would be capped at the limit per window.
  const answers = ["a", "b", "c", "d"].map((uid) => mux.push(KEX, ev(uid, "1")));
  await settle();
  assertEquals(answers, [undefined, undefined, undefined, undefined]);
  assertEquals(mux.backlog, 0);
  // Once the windows have passed, those waiting for a place count: the feeder waits.
  await clock.advance(0.2);
  assertEquals(script.seen, ["a@1"]);
  assertEquals(mux.backlog, 3);
  assert(mux.push(KEX, ev("e", "1")) instanceof Promise, "a full backlog");
  for (const uid of ["a", "b", "c", "d", "e"]) script.release(`${uid}@1`);
  await stop(mux, clock);
});

Deno.test("objects holding back stale states for our patch are not counted in the backlog", async () => {
  const clock = new ManualClock();
  const mux = new Multiplexer({
    processor: { reconcile: () => Promise.resolve({ expectedResourceVersion: "5" }) },
    batching: settings(),
    persistence: { consistencyTimeout: 10 },
    clock,
    backlogLimit: 2,
  });
  mux.push(KEX, ev("a", "3"));
  mux.push(KEX, ev("b", "3"));
  await settle();
  assertEquals(mux.backlog, 0);
  assertEquals(mux.push(KEX, ev("a", "4")), undefined, "a stale state waits, uncounted");
  assertEquals(mux.push(KEX, ev("b", "4")), undefined);
  await settle();
  assertEquals(mux.backlog, 0);
  await stop(mux, clock);
});

Deno.test("the shutdown releases a waiting feeder", async () => {
  const { clock, script, mux } = scripted({ startLimit: 1, backlogLimit: 1, queueing: burst(1) });
  script.hold();
  mux.push(KEX, ev("a", "1"));
  await settle();
  const wait = mux.push(KEX, ev("b", "1"));
  assert(wait instanceof Promise);
  const done = mux.shutdown(EXIT_TIMEOUT);
  await wait;
  script.release("a@1");
  script.release("b@1");
  await clock.advance(100);
  await done;
});

Deno.test("idle workers share one timer, however many there are", async () => {
  const { clock, mux } = scripted();
  for (let i = 0; i < 50; i++) mux.push(KEX, ev(`o${i}`, "1"));
  await settle();
  assertEquals(mux.size, 50);
  assertEquals(clock.sleepers, 1);
  await clock.advance(5.1);
  assertEquals([mux.size, clock.sleepers], [0, 0]);
});

Deno.test("a processing waiting aside gives its place up and takes one again afterwards", async () => {
  const { clock, mux } = setup({ workerLimit: 1 }, undefined, async (event, ctx) => {
    const uid = event.object.metadata?.uid;
    order.push(`${uid} starts`);
    if (uid === "a") await ctx.aside(bIsDone.promise); // with the only place held: a deadlock
    order.push(`${uid} ends`);
    if (uid === "b") bIsDone.resolve();
  });
  const order: string[] = [];
  const bIsDone = deferred<void>();
  mux.push(KEX, ev("a", "1"));
  mux.push(KEX, ev("b", "1"));
  await settle();
  await bIsDone.promise;
  await settle();
  assertEquals(order, ["a starts", "b starts", "b ends", "a ends"]);
  await stop(mux, clock);
});

Deno.test("after the exit timeout, a processing that runs on is awaited to its end, and reported", async () => {
  const logger = new RecordingLogger();
  const clock = new ManualClock();
  let finish!: () => void;
  const mux = new Multiplexer({
    batching: settings({ exitTimeout: 5 }),
    clock,
    logger,
    // A handler cannot be cancelled: the abort of the waits does not end it.
    processor: { reconcile: () => new Promise<void>((resolve) => (finish = resolve)) },
  });
  mux.push(KEX, ev("a", "1"));
  await settle();
  let stopped = false;
  const done = mux.shutdown(EXIT_TIMEOUT).then(() => (stopped = true));
  await clock.advance(5.1);
  assertEquals(stopped, false);
  await clock.advance(10);
  await clock.advance(10);
  assertEquals(stopped, false, "awaited however long it takes");
  const reports = logger.at("warning").filter((m) => m.includes("Waiting for the handling of"));
  assertEquals(reports.length, 2);
  assertStringIncludes(reports[0], "kopfexamples ns/n-a");
  assertEquals(mux.processing(), ["kopfexamples ns/n-a"]);
  finish();
  await done;
  assertEquals([stopped, mux.size], [true, 0]);
});

Deno.test("live events go before the objects of a listing, which still go after aging", async () => {
  const { clock, script, mux } = scripted({
    startLimit: 1,
    backlogLimit: 3,
    startHold: 60,
  });
  script.hold();
  // A listing fills the backlog: its feeder is asked to wait; a live event is not.
  const listed = ["a", "b", "c", "d"].map((uid) => mux.push(KEX, ev(uid, "1", null)));
  await settle();
  assert(listed[3] instanceof Promise, "the listing waits");
  assertEquals(mux.push(KEX, ev("new", "1", "ADDED")), undefined, "a live event does not");
  await settle();
  script.release("a@1");
  await settle();
  assertEquals(script.seen, ["a@1:listed", "new@1"], "the live one goes first");
  // A listed object that has waited long enough goes before newer live ones.
  await clock.advance(6);
  mux.push(KEX, ev("newer", "1", "MODIFIED"));
  await settle();
  script.release("new@1");
  await settle();
  assertEquals(script.seen.at(-1), "b@1:listed");
  for (const id of ["b@1", "c@1", "d@1", "newer@1"]) {
    script.release(id);
    await settle();
  }
  assertEquals(script.seen.slice(2), ["b@1:listed", "c@1:listed", "d@1:listed", "newer@1"]);
  await stop(mux, clock);
});

/** A live event of an object in a namespace, with labels. */
function evIn(
  uid: string,
  namespace: string | undefined,
  labels: Record<string, string> = {},
  type: WatchEventType | null = "ADDED",
): ObservedEvent {
  const metadata = { uid, name: `n-${uid}`, namespace, resourceVersion: "1", labels };
  return { type, object: { metadata } };
}

/** Release the processings one at a time, in the order they start, until `n` have run. */
async function runInOrder(script: Script, n: number): Promise<string[]> {
  for (let released = 0; released < n; released++) {
    await settle();
    script.release(script.seen[released].replace(/:listed$/, ""));
  }
  await settle();
  return script.seen.map((id) => id.replace(/@1(:listed)?$/, ""));
}

Deno.test("a burst of one namespace is taken in whole, and another namespace's objects take turns with it", async () => {
  const { clock, script, mux } = scripted({ startLimit: 1, backlogLimit: 4 });
  script.hold();
  // Far beyond the backlog limit: live events are not held back until the burst limit.
  const answers = [];
  for (let i = 0; i < 20; i++) answers.push(mux.push(KEX, evIn(`a${i}`, "a")));
  assertEquals(answers.filter((answer) => answer !== undefined), [], "the feeder reads on");
  await settle();
  assertEquals(mux.backlog, 19, "all but the one processing wait");
  for (const uid of ["b0", "b1"]) mux.push(KEX, evIn(uid, "b"));
  mux.push(KEX, evIn("c0", undefined)); // cluster-scoped: a tenant of their own
  const order = await runInOrder(script, 23);
  assertEquals(order.slice(0, 7), ["a0", "a1", "b0", "c0", "a2", "b1", "a3"]);
  assertEquals(order.length, 23, "the burst is handled too");
  await stop(mux, clock);
});

Deno.test("the live events' feeder waits at the burst limit, and goes on at half of it", async () => {
  const { clock, script, mux } = scripted({ startLimit: 1, backlogLimit: 2, queueing: burst(6) });
  script.hold();
  mux.push(KEX, evIn("a0", "a"));
  await settle();
  const answers = [];
  for (let i = 1; i <= 6; i++) answers.push(mux.push(KEX, evIn(`a${i}`, "a")));
  assertEquals(answers.slice(0, 5), [undefined, undefined, undefined, undefined, undefined]);
  const wait = answers[5];
  assert(wait instanceof Promise, "six wait: the burst limit");
  let resumed = false;
  void wait.then(() => (resumed = true));
  await runInOrder(script, 2);
  assertEquals([mux.backlog, resumed], [4, false]);
  await runInOrder(script, 3);
  assertEquals([mux.backlog, resumed], [3, true], "at half the burst limit");
  await runInOrder(script, 7);
  await stop(mux, clock);
});

Deno.test("retries and revisits go after live changes and before listings", async () => {
  const { clock, script, mux } = scripted({ startLimit: 1 });
  script.hold();
  mux.push(KEX, evIn("first", "ns"));
  await settle();
  mux.push(KEX, evIn("listed", "ns", {}, null));
  mux.push(KEX, evIn("parent", "ns"), true); // queued again for its children: a revisit
  mux.push(KEX, evIn("live", "ns"));
  const order = await runInOrder(script, 4);
  assertEquals(order, ["first", "live", "parent", "listed"]);
  await stop(mux, clock);
});

Deno.test("fairness by a label, or by a function whose failure is reported once", async () => {
  const byLabel = scripted({ startLimit: 1, queueing: { fairness: { label: "team" } } });
  byLabel.script.hold();
  for (const [uid, team] of [["x1", "x"], ["x2", "x"], ["x3", "x"], ["y1", "y"]]) {
    byLabel.mux.push(KEX, evIn(uid, "same", { team }));
  }
  byLabel.mux.push(KEX, evIn("none", "same"));
  assertEquals(await runInOrder(byLabel.script, 5), ["x1", "x2", "y1", "none", "x3"]);
  await stop(byLabel.mux, byLabel.clock);

  const logger = new RecordingLogger();
  const fairness = (body: RawBody) => {
    if (body.metadata?.name === "n-bad1" || body.metadata?.name === "n-bad2") throw new Error("no");
    return body.metadata!.name!.slice(2, 3);
  };
  const byFunction = scripted({ startLimit: 1, queueing: { fairness } }, logger);
  byFunction.script.hold();
  for (const uid of ["p1", "p2", "p3", "bad1", "bad2", "q1"]) {
    byFunction.mux.push(KEX, evIn(uid, "same"));
  }
  // Tenants: p, "" (the failures), q.
  const order = await runInOrder(byFunction.script, 6);
  assertEquals(order, ["p1", "p2", "bad1", "q1", "p3", "bad2"]);
  const errors = logger.at("error");
  assertEquals(errors.length, 1, "reported once");
  assertStringIncludes(errors[0], "settings.queueing.fairness failed for kopfexamples same/n-bad1");
  await stop(byFunction.mux, byFunction.clock);
});

Deno.test("the queue's gauges show 0 for a resource fed once its queue is empty", async () => {
  const { clock, mux } = scripted();
  assertEquals([...mux.waiting()], [], "nothing fed yet: no resource known");
  mux.push(KEX, evIn("a", "ns"));
  assertEquals(mux.waiting().get(KEX)?.depth, 1);
  await settle();
  await clock.advance(10); // processed, then idle until its worker ends
  assertEquals(mux.size, 0);
  assertEquals(mux.waiting().get(KEX), { depth: 0, oldest: 0 });
  await stop(mux, clock);
});

Deno.test("the queue's gauges show 0 for a resource served before any object is fed, once per key", async () => {
  const { clock, mux } = scripted();
  mux.serve([KEX]);
  assertEquals([...mux.waiting()], [[KEX, { depth: 0, oldest: 0 }]]);
  // A rediscovery makes a new record of the same resource: still one series.
  const again = new Resource({ group: "kopf.dev", version: "v1", plural: "kopfexamples" });
  mux.serve([again]);
  mux.push(KEX, evIn("a", "ns"));
  assertEquals([...mux.waiting().values()], [{ depth: 1, oldest: 0 }]);
  await stop(mux, clock);
});

Deno.test("an object waiting with a listed state moves up to the live lane when a change of it comes", async () => {
  const { clock, script, mux } = scripted({ startLimit: 1 });
  script.hold();
  mux.push(KEX, evIn("first", "n0"));
  await settle();
  mux.push(KEX, evIn("x", "n1", {}, null));
  mux.push(KEX, evIn("y1", "n2"));
  mux.push(KEX, evIn("y2", "n2"));
  await settle();
  mux.push(KEX, { type: "MODIFIED", object: { ...evIn("x", "n1").object } });
  // x now takes its turn among the live changes: n2's, then n1's, then n2's again.
  const order = await runInOrder(script, 5);
  assertEquals(order.slice(0, 4), ["first", "y1", "x", "y2"]);
  await stop(mux, clock);
});
