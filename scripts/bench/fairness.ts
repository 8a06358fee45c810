/**
 * Fair queues across tenants: a cluster-wide operator (one watch of all namespaces, over
 * HTTP) with one create handler that takes 100 ms, the default limits (no worker limit, 32
 * objects starting at a time). Namespace `a` receives a burst of 20,000 creations; a second
 * later namespace `b` receives 10, which come on the same watch stream behind the burst.
 * Figures: the time from each `b` object's creation to its handler's start (the slowest and
 * the median), how many of the burst's objects had been handled by then, the time the whole
 * burst took, and the JS heap of this process (the fake cluster's and the operator's) at its
 * peak during the burst, beyond the heap before it.
 *
 *     deno task bench fairness
 *     KOPF_BENCH_FAIR_BURST=2000 deno task bench fairness   # a smaller burst
 */
import { parse as parseYaml } from "yaml";
import type { BenchFigure, BenchSection } from "./types.ts";
import { kopf } from "../../mod.ts";
import type { RawBody } from "../../mod.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { now } from "./support/process.ts";
import { percentile } from "./support/stats.ts";

const BURST = Number(Deno.env.get("KOPF_BENCH_FAIR_BURST") ?? 20_000);
const OTHERS = 10;
const HANDLER_MS = 100;
const LATENCY_TARGET_MS = 1_000;
const KEX = { apiVersion: "kopf.dev/v1", kind: "KopfExample" };
const ROOT = new URL("../../", import.meta.url);

/** Seconds allowed for the whole burst: its handlers' time over 32 at once, four times. */
const ALLOWANCE = Math.max(60, Math.ceil((BURST * HANDLER_MS) / 1000 / 32) * 4);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const thousands = (n: number) => n.toLocaleString("en");

interface Run {
  /** Creation → handler start of `b`'s objects, in milliseconds. */
  latencies: number[];
  /** The burst's objects handled when the last of `b`'s started. */
  burstBefore: number;
  /** Seconds from the burst's first creation to its last handler's end. */
  burstSeconds: number;
  /** The peak heap during the run beyond the heap before it, in bytes. */
  heapPeak: number;
}

async function run(): Promise<Run> {
  await using cluster = await FakeCluster.start({ historySize: 4 * BURST + 1_000 });
  cluster.create(parseYaml(await Deno.readTextFile(new URL("examples/crd.yaml", ROOT))) as RawBody);
  for (const name of ["a", "b"]) {
    cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
  }
  const registry = new kopf.OperatorRegistry();
  kopf.on.login({ registry, id: "bench-login" }, () => cluster.connectionInfo);
  const created = new Map<string, number>();
  const started = new Map<string, number>();
  let burstDone = 0;
  let burstBefore = 0;
  let othersDone = 0;
  kopf.on.create("kopfexamples", { registry }, async function slow({ name, namespace }) {
    const key = `${namespace}/${name}`;
    if (!started.has(key)) started.set(key, now());
    if (namespace === "b" && ++othersDone === OTHERS) burstBefore = burstDone;
    await sleep(HANDLER_MS);
    if (namespace === "a") burstDone++;
  });
  kopf.configure({ quiet: true });
  const stop = new AbortController();
  let ready!: () => void;
  const readiness = new Promise<void>((resolve) => (ready = resolve));
  // The burst must be taken in whole to reach b's changes behind it (the default is 10,000).
  const burstLimit = Math.max(10_000, BURST + 1_000);
  const settings = new kopf.OperatorSettings({
    posting: { enabled: false },
    queueing: { burstLimit },
  });
  const running = kopf.operator({
    registry,
    settings,
    clusterwide: true,
    standalone: true,
    signal: stop.signal,
    onReady: ready,
  });
  try {
    await readiness;
    const heapBefore = Deno.memoryUsage().heapUsed;
    let heapPeak = heapBefore;
    const sampler = setInterval(() => {
      heapPeak = Math.max(heapPeak, Deno.memoryUsage().heapUsed);
    }, 100);
    const start = now();
    for (let i = 0; i < BURST; i++) {
      created.set(`a/a-${i}`, now());
      cluster.create({ ...KEX, metadata: { name: `a-${i}`, namespace: "a" } });
    }
    await sleep(1_000);
    for (let i = 0; i < OTHERS; i++) {
      created.set(`b/b-${i}`, now());
      cluster.create({ ...KEX, metadata: { name: `b-${i}`, namespace: "b" } });
    }
    const deadline = start + ALLOWANCE * 1000;
    while (burstDone < BURST || othersDone < OTHERS) {
      if (now() > deadline) {
        throw new Error(`${burstDone} of ${BURST} and ${othersDone} of ${OTHERS} handled in time`);
      }
      await sleep(100);
    }
    clearInterval(sampler);
    const latencies = [...created.keys()].filter((key) => key.startsWith("b/"))
      .map((key) => started.get(key)! - created.get(key)!).sort((x, y) => x - y);
    const lastBurst = Math.max(
      ...[...started].filter(([key]) => key.startsWith("a/")).map(([, at]) => at),
    );
    const burstSeconds = (lastBurst + HANDLER_MS - start) / 1000;
    return { latencies, burstBefore, burstSeconds, heapPeak: heapPeak - heapBefore };
  } finally {
    stop.abort();
    await running.catch(() => {});
  }
}

/** The fairness section of the benchmarks. */
export const section: BenchSection = {
  title: "Fairness across tenants (a burst in one namespace, another's objects behind it)",
  async run(): Promise<BenchFigure[]> {
    const { latencies, burstBefore, burstSeconds, heapPeak } = await run();
    const slowest = latencies.at(-1) ?? Infinity;
    return [
      {
        name: `${thousands(BURST)} created in namespace a, ${OTHERS} in b a second later: ` +
          "b's creation → handler start",
        value: `slowest ${slowest.toFixed(0)} ms, median ${percentile(latencies, 50).toFixed(0)} ` +
          `ms, with ${thousands(burstBefore)} of a's handled by then`,
        target: `≤ ${thousands(LATENCY_TARGET_MS)} ms for all ${OTHERS}`,
        ok: latencies.length === OTHERS && slowest <= LATENCY_TARGET_MS,
      },
      {
        name: `… the whole burst (${HANDLER_MS} ms per handler, 32 starting at a time, ` +
          `burstLimit ${thousands(Math.max(10_000, BURST + 1_000))})`,
        value: `${burstSeconds.toFixed(1)} s, all ${thousands(BURST)} handled; JS heap at its ` +
          `peak ${(heapPeak / 1e6).toFixed(0)} MB above the start (the fake cluster's too)`,
      },
    ];
  },
};
