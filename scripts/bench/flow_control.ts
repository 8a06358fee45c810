/**
 * The operator against API Priority and Fairness: a fake cluster that executes 4 requests
 * at once (each 5 ms) and answers the rest 429 (no queue), an operator in its own process with one
 * create handler, objects created at once. Two runs side by side: the client's adaptive
 * limit of requests in flight (the default), and the operator's concurrency set by hand to
 * 4 (`settings.batching.workerLimit = 4`, the adaptive limit off) — how many 429s each got,
 * and how their wall times compare.
 *
 *     deno task bench flow_control
 *     KOPF_BENCH_FLOW_COUNT=500 deno task bench flow_control   # a smaller run
 *
 * Run with `--child <url> <mode>`, this file is that operator process.
 */
import { parse as parseYaml } from "yaml";
import type { BenchFigure, BenchSection } from "./types.ts";
import { kopf } from "../../mod.ts";
import type { RawBody } from "../../mod.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { ChildProcess, now } from "./support/process.ts";
import { createBurst } from "./support/bursts.ts";
import { operateUntilTerminated } from "./support/bench_operator.ts";

const KIND = "kopfexamples.kopf.dev";
const COUNT = Number(Deno.env.get("KOPF_BENCH_FLOW_COUNT") ?? 3_000);
const SEATS = 4;
const LATENCY_MS = 5;
const THROTTLED_TARGET = 0.01;
const RATIO_TARGET = 1.3;
const LAST_HANDLED = "kopf.zalando.org/last-handled-configuration";

type Mode = "adaptive" | "by hand";

/** The operator process: serves the fake cluster at `url` until SIGTERM. */
async function child(url: string, mode: Mode): Promise<void> {
  const registry = new kopf.OperatorRegistry();
  kopf.on.login({ registry, id: "bench-login" }, () => ({ server: url }));
  kopf.on.create(KIND, { registry }, function createFn() {
    return "done";
  });
  kopf.configure({ quiet: true });
  const settings = new kopf.OperatorSettings({ posting: { enabled: false } });
  if (mode === "by hand") {
    settings.batching.workerLimit = SEATS;
    settings.networking.adaptiveConcurrency = false;
  }
  await operateUntilTerminated({ registry, settings, clusterwide: true });
}

/** One run: the seconds from the first creation until all are handled, and the 429s. */
async function measure(mode: Mode): Promise<{ seconds: number; sent: number; rejected: number }> {
  await using cluster = await FakeCluster.start({
    maxInflight: SEATS,
    maxQueued: 0,
    historySize: 4 * COUNT + 1_000,
  });
  const crd = new URL("../../examples/crd.yaml", import.meta.url);
  cluster.create(parseYaml(await Deno.readTextFile(crd)) as RawBody);
  // Held with the seat, as a request's time on a real server: without it, the fake server
  // answers each request within one turn of its event loop, and seats would rarely overlap.
  cluster.faults.latency(LATENCY_MS);
  await using operator = new ChildProcess([
    new URL(import.meta.url).pathname,
    "--child",
    cluster.url,
    mode,
  ]);
  await operator.expect("READY");
  const before = cluster.traffic.flowControl;
  const first = now();
  await createBurst(cluster, COUNT, "b-");
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const objects = cluster.list(KIND);
    if (objects.every((o) => o.metadata?.annotations?.[LAST_HANDLED] !== undefined)) break;
  }
  const seconds = (now() - first) / 1000;
  const after = cluster.traffic.flowControl;
  const rejected = after.rejected - before.rejected;
  return { seconds, rejected, sent: after.dispatched - before.dispatched + rejected };
}

const measured: Record<Mode, { seconds: number; sent: number; rejected: number }> = {
  adaptive: { seconds: 0, sent: 0, rejected: 0 },
  "by hand": { seconds: 0, sent: 0, rejected: 0 },
};

export const section: BenchSection = {
  title: `API Priority and Fairness: ${COUNT.toLocaleString("en")} objects at once, ${SEATS} ` +
    `seats of ${LATENCY_MS} ms, no queue (operator in its own process)`,
  async run(): Promise<BenchFigure[]> {
    const figures: BenchFigure[] = [];
    for (const mode of ["adaptive", "by hand"] as const) {
      const run = measured[mode] = await measure(mode);
      const share = run.rejected / run.sent;
      figures.push({
        name: mode === "adaptive"
          ? "adaptive limit (default): 429s"
          : `workerLimit ${SEATS}, adaptive limit off: 429s`,
        value: `${run.rejected} of ${run.sent.toLocaleString("en")} requests (${
          (share * 100).toFixed(2)
        }%), all handled in ${run.seconds.toFixed(2)} s`,
        ...(mode === "adaptive"
          ? { target: `≤ ${THROTTLED_TARGET * 100}%`, ok: share <= THROTTLED_TARGET }
          : {}),
      });
    }
    const ratio = measured.adaptive.seconds / measured["by hand"].seconds;
    figures.push({
      name: "wall time, adaptive / by hand",
      value: `${ratio.toFixed(2)}×`,
      target: `≤ ${RATIO_TARGET}×`,
      ok: ratio <= RATIO_TARGET,
    });
    return figures;
  },
};

if (import.meta.main) {
  const at = Deno.args.indexOf("--child");
  if (at < 0) {
    console.error("Run this through the bench driver: deno task bench flow_control");
    Deno.exit(2);
  }
  await child(Deno.args[at + 1], Deno.args[at + 2] as Mode);
}
