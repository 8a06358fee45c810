/**
 * Logging and event posting costs: per-object log records formatted and queued as events,
 * JSON lines, the poster draining its queue into an in-memory event creator, and the poster
 * creating events in a fake cluster over HTTP (10 at once).
 */
import type { BenchFigure, BenchSection } from "./types.ts";
import { configure } from "../../src/platform/logging.ts";
import { createObjectLogger, runInObjectScope } from "../../src/handling/object_loggers.ts";
import { EventQueue, type PostingTarget } from "../../src/handling/posting_queue.ts";
import { apiEventCreator, runEventPoster } from "../../src/engines/posting.ts";
import { OperatorSettings } from "../../src/settings/operator_settings.ts";
import { ApiClient } from "../../src/client/api.ts";
import { Vault } from "../../src/client/vault.ts";
import { FakeCluster } from "../../src/testing/mod.ts";

const POSTED = 5_000;
const POSTED_TARGET = 1_000; // ≈ 2 events per object at the 500 objects/s the operator aims for

/**
 * Post `count` events (about 500 objects) to a fake cluster over HTTP, each response delayed
 * by `latency` ms (a real API server is a round trip away); the figure is events/s.
 */
async function postToFakeCluster(
  settings: OperatorSettings,
  count: number,
  latency: number,
): Promise<BenchFigure> {
  await using cluster = await FakeCluster.start({ historySize: count + 1_000 });
  cluster.faults.latency(latency);
  const vault = new Vault({ relogin: () => Promise.resolve({ fake: cluster.connectionInfo }) });
  await using api = new ApiClient(vault);
  const queue = new EventQueue(count);
  for (let i = 0; i < count; i++) {
    queue.push({
      ref: {
        apiVersion: "kopf.dev/v1",
        kind: "KopfExample",
        name: `kex-${i % 500}`,
        namespace: "default",
        uid: `uid-${i % 500}`,
      },
      type: "Normal",
      reason: "Logging",
      message: `Handler 'create_fn' succeeded (${i}).`,
    });
  }
  const stop = new AbortController();
  stop.abort(); // drain what is queued, then return
  const started = performance.now();
  await runEventPoster({
    queue,
    settings,
    signal: stop.signal,
    flushTimeout: 60,
    creator: apiEventCreator(api),
  });
  const perSecond = rate(count, started);
  const stored = cluster.list({ apiVersion: "v1", kind: "Event" }, { allNamespaces: true }).length;
  return {
    name: `events posted to a fake cluster over HTTP, ${count.toLocaleString("en")} events, ` +
      `${latency} ms per response (${stored.toLocaleString("en")} stored)`,
    value: `${perSecond.toLocaleString("en")} events/s`,
    target: `≥ ${POSTED_TARGET.toLocaleString("en")} events/s, all stored`,
    ok: perSecond >= POSTED_TARGET && stored === count,
  };
}

const RECORDS = 50_000;
const TARGET = 20_000; // ≈ 40 records per object at the 500 objects/s the operator aims for

function body(i: number) {
  return {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name: `kex-${i}`, namespace: "default", uid: `uid-${i}` },
  };
}

function rate(count: number, started: number): number {
  return Math.round(count / ((performance.now() - started) / 1000));
}

function figure(name: string, perSecond: number, unit: string): BenchFigure {
  return {
    name,
    value: `${perSecond.toLocaleString("en")} ${unit}/s`,
    target: `≥ ${TARGET.toLocaleString("en")} ${unit}/s`,
    ok: perSecond >= TARGET,
  };
}

/** Log `RECORDS` info records, one object per 10, each in its object scope; returns records/s. */
function logRecords(target: PostingTarget): number {
  const started = performance.now();
  for (let i = 0; i < RECORDS / 10; i++) {
    const obj = body(i);
    const logger = createObjectLogger(obj, { posting: target });
    runInObjectScope({ body: obj, logger }, () => {
      for (let j = 0; j < 10; j++) logger.info(`Handler 'create_fn' succeeded (${j}).`);
    });
  }
  return rate(RECORDS, started);
}

export const section: BenchSection = {
  title: "Logging and event posting",
  async run(): Promise<BenchFigure[]> {
    let bytes = 0;
    const writer = (line: string) => void (bytes += line.length);
    const settings = new OperatorSettings();
    const figures: BenchFigure[] = [];

    configure({ logFormat: "full", writer });
    let target: PostingTarget = { settings, queue: new EventQueue() };
    figures.push(
      figure(
        "full lines formatted (not written) + events queued, 50,000 records",
        logRecords(target),
        "records",
      ),
    );

    configure({ logFormat: "json", writer });
    target = { settings, queue: new EventQueue() };
    figures.push(
      figure(
        "JSON lines formatted (not written) + events queued, 50,000 records",
        logRecords(target),
        "records",
      ),
    );

    let created = 0;
    const stop = new AbortController();
    stop.abort(); // drain what is queued, then return
    const started = performance.now();
    await runEventPoster({
      queue: target.queue,
      settings,
      signal: stop.signal,
      flushTimeout: 60,
      creator: { createEvent: () => Promise.resolve(created++) },
    });
    figures.push(
      figure("event bodies built and handed to the client", rate(created, started), "events"),
    );
    configure({ logFormat: "full", writer });
    figures.push(await postToFakeCluster(settings, POSTED, 0));
    figures.push(await postToFakeCluster(settings, POSTED / 5, 5));
    configure({ logFormat: "full" });
    return figures;
  },
};
