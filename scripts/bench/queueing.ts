/**
 * Per-object queueing: how fast events reach the processor through one worker per object,
 * what a live worker costs in memory, and what an object waiting for its place costs — a
 * burst is taken in whole so that other tenants' objects behind it take turns with it
 * (`src/reactor/queueing/backlog.ts`): its state's body, its worker and its wait each.
 */
import type { BenchFigure, BenchSection } from "./types.ts";
import { Resource } from "../../src/structs/resources.ts";
import type { ObjectEvent } from "../../src/structs/bodies.ts";
import { Multiplexer } from "../../src/reactor/queueing/multiplexer.ts";
import { silentLogger } from "../../src/reactor/default_logger.ts";

const RESOURCE = new Resource({ group: "kopf.dev", version: "v1", plural: "kopfexamples" });

function event(i: number, rv: number): ObjectEvent {
  return {
    type: rv === 1 ? "ADDED" : "MODIFIED",
    object: {
      metadata: {
        uid: `uid-${i}`,
        name: `kex-${i}`,
        namespace: "default",
        resourceVersion: `${rv}`,
      },
      spec: { field: i },
    },
  };
}

async function throughput(objects: number, eventsPerObject: number): Promise<number> {
  let processed = 0;
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const mux = new Multiplexer({
    batching: {
      batchWindow: 0,
      idleTimeout: 0.5,
      workerLimit: null,
      exitTimeout: 1,
      errorDelays: [],
    },
    logger: silentLogger,
    processor: {
      reconcile: async (e) => {
        await Promise.resolve();
        if (e.object.metadata?.resourceVersion === `${eventsPerObject}`) {
          if (++processed === objects) done();
        }
      },
    },
  });
  const start = performance.now();
  for (let rv = 1; rv <= eventsPerObject; rv++) {
    for (let i = 0; i < objects; i++) mux.push(RESOURCE, event(i, rv));
    await Promise.resolve();
  }
  await finished;
  const seconds = (performance.now() - start) / 1000;
  await mux.shutdown(1);
  return (objects * eventsPerObject) / seconds;
}

async function workerMemory(objects: number): Promise<number> {
  const mux = new Multiplexer({
    batching: {
      batchWindow: 0,
      idleTimeout: 60,
      workerLimit: null,
      exitTimeout: 1,
      errorDelays: [],
    },
    logger: silentLogger,
    processor: { reconcile: () => Promise.resolve() },
  });
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = Deno.memoryUsage().heapUsed;
  for (let i = 0; i < objects; i++) mux.push(RESOURCE, event(i, 1));
  await new Promise((resolve) => setTimeout(resolve, 50));
  gc?.();
  const after = Deno.memoryUsage().heapUsed;
  await mux.shutdown(1);
  return (after - before) / objects;
}

/** The heap per object waiting for a place: a burst behind one processing that never ends. */
async function waitingMemory(objects: number): Promise<number> {
  let hold!: () => void;
  const held = new Promise<void>((resolve) => (hold = resolve));
  const mux = new Multiplexer({
    batching: {
      batchWindow: 0,
      idleTimeout: 60,
      workerLimit: null,
      exitTimeout: 1,
      errorDelays: [],
    },
    logger: silentLogger,
    processor: { reconcile: () => held },
    startLimit: 1,
  });
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = Deno.memoryUsage().heapUsed;
  for (let i = 0; i < objects; i++) mux.push(RESOURCE, event(i, 1));
  await new Promise((resolve) => setTimeout(resolve, 50));
  gc?.();
  const after = Deno.memoryUsage().heapUsed;
  if (mux.backlog < objects - 1) throw new Error(`only ${mux.backlog} of ${objects} wait`);
  hold();
  await mux.shutdown(1);
  return (after - before) / objects;
}

/** The queueing section of the benchmarks. */
export const section: BenchSection = {
  title: "Queueing (per-object workers)",
  async run(): Promise<BenchFigure[]> {
    await throughput(1000, 2); // warm-up
    const rate = Math.round(await throughput(10_000, 3));
    const perWorker = Math.round(await workerMemory(10_000));
    const perWaiting = Math.round(await waitingMemory(20_000));
    return [
      {
        name: "events through the workers, 10,000 objects × 3 events, no batch window",
        value: `${rate.toLocaleString("en-US")} events/s`,
        target: "≥ 20,000 events/s (far above the 500 objects/s operator target)",
        ok: rate >= 20_000,
      },
      {
        name: "heap per idling worker (10,000 workers waiting for events)",
        value: `${perWorker.toLocaleString("en-US")} bytes`,
        target: "≤ 5,000 bytes (50 MB for 10,000 objects at most)",
        ok: perWorker <= 5_000,
      },
      {
        name: "heap per object waiting for a place (a burst of 20,000 taken in, small bodies)",
        value: `${perWaiting.toLocaleString("en-US")} bytes`,
        target: "≤ 5,000 bytes besides its body (100 MB for a burst of 20,000 at most)",
        ok: perWaiting <= 5_000,
      },
    ];
  },
};
