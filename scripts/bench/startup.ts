/**
 * Start-up: how long this framework's operator takes from its process's spawn to its first
 * WATCH, beside the floor of the comparison (`compare/floor.ts`: plain `fetch`, one LIST and
 * one WATCH) doing the same, each in a process of its own against a fresh, empty fake cluster
 * (the CRD only), with the V8 flags of the `kopf` task (as `compare.ts` runs them). The
 * operator is `compare/kopf.ts`: one create handler, standalone, cluster-wide, no webhooks.
 *
 * Per controller, the medians of several runs (`KOPF_BENCH_STARTUP_RUNS`, 7 by default), the
 * controllers taking turns within each run (so that a busy moment of a shared machine falls
 * on all alike), after one unmeasured run of each (which fills Deno's caches):
 *
 * - spawn → first WATCH: from spawning the child to the arrival of its first WATCH of the
 *   objects it serves (KopfExamples) at the cluster (its request log), in ms — when it may
 *   handle them; the operator's watch of CRDs, which comes earlier, does not count;
 * - CPU until READY: the child's user + system CPU time (`/proc/<pid>/stat`, in clock ticks,
 *   usually 10 ms) when it says READY (its watch open);
 * - RSS at READY (`/proc/<pid>/status` VmRSS);
 * - requests until READY: those the cluster answered, and of them discovery's (a count, the
 *   same in every run: what the operator asks before it watches);
 * - the operator's figures as multiples of the floor's medians;
 * - where the start goes, in ms after the spawn: the stages the operator's child stamps
 *   itself (`support/start_stages.ts`: its first module evaluated, its imports done, the
 *   operator called, READY), and the first request and the first WATCH the cluster got.
 *
 * `KOPF_BENCH_STARTUP_BASELINE=<another checkout>` runs that checkout's operator too, as
 * `baseline`, in the same turns: the commit before a change beside it, in one run.
 *
 * `KOPF_BENCH_STARTUP_KOPF_V8=--flag,--flag` starts the operator a second time in each turn
 * with those V8 flags added (`kopf-v8`, its compiled code cached apart), to try them.
 *
 * `KOPF_BENCH_STARTUP_BUNDLED=1` starts the operator a second time in each turn with the
 * package as JSR serves it, its runtime bundled (`kopf-bundled`: `deno task build:jsr`'s
 * build first, as `support/bundled_operator.ts` says).
 *
 * `KOPF_BENCH_STARTUP_CRDS=<n>` puts that many more CRDs in the cluster, of other groups, each
 * with a schema of some 40 KB (`KOPF_BENCH_STARTUP_CRD_KB`): a cluster's CRDs, as add-ons
 * install them, which the operator lists and watches to notice the resources that come and go
 * (the floor does not).
 *
 *     deno task bench startup
 *     KOPF_BENCH_STARTUP_RUNS=15 deno task bench startup
 *     KOPF_BENCH_STARTUP_BASELINE=../main deno task bench startup
 *     KOPF_BENCH_STARTUP_CRDS=200 deno task bench startup
 *     KOPF_BENCH_STARTUP_BUNDLED=1 deno task bench startup
 */
import { parse as parseYaml } from "yaml";
import type { BenchFigure, BenchSection } from "./types.ts";
import type { RawBody } from "../../mod.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { OPERATOR_V8_FLAGS, v8FlagsArgument } from "../../src/cli/runtime_flags.ts";
import { ChildProcess, codeCacheApart, cpuSeconds, now, rssMb } from "./support/process.ts";
import { markdownTable, median } from "./support/stats.ts";
import { type Stage, STAGES, stagesOf } from "./support/start_stages.ts";
import { bundledPackageConfig } from "./support/bundled_operator.ts";

const RUNS = Number(Deno.env.get("KOPF_BENCH_STARTUP_RUNS") ?? 7);
if (!Number.isInteger(RUNS) || RUNS <= 0) throw new Error("KOPF_BENCH_STARTUP_RUNS: a count.");
const BASELINE = Deno.env.get("KOPF_BENCH_STARTUP_BASELINE");
/** The target: the operator's time to its first watch at most this many times the floor's. */
const TARGET = 2;
const CRDS = Number(Deno.env.get("KOPF_BENCH_STARTUP_CRDS") ?? 0);
const CRD_KB = Number(Deno.env.get("KOPF_BENCH_STARTUP_CRD_KB") ?? 40);
if (!Number.isInteger(CRDS) || CRDS < 0) throw new Error("KOPF_BENCH_STARTUP_CRDS: a count.");
if (!(CRD_KB > 0)) throw new Error("KOPF_BENCH_STARTUP_CRD_KB: kilobytes, more than 0.");

/**
 * A CRD of a group of its own whose schema takes some `kb` kilobytes of JSON: string fields
 * with descriptions, as generated schemas have them.
 */
function syntheticCrd(index: number, kb: number): RawBody {
  const properties: Record<string, { type: string; description: string }> = {};
  const description = "A field of the synthetic schema, described as generated schemas " +
    "describe theirs: what it holds, its default and the values it takes.";
  for (let i = 0; JSON.stringify(properties).length < kb * 1024; i += 1) {
    properties[`field${i}`] = { type: "string", description: `${description} (${i})` };
  }
  const group = `g${index}.bench.example`;
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `things.${group}` },
    spec: {
      group,
      scope: "Namespaced",
      names: { plural: "things", singular: "thing", kind: "Thing", listKind: "ThingList" },
      versions: [{
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: { spec: { type: "object", properties }, status: { type: "object" } },
          },
        },
      }],
    },
  };
}

interface Starter {
  key: string;
  label: string;
  /** The child's script under `scripts/bench/` of `root`. */
  module: string;
  root: URL;
  /** The child's configuration, if not the checkout's (the bundled package's). */
  config?: string;
  /** V8 flags added to the `kopf` task's. */
  v8?: string[];
}

/** V8 flags added to the operator's (`KOPF_BENCH_STARTUP_KOPF_V8`), to try them beside it. */
const KOPF_V8 = (Deno.env.get("KOPF_BENCH_STARTUP_KOPF_V8") ?? "").split(",").filter(Boolean);

/** Whether to start the operator bundled too (`KOPF_BENCH_STARTUP_BUNDLED=1`). */
const BUNDLED = Deno.env.get("KOPF_BENCH_STARTUP_BUNDLED") === "1";

const HERE = new URL("../../", import.meta.url);
const STARTERS: Starter[] = [
  { key: "floor", label: "(a) floor: plain fetch", module: "compare/floor.ts", root: HERE },
  ...(BASELINE === undefined ? [] : [{
    key: "baseline",
    label: `(c0) kopf operator of ${BASELINE}`,
    module: "compare/kopf.ts",
    root: new URL(`${BASELINE.replace(/\/*$/, "/")}`, `file://${Deno.cwd()}/`),
  }]),
  { key: "kopf", label: "(c) kopf operator", module: "compare/kopf.ts", root: HERE },
  ...(KOPF_V8.length === 0 ? [] : [{
    key: "kopf-v8",
    label: `(c1) kopf operator with ${KOPF_V8.join(" ")}`,
    module: "compare/kopf.ts",
    root: HERE,
    v8: KOPF_V8,
  }]),
  ...(!BUNDLED ? [] : [{
    key: "kopf-bundled",
    label: "(c2) kopf operator, bundled",
    module: "compare/kopf.ts",
    root: HERE,
  }]),
];

/**
 * One start: ms from the spawn to the first WATCH, CPU seconds at READY, and the requests
 * the cluster answered until READY, those of discovery among them (a count, not a time:
 * the same in every run, whatever else the machine does).
 */
interface Start {
  toWatch: number;
  cpu: number;
  /** RSS at READY, in MB. */
  rss: number;
  requests: number;
  discovery: number;
  /** ms after the spawn: the first request of any kind the cluster got. */
  firstRequest: number;
  /** ms after the spawn: the stages the child stamped (none for one that stamps none). */
  stages: Partial<Record<Stage, number>>;
}

/** Discovery's documents: `/api`, `/apis`, a group's, a group version's. */
const DISCOVERY_PATH = /^\/(api(\/[^/]+)?|apis(\/[^/]+){0,2})$/;

async function start(starter: Starter): Promise<Start> {
  await using cluster = await FakeCluster.start();
  cluster.create(
    parseYaml(
      await Deno.readTextFile(new URL("../../examples/crd.yaml", import.meta.url)),
    ) as RawBody,
  );
  for (let i = 0; i < CRDS; i++) cluster.create(syntheticCrd(i, CRD_KB));
  const kubeconfig = await cluster.writeKubeconfig();
  const flags = [...OPERATOR_V8_FLAGS, ...starter.v8 ?? []];
  // Made before the spawn's time is taken: the first for a set of flags asks Deno for its cache.
  const env = starter.v8 === undefined ? undefined : await codeCacheApart(flags);
  let stages: Partial<Record<Stage, number>> = {};
  const spawned = now();
  await using child = new ChildProcess([
    "--config",
    starter.config ?? new URL("deno.json", starter.root).pathname,
    v8FlagsArgument(flags),
    new URL(`scripts/bench/${starter.module}`, starter.root).pathname,
    cluster.url,
    kubeconfig,
  ], {
    ...(env === undefined ? {} : { env }),
    onLine: (line) => {
      const stamped = stagesOf(line, spawned);
      if (stamped !== undefined) stages = stamped;
      return stamped !== undefined;
    },
  });
  const exited = child.process.status.then((status) => {
    throw new Error(`The ${starter.key} controller exited with code ${status.code}.`);
  });
  exited.catch(() => {}); // raised only while awaited
  await Promise.race([child.expect("READY"), exited]);
  const cpu = await cpuSeconds(child.pid);
  const rss = rssMb(child.pid).now;
  const watch = cluster.requests.find((request) =>
    request.verb === "watch" && request.path.endsWith("/kopfexamples")
  );
  if (watch === undefined) throw new Error(`The ${starter.key} controller said READY unwatched.`);
  const requests = cluster.requests;
  const discovery = requests.filter((r) => r.verb === "" && DISCOVERY_PATH.test(r.path)).length;
  return {
    toWatch: watch.time.getTime() - spawned,
    cpu,
    rss,
    requests: requests.length,
    discovery,
    firstRequest: requests[0].time.getTime() - spawned,
    stages,
  };
}

const medians = new Map<string, Start>();

/** The median of each stage over the starts that stamped it. */
function stageMedians(starts: readonly Start[]): Partial<Record<Stage, number>> {
  const result: Partial<Record<Stage, number>> = {};
  for (const stage of STAGES) {
    const times = starts.flatMap((s) => s.stages[stage] ?? []);
    if (times.length > 0) result[stage] = median(times);
  }
  return result;
}

export const section: BenchSection = {
  title: "Start-up: spawn → first WATCH, the operator beside the floor (each in its own process)",
  async run(): Promise<BenchFigure[]> {
    const starts = new Map<string, Start[]>(STARTERS.map((s) => [s.key, []]));
    for (const starter of STARTERS.filter((s) => s.key === "kopf-bundled")) {
      starter.config = await bundledPackageConfig(starter.root);
    }
    for (const starter of STARTERS) await start(starter); // Deno's caches, unmeasured
    for (let run = 0; run < RUNS; run++) {
      for (const starter of STARTERS) starts.get(starter.key)!.push(await start(starter));
    }
    for (const [key, list] of starts) {
      medians.set(key, {
        toWatch: median(list.map((s) => s.toWatch)),
        cpu: median(list.map((s) => s.cpu)),
        rss: median(list.map((s) => s.rss)),
        requests: median(list.map((s) => s.requests)),
        discovery: median(list.map((s) => s.discovery)),
        firstRequest: median(list.map((s) => s.firstRequest)),
        stages: stageMedians(list),
      });
    }
    const floor = medians.get("floor")!;
    const figures: BenchFigure[] = [];
    for (const starter of STARTERS) {
      const { toWatch, cpu, rss, requests, discovery } = medians.get(starter.key)!;
      const all = starts.get(starter.key)!.map((s) => s.toWatch.toFixed(0)).join(", ");
      figures.push({
        name: `${starter.label}: spawn → first WATCH (median of ${RUNS})`,
        value: `${toWatch.toFixed(0)} ms (runs: ${all}); CPU until READY ${cpu.toFixed(2)} s; ` +
          `RSS at READY ${rss.toFixed(1)} MB; ` +
          `${requests} requests until READY, ${discovery} of discovery`,
      });
      if (starter.key === "floor") continue;
      const ratio = toWatch / floor.toWatch;
      figures.push({
        name: `${starter.label}: compared with the floor`,
        value: `spawn → first WATCH ×${ratio.toFixed(2)}, CPU until READY ×${
          (cpu / floor.cpu).toFixed(2)
        }`,
        ...(starter.key === "kopf" || starter.key === "kopf-bundled"
          ? { target: `≤ ×${TARGET}`, ok: ratio <= TARGET }
          : {}),
      });
    }
    return figures;
  },
  footer(): string {
    const floor = medians.get("floor");
    if (floor === undefined) return "";
    const table = markdownTable(
      [
        "Controller",
        "Spawn → first WATCH",
        "CPU until READY",
        "RSS at READY",
        "vs floor: time",
        "vs floor: CPU",
        "Requests until READY",
      ],
      STARTERS.map((starter) => {
        const { toWatch, cpu, rss, requests, discovery } = medians.get(starter.key)!;
        return [
          starter.key,
          `${toWatch.toFixed(0)} ms`,
          `${cpu.toFixed(2)} s`,
          `${rss.toFixed(1)} MB`,
          `×${(toWatch / floor.toWatch).toFixed(2)}`,
          `×${(cpu / floor.cpu).toFixed(2)}`,
          `${requests} (${discovery} of discovery)`,
        ];
      }),
    );
    const ms = (value: number | undefined) => value === undefined ? "–" : `${value.toFixed(1)}`;
    const stagesTable = markdownTable(
      [
        "Controller",
        "first module evaluated",
        "imports done",
        "operator()",
        "first request",
        "first WATCH",
        "READY",
      ],
      STARTERS.map((starter) => {
        const { stages, firstRequest, toWatch } = medians.get(starter.key)!;
        return [
          starter.key,
          ms(stages.evaluated),
          ms(stages.imported),
          ms(stages.operator),
          ms(firstRequest),
          ms(toWatch),
          ms(stages.ready),
        ];
      }),
    );
    return `${table}\n\nWhere the start goes, ms after the spawn (medians; "–": not stamped by ` +
      `that child):\n\n${stagesTable}\n\n(${navigator.hardwareConcurrency} cores; V8 flags ` +
      `${OPERATOR_V8_FLAGS.join(" ")}; medians of ${RUNS} runs, taking turns; an empty cluster${
        CRDS > 0 ? ` with ${CRDS} more CRDs of some ${CRD_KB} KB each` : ""
      }${KOPF_V8.length > 0 ? `; kopf-v8 with ${KOPF_V8.join(" ")} too` : ""}.)`;
  },
};
