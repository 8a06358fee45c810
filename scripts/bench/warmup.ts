/**
 * Warm-up: the CPU of bursts of objects handled one after another in one controller process,
 * the floor of the comparison (`compare/floor.ts`) beside this framework's operator
 * (`compare/kopf.ts`, its records in the status: one write per object), each in a process of
 * its own against a fresh fake cluster, with the V8 flags of the `kopf` task. It tells apart
 * what `bench compare` measures as one figure: the start-up, the warm-up of the first objects
 * (the runtime compiling and tiering up the code that handles them: the same whatever the
 * count) and the steady state.
 *
 * Per controller: the child's CPU (`/proc/<pid>/stat`, user + system, in clock ticks, usually
 * 10 ms) at READY, then after each burst of `KOPF_BENCH_WARMUP_SIZE` objects (500) created at
 * once, once the cluster shows every object of it handled and 0.3 s more have passed (the
 * CPU of that quiet is in the burst's); `KOPF_BENCH_WARMUP_BURSTS` bursts (5); the medians of
 * `KOPF_BENCH_WARMUP_RUNS` runs (3), the controllers taking turns in each.
 * `KOPF_BENCH_WARMUP_KOPF_V8=--flag,--flag` runs the operator a second time in each turn, with
 * those V8 flags added (`kopf-v8`, its compiled code cached apart), to try them side by side.
 *
 *     deno task bench warmup
 *     KOPF_BENCH_WARMUP_SIZE=2500 KOPF_BENCH_WARMUP_BURSTS=4 deno task bench warmup
 */
import { parse as parseYaml } from "yaml";
import type { BenchFigure, BenchSection } from "./types.ts";
import type { RawBody } from "../../mod.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { OPERATOR_V8_FLAGS, v8FlagsArgument } from "../../src/cli/runtime_flags.ts";
import { ChildProcess, codeCacheApart, cpuSeconds } from "./support/process.ts";
import { markdownTable, median } from "./support/stats.ts";

function count(name: string, fallback: number): number {
  const value = Number(Deno.env.get(name) ?? fallback);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name}: a count, more than 0.`);
  return value;
}

const RUNS = count("KOPF_BENCH_WARMUP_RUNS", 3);
const BURSTS = count("KOPF_BENCH_WARMUP_BURSTS", 5);
const SIZE = count("KOPF_BENCH_WARMUP_SIZE", 500);
/** V8 flags added to the operator's own (`KOPF_BENCH_WARMUP_KOPF_V8`), to try them beside it. */
const KOPF_V8 = (Deno.env.get("KOPF_BENCH_WARMUP_KOPF_V8") ?? "").split(",").filter(Boolean);
/** The quiet after each burst, before its CPU is read (ms). */
const QUIET_MS = 300;
/** Give up when a burst is not handled within this long (ms). */
const STALL_MS = 60_000;

interface Controller {
  key: string;
  label: string;
  module: string;
  /** V8 flags added to the operator's. */
  v8?: string[];
}

const CONTROLLERS: Controller[] = [
  { key: "floor", label: "(a) floor: plain fetch", module: "compare/floor.ts" },
  { key: "kopf", label: "(c) kopf operator, one write", module: "compare/kopf.ts" },
  ...(KOPF_V8.length === 0 ? [] : [{
    key: "kopf-v8",
    label: `(c1) kopf operator, one write, with ${KOPF_V8.join(" ")}`,
    module: "compare/kopf.ts",
    v8: KOPF_V8,
  }]),
];

/** Whether the controller has handled the object: the floor's mark, or the handler's result. */
function handled(object: RawBody): boolean {
  const status = object.status as Record<string, unknown> | undefined;
  return status?.handled !== undefined || status?.createFn !== undefined;
}

/** CPU seconds of one run: at READY, then of each burst. */
interface Run {
  startup: number;
  bursts: number[];
}

async function run(controller: Controller): Promise<Run> {
  await using cluster = await FakeCluster.start({ historySize: 4 * BURSTS * SIZE + 1_000 });
  cluster.create(
    parseYaml(
      await Deno.readTextFile(new URL("../../examples/crd.yaml", import.meta.url)),
    ) as RawBody,
  );
  const kubeconfig = await cluster.writeKubeconfig();
  const flags = [...OPERATOR_V8_FLAGS, ...controller.v8 ?? []];
  await using child = new ChildProcess([
    "--config",
    new URL("../../deno.json", import.meta.url).pathname,
    v8FlagsArgument(flags),
    new URL(controller.module, import.meta.url).pathname,
    cluster.url,
    kubeconfig,
  ], {
    env: {
      KOPF_BENCH_COMPARE_STORAGE: "status",
      ...controller.v8 === undefined ? {} : await codeCacheApart(flags),
    },
  });
  const exited = child.process.status.then((status) => {
    throw new Error(`The ${controller.key} controller exited with code ${status.code}.`);
  });
  exited.catch(() => {}); // raised only while awaited
  await Promise.race([child.expect("READY"), exited]);
  const startup = await cpuSeconds(child.pid);
  const bursts: number[] = [];
  let last = startup;
  for (let burst = 0; burst < BURSTS; burst++) {
    for (let i = 0; i < SIZE; i++) {
      const name = `warm-${burst * SIZE + i}`;
      cluster.create({ apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: { name } });
      // Let the server stream the events meanwhile, as a real API server would.
      if (i % 50 === 49) await new Promise((resolve) => setTimeout(resolve, 0));
    }
    const began = performance.now();
    const total = (burst + 1) * SIZE;
    while (cluster.list("kopfexamples.kopf.dev").filter(handled).length < total) {
      if (performance.now() - began > STALL_MS) {
        throw new Error(`The ${controller.key} controller stalled in burst ${burst + 1}.`);
      }
      await Promise.race([new Promise((resolve) => setTimeout(resolve, 20)), exited]);
    }
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    const cpu = await cpuSeconds(child.pid);
    bursts.push(cpu - last);
    last = cpu;
  }
  return { startup, bursts };
}

const ms = (seconds: number) => `${(seconds * 1000).toFixed(0)}`;
const rows: { controller: Controller; runs: Run[] }[] = [];

export const section: BenchSection = {
  title: `Warm-up: CPU of ${BURSTS} bursts of ${SIZE} objects in one process, after its start-up`,
  async run(): Promise<BenchFigure[]> {
    const runs = new Map<string, Run[]>(CONTROLLERS.map((c) => [c.key, []]));
    for (let each = 0; each < RUNS; each++) {
      for (const controller of CONTROLLERS) runs.get(controller.key)!.push(await run(controller));
    }
    const figures: BenchFigure[] = [];
    for (const controller of CONTROLLERS) {
      const list = runs.get(controller.key)!;
      rows.push({ controller, runs: list });
      const bursts = Array.from({ length: BURSTS }, (_, i) => median(list.map((r) => r.bursts[i])));
      figures.push({
        name: `${controller.label}: CPU (medians of ${RUNS} runs)`,
        value: `start-up ${ms(median(list.map((r) => r.startup)))} ms; bursts ${
          bursts.map(ms).join(", ")
        } ms`,
      });
    }
    return figures;
  },
  footer(): string {
    const head = [
      "Controller",
      "Start-up",
      ...Array.from({ length: BURSTS }, (_, i) => `${i + 1}.`),
    ];
    const range = (values: number[]) => {
      const low = ms(Math.min(...values));
      const high = ms(Math.max(...values));
      return low === high ? low : `${low}-${high}`;
    };
    const table = markdownTable(
      head,
      rows.map(({ controller, runs }) => [
        controller.key,
        range(runs.map((r) => r.startup)),
        ...Array.from({ length: BURSTS }, (_, i) => range(runs.map((r) => r.bursts[i]))),
      ]),
    );
    return `${table}\n\n(CPU in ms, the ranges of ${RUNS} runs taking turns; bursts ` +
      `of ${SIZE} objects, each handled and followed by ${QUIET_MS} ms of quiet; ` +
      `V8 flags ${OPERATOR_V8_FLAGS.join(" ")}` +
      (KOPF_V8.length > 0 ? `; kopf-v8 with ${KOPF_V8.join(" ")} too.)` : ".)");
  },
};
