/**
 * The operator end to end: objects are created on a fake cluster while an operator with
 * one create handler (returning a value, so each object gets a status write) runs in a
 * separate process — so that its memory is measured apart from the cluster's.
 *
 * Figures per run (1,000 and 10,000 objects): objects handled per second from the first
 * creation to the last status write, latency from creation to the handler's start (p50,
 * p99), API requests per object (all, and writes) from the fake cluster's request log,
 * and the operator process's peak RSS. The operator runs with the V8 flags that the `kopf`
 * task and compiled binaries use (`src/cli/runtime_flags.ts`); one more run of 10,000
 * objects with V8's default heap policy shows what embedding without them costs.
 *
 *     deno task bench operator
 *     KOPF_BENCH_POSTING=1 deno task bench operator   # with Events posted, as by default
 *
 * One more run of 10,000 objects keeps every metric (`metricsEndpoint`), to show what
 * metrics cost beside the same run without them.
 *
 * With `KOPF_BENCH_POSTING=1`, the operator posts its log records as Events (as operators do
 * by default), and a figure tells how many were posted, and how many were lost at the stop
 * or dropped from the full queue (from the operator's warnings).
 *
 * Run with `--child <url> <count>`, this file is that operator process.
 */
import { parse as parseYaml } from "yaml";
import type { BenchFigure, BenchSection } from "./types.ts";
import { kopf } from "../../mod.ts";
import type { RawBody } from "../../mod.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { OPERATOR_V8_FLAGS, v8FlagsArgument } from "../../src/cli/runtime_flags.ts";
import { operateUntilTerminated } from "./support/bench_operator.ts";
import { ChildProcess, lines, now, rssMb } from "./support/process.ts";
import { RequestCounter } from "./support/requests.ts";
import { mb, percentile } from "./support/stats.ts";

const KIND = "kopfexamples.kopf.dev";
const SIZES = [1_000, 10_000];
const RATE_TARGET = 500;
const WRITES_TARGET = 3;
const RSS_TARGET_MB = 150;
const POSTING = Deno.env.get("KOPF_BENCH_POSTING") === "1";

/** The operator process: serves the fake cluster at `url` until SIGTERM. */
async function child(url: string, count: number): Promise<void> {
  const registry = new kopf.OperatorRegistry();
  let started = 0;
  kopf.on.login({ registry, id: "bench-login" }, () => ({ server: url }));
  kopf.on.create(KIND, { registry }, function createFn() {
    const at = now();
    if (++started === count) console.log("ALL-STARTED");
    return { started: at };
  });
  kopf.configure({ quiet: true });
  // Events are measured by the logging section; here only with KOPF_BENCH_POSTING=1.
  const settings = new kopf.OperatorSettings({ posting: { enabled: POSTING } });
  // Asked by the parent once all objects are handled: where the memory is.
  Deno.addSignalListener(
    "SIGUSR2",
    () => console.log(`MEMORY ${JSON.stringify(Deno.memoryUsage())}`),
  );
  await operateUntilTerminated({
    registry,
    settings,
    clusterwide: true,
    ...(Deno.env.get("KOPF_BENCH_METRICS") === "1"
      ? { metricsEndpoint: "http://127.0.0.1:0/metrics" }
      : {}),
  });
}

const LAST_HANDLED = "kopf.zalando.org/last-handled-configuration";

function handled(o: RawBody): boolean {
  const status = o.status as { createFn?: unknown } | undefined;
  return status?.createFn !== undefined && o.metadata?.annotations?.[LAST_HANDLED] !== undefined;
}

async function measure(
  count: number,
  v8Flags = OPERATOR_V8_FLAGS,
  metrics = false,
): Promise<BenchFigure[]> {
  await using cluster = await FakeCluster.start({ historySize: 4 * count + 1_000 });
  const crd = new URL("../../examples/crd.yaml", import.meta.url);
  cluster.create(parseYaml(await Deno.readTextFile(crd)) as RawBody);

  const child = new ChildProcess([
    ...(v8Flags.length > 0 ? [v8FlagsArgument(v8Flags)] : []),
    new URL(import.meta.url).pathname,
    "--child",
    cluster.url,
    String(count),
  ], {
    stderr: POSTING ? "piped" : "inherit",
    env: {
      KOPF_BENCH_POSTING: POSTING ? "1" : "0",
      KOPF_BENCH_METRICS: metrics ? "1" : "0",
    },
  });
  // With posting on, the operator's warnings tell how many events it could not post.
  const lost = { notPosted: 0, dropped: 0 };
  const warnings = POSTING
    ? (async () => {
      for await (const line of lines(child.process.stderr)) {
        const notPosted = /(\d+) events were not posted/.exec(line);
        const dropped = /(\d+) events were dropped/.exec(line);
        if (notPosted) lost.notPosted += Number(notPosted[1]);
        else if (dropped) lost.dropped += Number(dropped[1]);
        else console.error(line);
      }
    })()
    : Promise.resolve();
  const events = () =>
    cluster.list({ apiVersion: "v1", kind: "Event" }, { allNamespaces: true }).length;
  let afterStop = 0;
  try {
    await child.expect("READY");
    const counter = new RequestCounter(cluster);
    const drainer = setInterval(() => counter.drain(), 50);
    const created = new Map<string, number>();
    const allStarted = child.expect("ALL-STARTED");
    const first = now();
    for (let i = 0; i < count; i++) {
      const name = `bench-${i}`;
      created.set(name, now());
      cluster.create({ apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: { name } });
      // Let the server stream the events meanwhile, as a real API server would.
      if (i % 50 === 49) await new Promise((resolve) => setTimeout(resolve, 0));
    }
    await allStarted;
    // Watch the request log (cheap) until every object's body was patched, then confirm
    // on the objects: the result in the status and the diff-base in the annotations.
    let objects: RawBody[] = [];
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (counter.patched.size < count) continue;
      objects = cluster.list(KIND);
      if (objects.every(handled)) break;
    }
    clearInterval(drainer);
    counter.drain();
    const rss = rssMb(child.pid);
    child.kill("SIGUSR2");
    const memory = JSON.parse((await child.expect("MEMORY ")).slice("MEMORY ".length));
    const seconds = (counter.lastWrite - first) / 1000;
    const latencies = objects.map((o) => {
      const started = (o.status as { createFn: { started: number } }).createFn.started;
      return started - created.get(String(o.metadata?.name))!;
    }).sort((a, b) => a - b);
    const rate = Math.round(count / seconds);
    const perObject = counter.total / count;
    const writesPerObject = counter.writes / count;
    const objectWrites = (counter.writesTo.get("objects") ?? 0) / count;
    const eventWrites = (counter.writesTo.get("events") ?? 0) / count;
    const n = `${count.toLocaleString("en")} objects` +
      (v8Flags.length > 0 ? "" : " with V8's default heap policy") +
      (metrics ? " with metrics on" : "");
    const postedWhenHandled = POSTING ? events() : 0;
    const postingFigures = (): BenchFigure[] =>
      POSTING
        ? [{
          name: `${n}: Events (posting on)`,
          value: `${postedWhenHandled.toLocaleString("en")} posted when all were handled, ` +
            `${afterStop.toLocaleString("en")} after the stop; ` +
            `${lost.notPosted.toLocaleString("en")} not posted at the stop, ` +
            `${lost.dropped.toLocaleString("en")} dropped from the full queue`,
        }]
        : [];
    figuresAfterStop.push(postingFigures);
    return [
      {
        name: `${n}: all handled in`,
        value: `${seconds.toFixed(2)} s = ${rate.toLocaleString("en")} objects/s`,
        target: `≥ ${RATE_TARGET} objects/s`,
        ok: rate >= RATE_TARGET,
      },
      {
        name: `${n}: creation → handler start`,
        value: `p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${
          percentile(latencies, 99).toFixed(0)
        } ms`,
      },
      {
        name: `${n}: API requests per object`,
        value: `${perObject.toFixed(2)} (${counter.describe()})`,
      },
      {
        name: `${n}: write requests per object`,
        value: `${writesPerObject.toFixed(2)} (object ${objectWrites.toFixed(2)}, events ${
          eventWrites.toFixed(2)
        })`,
        target: `≤ ${WRITES_TARGET}`,
        ok: writesPerObject <= WRITES_TARGET,
      },
      {
        name: `${n}: operator process peak RSS`,
        value: `${rss.peak.toFixed(0)} MB (when all are handled: RSS ${rss.now.toFixed(0)} MB, ` +
          `JS heap used ${mb(memory.heapUsed)} of ${mb(memory.heapTotal)} MB, ` +
          `external ${mb(memory.external)} MB)`,
        target: `≤ ${RSS_TARGET_MB} MB`,
        ok: rss.peak <= RSS_TARGET_MB,
      },
    ];
  } finally {
    await child.stop();
    await warnings;
    if (POSTING) afterStop = events();
  }
}

/** Figures known only once the operator has stopped (its flush of events at the stop). */
const figuresAfterStop: Array<() => BenchFigure[]> = [];

export const section: BenchSection = {
  title: "Operator end to end (one create handler; operator in its own process)",
  async run(): Promise<BenchFigure[]> {
    const figures: BenchFigure[] = [];
    for (const size of SIZES) {
      figures.push(...await measure(size));
      for (const late of figuresAfterStop.splice(0)) figures.push(...late());
    }
    // With metrics on (all of them recorded), for comparison with the same size without.
    const metered = await measure(SIZES[SIZES.length - 1], OPERATOR_V8_FLAGS, true);
    figuresAfterStop.splice(0);
    figures.push(
      ...metered.filter((f) => /all handled|peak RSS/.test(f.name)).map((f) => ({
        name: f.name,
        value: f.value,
      })),
    );
    // Without the operator's V8 flags: throughput and memory only, for comparison.
    const plain = await measure(SIZES[SIZES.length - 1], []);
    figuresAfterStop.splice(0);
    figures.push(
      ...plain.filter((f) => /all handled|peak RSS/.test(f.name)).map((f) => ({
        name: f.name,
        value: f.value,
      })),
    );
    return figures;
  },
};

if (import.meta.main) {
  const at = Deno.args.indexOf("--child");
  if (at < 0) {
    console.error("Run this through the bench driver: deno task bench operator");
    Deno.exit(2);
  }
  await child(Deno.args[at + 1], Number(Deno.args[at + 2]));
}
