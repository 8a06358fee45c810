/**
 * The framework beside other ways to write the same controller, on the fake cluster,
 * side by side in one run: for every KopfExample created (examples/crd.yaml), write one
 * status PATCH saying when handling started.
 *
 * - (a) floor: plain `fetch` — one LIST, one WATCH, one merge PATCH of the status per new
 *   object, 16 at a time (`compare/floor.ts`);
 * - (a2) floor-twice: the floor, writing also an annotation to the object before the
 *   status, as the operator does with its default storages: two requests per object with a
 *   status subresource (so run by default only then), which tells what that second write
 *   costs apart from what the framework does;
 * - (b) client-node: `@kubernetes/client-node`'s informer and
 *   `CustomObjectsApi.patchNamespacedCustomObjectStatus` (a merge patch), 16 at a time
 *   (`compare/client_node.ts`). It makes a new `http.Agent` for every request, so each PATCH
 *   opens a TCP connection of its own (the others keep theirs alive); that is part of what
 *   it costs. (Its node-fetch prints a DeprecationWarning about `punycode` to stderr.)
 * - (c) kopf: this framework's operator, standalone and cluster-wide, with one create
 *   handler returning a result, no batching window, no Events posted (`compare/kopf.ts`).
 *   It writes twice per object: the result to the status, and its diff-base annotation
 *   (`last-handled-configuration`) to the body, which the others do not keep; once with
 *   `KOPF_BENCH_COMPARE_STORAGE=status` or without the status subresource. Its writes go
 *   over the framework's own HTTP/1.1 connections (`src/platform/http1_agent.ts`), not
 *   `fetch`: that is part of the framework, and part of what is compared.
 * - (d) python-kopf: Python Kopf doing what (c) does, with the same writes
 *   (`compare/python_kopf.py`), where it is found: a checkout of github.com/nolar/kopf
 *   named by `KOPF_BENCH_COMPARE_PYTHON_KOPF` (its dependencies installed for the Python),
 *   or an installed `kopf`, for `KOPF_BENCH_COMPARE_PYTHON`, else `python3`, else
 *   `/usr/bin/python3` (`support/python_kopf.ts`); else one line says how to get it and the
 *   others run. It prints no READY (Kopf has no hook after its initial listing): it is ready
 *   when the cluster sees its WATCH of the objects. Its row says how this operator compares
 *   with it: the issue's memory target is a peak RSS below Kopf's while being faster.
 *
 * Each controller runs in its own child process (so that memory and CPU are its own), one
 * after another, each against a fresh FakeCluster started the same way in this process (so
 * that none sees the objects, history or load of another), after an unmeasured round of the
 * floor with 10,000 objects that compiles the fake cluster's code in this process (else the
 * first controller measured would serve a slower cluster; `KOPF_BENCH_COMPARE_WARMUP=0`
 * skips it); the objects are created in the
 * cluster's process, as fast as it takes them (yielding every 50 so that it serves the
 * controller meanwhile), the same way for all three. Per controller and size:
 *
 * - wall time: from the first creation to the last write request to an object (the
 *   cluster's request log), when every object is seen handled;
 * - CPU per object: the child's user + system CPU time (`/proc/<pid>/stat` utime + stime,
 *   all its threads, in clock ticks of `getconf CLK_TCK`, usually 10 ms) spent from when it
 *   said READY (start-up and its first, empty LIST excluded) until all objects are handled,
 *   divided by the objects — at 1,000 objects only some 15–60 ticks, so ±1 tick is a few %;
 *   and, beside the ratio to the floor's, the same ratio with the start-up's CPU counted in
 *   (from the spawn: the issue's measure at 1,000 objects, where a start-up weighs), and the
 *   CPU per object of the second half alone (from when the request log showed writes to half
 *   of the objects, looked for every 10 ms, to the end): the steady state, without the
 *   start-up and the warm-up of the first objects, whose cost does not grow with the count;
 *   and of the CPU, what the child's threads other than its main one spent
 *   (`/proc/<pid>/task`): for Deno, V8 compiling the hot code in the background and helping
 *   the garbage collector -- a cost of how much code runs hot, not of what it does per object;
 * - API requests and writes per object, from the cluster's request log (only that
 *   controller talks to its cluster);
 * - peak RSS: the child's VmHWM (`/proc/<pid>/status`), start-up included; its RSS at
 *   READY is shown beside it;
 * - latency from an object's creation (in this process) to the start of its handling in the
 *   child (the handler's call, or a pool worker taking it up), both clocks being
 *   `performance.timeOrigin + performance.now()`; p50 and p99;
 * - (b) and (c) as multiples of (a): wall time and CPU per object. The floor's wall time is
 *   close to how long creating the objects takes (shown beside it): the cluster's pace.
 *
 * The Deno children run with the V8 flags of the `kopf` task and compiled binaries
 * (`src/cli/runtime_flags.ts`), so that the runtime is the same; `KOPF_BENCH_COMPARE_V8=default`
 * runs them with V8's defaults instead, and `KOPF_BENCH_COMPARE_V8=--flag,--flag` with
 * those flags. `KOPF_BENCH_COMPARE_KOPF_V8=--flag,--flag;default;…` runs the operator again
 * with each of those sets (`kopf-v8-1`, …), right after it, to tune its flags side by side;
 * each set keeps V8's compiled code in a cache of its own (`support/process.ts`,
 * `codeCacheApart`), which its first run fills.
 * The peak RSS is shown with what was anonymous memory (heaps, stacks) and what mapped
 * files (the runtime's executable) when ready and at the end. A markdown table of the
 * figures ends the output.
 *
 *     deno task bench compare                                          # 1,000 and 10,000
 *     KOPF_BENCH_COMPARE_SIZES=1000,10000,100000 deno task bench compare   # 100k takes long
 *     KOPF_BENCH_COMPARE_CONTROLLERS=floor,kopf deno task bench compare    # only these
 *     KOPF_BENCH_COMPARE_ROUNDS=3 deno task bench compare   # three rounds, and their medians
 *                                  # (and the baseline's and the flags' ratios to kopf's,
 *                                  # paired round by round)
 *     KOPF_BENCH_COMPARE_PYTHON_KOPF=../kopf KOPF_BENCH_COMPARE_SIZES=2000 \
 *       KOPF_BENCH_COMPARE_CONTROLLERS=floor,kopf,python-kopf deno task bench compare
 *                                  # and Python Kopf from a checkout of it
 *     KOPF_BENCH_COMPARE_CONTROLLERS=floor,kopf,kopf-apply deno task bench compare
 *                                  # and the operator's writes by server-side apply
 *     KOPF_BENCH_COMPARE_CONTROLLERS=floor,kopf,kopf-no-conditions deno task bench compare
 *                                  # and the operator without the status conditions
 *     KOPF_BENCH_COMPARE_CONTROLLERS=floor,kopf,kopf-bundled deno task bench compare
 *                                  # and the operator with the package as JSR serves it,
 *                                  # its runtime bundled (built first by `build:jsr`'s
 *                                  # code: support/bundled_operator.ts)
 *     KOPF_BENCH_COMPARE_PROFILE=<dir> deno task bench compare  # CPU profiles of each
 *     KOPF_BENCH_COMPARE_POOL=32 deno task bench compare   # the plain controllers' PATCH pool
 *     KOPF_BENCH_COMPARE_STATUS=none deno task bench compare  # the CRD without /status
 *     KOPF_BENCH_COMPARE_BASELINE=../other-checkout deno task bench compare
 *     KOPF_BENCH_COMPARE_PACE=20 KOPF_BENCH_COMPARE_SIZES=200 deno task bench compare
 *     KOPF_BENCH_COMPARE_EXISTING=1 KOPF_BENCH_COMPARE_SIZES=100000 deno task bench compare
 *     KOPF_BENCH_COMPARE_HEAP=1 deno task bench compare    # + the heap the operator keeps
 *     KOPF_BENCH_COMPARE_LIST_MODE=paginate deno task bench compare   # the operator's listMode
 *     KOPF_BENCH_COMPARE_STORAGE=status deno task bench compare   # the operator's storages
 *     KOPF_BENCH_COMPARE_GC=1 deno task bench compare   # + the collector's pauses of each
 *
 * `KOPF_BENCH_COMPARE_STATUS=none` serves the CRD without its status subresource: the plain
 * controllers then patch the object itself, and kopf writes its result and diff-base in one
 * request (with the subresource, they are two: see docs/writes.md).
 * `KOPF_BENCH_COMPARE_STORAGE=status` gives the operator `StatusProgressStorage` and
 * `StatusDiffBaseStorage`: it then keeps everything in the status, in one write per object
 * with the subresource too.
 * `KOPF_BENCH_COMPARE_BASELINE` names another checkout of this project: its kopf controller
 * runs too, as `baseline`, just before this one's, for a before/after comparison in one run
 * (on a shared machine, runs minutes apart are not comparable).
 * `KOPF_BENCH_COMPARE_PACE=<ms>` creates the objects that many milliseconds apart instead
 * of in a burst: the latency then is a handling's own, not a backlog's.
 *
 * With `KOPF_BENCH_COMPARE_EXISTING=1`, the objects are all created before the controller
 * starts instead, so that its start-up (the initial listing of a big cluster) is what is
 * measured: wall time from spawning the child to the last write; CPU from spawning it
 * (start-up included, its part until READY shown beside); latency from spawning it to the
 * start of each object's handling. `KOPF_BENCH_COMPARE_HEAP=1` reports the JS heap that the
 * kopf operator keeps per object once all is handled (see below);
 * `KOPF_BENCH_COMPARE_LIST_MODE` sets its `settings.watching.listMode`.
 *
 * `KOPF_BENCH_COMPARE_GC=1` runs the Deno controllers with V8's `--trace-gc` (their code
 * cached apart, as other flags are) and reports how often and how long the garbage collector
 * paused each one's main thread from READY to the last write (`support/gc_trace.ts`): the
 * collector's share, which the CPU read from `/proc` does not tell apart. With rounds, the
 * medians table shows them per object and against the floor's.
 */
import { parse as parseYaml } from "yaml";
import type { BenchFigure, BenchSection } from "./types.ts";
import type { RawBody } from "../../mod.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { OPERATOR_V8_FLAGS, v8FlagsArgument } from "../../src/cli/runtime_flags.ts";
import {
  ChildProcess,
  codeCacheApart,
  cpuSeconds,
  now,
  rssMb,
  threadCpuSeconds,
} from "./support/process.ts";
import { GcTally } from "./support/gc_trace.ts";
import { findPythonKopf, type PythonKopf } from "./support/python_kopf.ts";
import { RequestCounter } from "./support/requests.ts";
import { markdownTable, median, percentile } from "./support/stats.ts";
import { statusSubresource } from "./compare/pool.ts";
import { bundledPackageConfig } from "./support/bundled_operator.ts";

const KIND = "kopfexamples.kopf.dev";
const LAST_HANDLED = "kopf.zalando.org/last-handled-configuration";
/** Whether to serve an unmeasured round first (`KOPF_BENCH_COMPARE_WARMUP=0`: not). */
const WARM_UP = Deno.env.get("KOPF_BENCH_COMPARE_WARMUP") !== "0";
/** Whether the operator keeps its progress and diff-base in the status (one write per object). */
const IN_STATUS = Deno.env.get("KOPF_BENCH_COMPARE_STORAGE") === "status";
/** Give up when no object got handled for this long. */
const STALL_MS = 60_000;

function envList(name: string, fallback: string): string[] {
  return (Deno.env.get(name) ?? fallback).split(",").map((s) => s.trim()).filter(Boolean);
}

const SIZES = envList("KOPF_BENCH_COMPARE_SIZES", "1000,10000").map((s) => {
  const n = Number(s.replaceAll("_", ""));
  if (!Number.isInteger(n) || n <= 0) throw new Error(`Not a size: ${s}`);
  return n;
});
/** V8 flags from a setting: `default` (none), `--flag,--flag`, or the operator's when unset. */
function v8Flags(setting: string | undefined): readonly string[] {
  return setting === "default"
    ? []
    : setting
    ? setting.split(",").map((flag) => flag.trim()).filter((flag) => flag !== "")
    : OPERATOR_V8_FLAGS;
}
const V8_FLAGS = v8Flags(Deno.env.get("KOPF_BENCH_COMPARE_V8"));
/** Other V8 flags to run the operator with too, beside its own (`;` between the sets). */
const KOPF_V8 = (Deno.env.get("KOPF_BENCH_COMPARE_KOPF_V8") ?? "").split(";")
  .map((setting) => setting.trim()).filter(Boolean).map(v8Flags);
const STATUS_SUBRESOURCE = statusSubresource();
const BASELINE = Deno.env.get("KOPF_BENCH_COMPARE_BASELINE");
const PACE_MS = Number(Deno.env.get("KOPF_BENCH_COMPARE_PACE") ?? 0);
/**
 * How many times the whole sequence runs (`KOPF_BENCH_COMPARE_ROUNDS`): each round measures
 * every controller once per size, the floor first; with more than one, a table of medians
 * ends the output, its ratios the medians of each round's own (a round's controllers ran
 * minutes apart at most, on the same machine's load).
 */
const ROUNDS = Number(Deno.env.get("KOPF_BENCH_COMPARE_ROUNDS") ?? 1);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) {
  throw new Error(`KOPF_BENCH_COMPARE_ROUNDS must be a whole number ≥ 1, not ${ROUNDS}`);
}
/** Whether the objects exist before the controller starts (its initial listing is measured). */
const EXISTING = Deno.env.get("KOPF_BENCH_COMPARE_EXISTING") === "1";
/**
 * Whether to measure the JS heap that the kopf operator keeps once all is handled and its
 * workers have ended (after a full GC; the child runs with `--expose-gc`).
 */
const HEAP = Deno.env.get("KOPF_BENCH_COMPARE_HEAP") === "1";
/** Whether to trace the Deno controllers' garbage collections (see the module docs). */
const GC = Deno.env.get("KOPF_BENCH_COMPARE_GC") === "1";
/** Where the controllers write V8 CPU profiles (`--cpu-prof`), if anywhere. */
const PROFILES = Deno.env.get("KOPF_BENCH_COMPARE_PROFILE");
/**
 * How long to wait after the last write before measuring the kept heap: the operator's idle
 * workers live 5 s (`settings.batching.idleTimeout`) after the echoes of its own patches,
 * which may still be on their way; a margin for those.
 */
const IDLE_WORKERS_MS = 5_000 + 15_000;

/** One of the controllers compared. */
interface Controller {
  key: string;
  label: string;
  /** The child's module, next to this one. */
  module: string;
  /** The checkout it runs from: this one by default. */
  root?: URL;
  /** The child's configuration, if not the checkout's (the bundled package's). */
  config?: string;
  /** Arguments of the child after the server's URL and the kubeconfig. */
  args?: string[];
  /** The V8 flags of the child, if not those of all (`KOPF_BENCH_COMPARE_V8`). */
  v8?: readonly string[];
  /**
   * Python Kopf, which runs `module` (with Deno's V8 flags and profiles not applying) and
   * prints no READY: it is ready when the cluster sees its WATCH of the objects.
   */
  python?: PythonKopf;
  /** Whether the request log says that every object may be handled (then it is checked). */
  mayBeDone(counter: RequestCounter, count: number): boolean;
  /** When the child started handling the object, if it has handled it. */
  started(object: RawBody): number | undefined;
}

function handledAt(object: RawBody): number | undefined {
  return (object.status as { handled?: number } | undefined)?.handled;
}

const CONTROLLERS: Controller[] = [
  {
    key: "floor",
    label: "(a) floor: plain fetch",
    module: "compare/floor.ts",
    mayBeDone: (counter, count) => statusWritten(counter) >= count,
    started: handledAt,
  },
  {
    key: "floor-twice",
    label: "(a2) floor writing twice: an annotation, then the status",
    module: "compare/floor.ts",
    args: ["--twice"],
    mayBeDone: (counter, count) =>
      statusWritten(counter) >= count && (!STATUS_SUBRESOURCE || counter.patched.size >= count),
    started: handledAt,
  },
  {
    key: "client-node",
    label: "(b) @kubernetes/client-node informer",
    module: "compare/client_node.ts",
    mayBeDone: (counter, count) => statusWritten(counter) >= count,
    started: handledAt,
  },
  kopfController("kopf", "(c) kopf operator"),
  {
    ...kopfController("kopf-apply", "(c2) kopf operator, its writes by server-side apply"),
    args: ["--apply"],
  },
  {
    ...kopfController("kopf-no-conditions", "(c3) kopf operator without the status conditions"),
    args: ["--no-conditions"],
  },
  kopfController("kopf-bundled", "(c1) kopf operator, bundled"),
];
/** Python Kopf, if it is asked for (or the controllers are not named) and found; else why not. */
const ASKED = Deno.env.get("KOPF_BENCH_COMPARE_CONTROLLERS");
const PYTHON_KOPF = ASKED === undefined || envList("KOPF_BENCH_COMPARE_CONTROLLERS", "")
    .includes("python-kopf")
  ? findPythonKopf()
  : undefined;
// Beside this framework's operator, with the same writes (its default storages too).
CONTROLLERS.splice(CONTROLLERS.findIndex((c) => c.key === "kopf") + 1, 0, {
  ...kopfController("python-kopf", "(d) Python Kopf"),
  module: "compare/python_kopf.py",
  python: typeof PYTHON_KOPF === "object" ? PYTHON_KOPF : undefined,
});
// The operator with other V8 flags, right after it: `kopf-v8-1`, `kopf-v8-2`, ….
CONTROLLERS.splice(
  CONTROLLERS.findIndex((c) => c.key === "kopf") + 1,
  0,
  ...KOPF_V8.map((v8, i) => ({
    ...kopfController(
      `kopf-v8-${i + 1}`,
      `(c${i + 4}) kopf operator, ${v8.length > 0 ? `V8 flags ${v8.join(" ")}` : "V8's defaults"}`,
    ),
    v8,
  })),
);
if (BASELINE !== undefined) {
  const root = new URL(`${BASELINE.replace(/\/*$/, "/")}`, `file://${Deno.cwd()}/`);
  CONTROLLERS.splice(2, 0, {
    ...kopfController("baseline", `(c0) kopf operator of ${BASELINE}`),
    root,
  });
}

/** How many objects have had their status written: to `…/status`, or to the object. */
function statusWritten(counter: RequestCounter): number {
  return (STATUS_SUBRESOURCE ? counter.statusPatched : counter.patched).size;
}

function kopfController(key: string, label: string): Controller {
  return {
    key,
    label,
    module: "compare/kopf.ts",
    // The result goes to the status, the diff-base annotation to the body: two patches
    // with a status subresource, one without; one in both cases with the diff-base in the
    // status.
    mayBeDone: (counter, count) =>
      IN_STATUS ? statusWritten(counter) >= count : (!STATUS_SUBRESOURCE ||
        counter.statusPatched.size >= count) && counter.patched.size >= count,
    started: (object) => {
      const status = object.status as {
        createFn?: { started?: number };
        kopf?: Record<string, unknown>;
      } | undefined;
      const stored = IN_STATUS
        ? status?.kopf?.["last-handled-configuration"]
        : object.metadata?.annotations?.[LAST_HANDLED];
      return stored !== undefined ? status?.createFn?.started : undefined;
    },
  };
}

// The floor that writes twice tells apart, with a status subresource, what the operator's
// second write costs from what the framework does; without one it is the floor again.
const WANTED = [
  ...envList(
    "KOPF_BENCH_COMPARE_CONTROLLERS",
    CONTROLLERS.filter((c) => c.key !== "floor-twice" || (STATUS_SUBRESOURCE && !IN_STATUS))
      .filter((c) => !["kopf-apply", "kopf-no-conditions", "kopf-bundled"].includes(c.key))
      .filter((c) => c.key !== "python-kopf" || c.python !== undefined)
      .filter((c) => !c.key.startsWith("kopf-v8-"))
      .map((c) => c.key).join(","),
  ),
  ...KOPF_V8.map((_, i) => `kopf-v8-${i + 1}`),
];
for (const key of WANTED) {
  if (!CONTROLLERS.some((c) => c.key === key)) {
    throw new Error(`Unknown controller ${key}; known: ${CONTROLLERS.map((c) => c.key)}`);
  }
}

/** The figures of one controller at one size. */
interface Row {
  controller: Controller;
  count: number;
  seconds: number;
  /** Seconds that creating the objects took (the cluster's pace). */
  creation: number;
  /** CPU seconds from READY to all handled. */
  cpu: number;
  /** CPU seconds before READY (start-up). */
  startupCpu: number;
  /**
   * Of `cpu`, the seconds on threads other than the main one: V8's optimizing compilers and
   * garbage collection helpers, the runtime's I/O.
   */
  otherThreadsCpu: number;
  /**
   * CPU seconds from when half of the objects had their writes until all were handled, and
   * how many objects were left then: the steady state, after the code's warm-up.
   */
  late: { cpu: number; count: number };
  requests: number;
  writes: number;
  verbs: string;
  peakRss: number;
  readyRss: number;
  /** What was anonymous and what mapped files, when ready and at the end. */
  rssParts: string;
  p50: number;
  p99: number;
  /** The JS heap kept after handling, beyond the one before the operator (bytes). */
  retained?: number;
  /**
   * The garbage collector's pauses of the main thread from READY to all handled, by kind
   * and in all (`KOPF_BENCH_COMPARE_GC`; not for Python Kopf).
   */
  gc?: { kinds: string; count: number; ms: number };
}

async function measure(controller: Controller, count: number): Promise<Row> {
  await using cluster = await FakeCluster.start({ historySize: 4 * count + 1_000 });
  const crd = parseYaml(
    await Deno.readTextFile(new URL("../../examples/crd.yaml", import.meta.url)),
  ) as RawBody & { spec: { versions: Array<{ subresources?: Record<string, unknown> }> } };
  if (!STATUS_SUBRESOURCE) {
    for (const version of crd.spec.versions) delete version.subresources?.status;
  }
  cluster.create(crd);
  const kubeconfig = await cluster.writeKubeconfig();
  // Every request of the controller counts, its start-up's (LIST, WATCH, …) too.
  const counter = new RequestCounter(cluster);
  const drainer = setInterval(() => counter.drain(), 50);
  using _drainer = { [Symbol.dispose]: () => clearInterval(drainer) };

  const created = new Map<string, number>();
  /** Create the objects (in a burst, or paced); returns when it started. */
  const createAll = async (): Promise<number> => {
    const first = now();
    for (let i = 0; i < count; i++) {
      const name = `bench-${i}`;
      created.set(name, now());
      cluster.create({ apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: { name } });
      if (PACE_MS > 0) {
        await new Promise((resolve) => setTimeout(resolve, PACE_MS));
      } else if (i % 50 === 49) {
        // Let the server stream the events meanwhile, as a real API server would.
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    }
    return first;
  };
  let first = 0;
  let creation = 0;
  if (EXISTING) {
    const began = await createAll();
    creation = (now() - began) / 1000;
  }
  // Made before the spawn's time is taken: the first for a set of flags asks Deno for its cache.
  const env = controller.v8 === undefined && !GC
    ? undefined
    : await codeCacheApart(childFlags(controller));
  const gc = GC && controller.python === undefined ? new GcTally() : undefined;
  const spawned = now();
  await using child = spawn(controller, cluster.url, kubeconfig, env, gc);
  const exited = child.process.status.then((status) => {
    throw new Error(`The ${controller.key} controller exited with code ${status.code}.`);
  });
  exited.catch(() => {}); // raised only while awaited
  await Promise.race([
    controller.python ? watching(cluster, controller) : child.expect("READY"),
    exited,
  ]);
  const startupCpu = await cpuSeconds(child.pid);
  gc?.start();
  const readyThreads = await threadCpuSeconds(child.pid);
  const ready = rssMb(child.pid);

  // The CPU and the objects written when half of them were, looked for every 10 ms from
  // now on: while the objects are created too (paced, that is most of the run).
  let half: { cpu: number; written: number } | undefined;
  let looking = true;
  const halfway = (async () => {
    while (looking && half === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      counter.drain();
      const written = Math.max(counter.patched.size, counter.statusPatched.size);
      if (written >= count / 2) half = { cpu: await cpuSeconds(child.pid), written };
    }
  })();
  if (EXISTING) {
    // Everything counts from the spawn: the start-up is the listing of all the objects.
    first = spawned;
    for (const name of created.keys()) created.set(name, spawned);
  } else {
    first = await createAll();
    creation = (now() - first) / 1000;
  }
  // Watch the request log (cheap) until it says all may be handled, then confirm on the
  // objects themselves.
  let objects: RawBody[] = [];
  let progress = { handled: -1, at: now() };
  for (;;) {
    await Promise.race([new Promise((resolve) => setTimeout(resolve, 50)), exited]);
    const written = Math.max(counter.patched.size, counter.statusPatched.size);
    if (written > progress.handled) progress = { handled: written, at: now() };
    if (now() - progress.at > STALL_MS) {
      throw new Error(`The ${controller.key} controller stalled at ${written} of ${count}.`);
    }
    if (!controller.mayBeDone(counter, count)) continue;
    objects = cluster.list(KIND);
    if (objects.every((o) => controller.started(o) !== undefined)) break;
  }
  looking = false;
  await halfway;
  const end = await cpuSeconds(child.pid);
  gc?.stop();
  const endThreads = await threadCpuSeconds(child.pid);
  const cpu = end - (EXISTING ? 0 : startupCpu);
  half ??= { cpu: end, written: count };
  const rss = rssMb(child.pid);
  counter.drain();
  // The requests and the last write so far: the kept-heap measurement waits after them.
  const requests = { total: counter.total, writes: counter.writes, verbs: counter.describe() };
  const lastWrite = counter.lastWrite;
  let retained: number | undefined;
  if (heapToo(controller)) {
    await new Promise((resolve) => setTimeout(resolve, IDLE_WORKERS_MS));
    child.kill("SIGUSR2");
    const heap = JSON.parse((await child.expect("HEAP")).slice(5)) as { base: number; now: number };
    retained = heap.now - heap.base;
  }
  const latencies = objects.map((o) =>
    controller.started(o)! - created.get(String(o.metadata?.name))!
  ).sort((a, b) => a - b);
  return {
    controller,
    count,
    seconds: (lastWrite - first) / 1000,
    creation,
    cpu,
    startupCpu,
    otherThreadsCpu: endThreads.others - (EXISTING ? 0 : readyThreads.others),
    late: { cpu: end - half.cpu, count: count - half.written },
    requests: requests.total,
    writes: requests.writes,
    verbs: requests.verbs,
    peakRss: rss.peak,
    readyRss: ready.now,
    rssParts: `${fmt(ready.anon)} + ${fmt(ready.file)} MB when ready, ${fmt(rss.anon)} + ${
      fmt(rss.file)
    } MB at the end`,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    retained,
    gc: gc === undefined ? undefined : { kinds: gc.describe(), ...gc.total },
  };
}

/** The V8 flags of a Deno controller's process. */
function childFlags(controller: Controller): string[] {
  return [
    ...controller.v8 ?? V8_FLAGS,
    ...(heapToo(controller) ? ["--expose-gc"] : []),
    ...(GC ? ["--trace-gc"] : []),
  ];
}

/**
 * The controller's child process, talking to the cluster at `url`; `env` for a Deno child
 * with flags of its own (its code cache apart); `gc` takes its traces of collections.
 */
function spawn(
  controller: Controller,
  url: string,
  kubeconfig: string,
  env: Record<string, string> | undefined,
  gc: GcTally | undefined,
): ChildProcess {
  const root = controller.root ?? new URL("../../", import.meta.url);
  const module = new URL(`scripts/bench/${controller.module}`, root).pathname;
  const args = [module, url, kubeconfig, ...controller.args ?? []];
  if (controller.python) {
    return new ChildProcess(args, {
      program: controller.python.python,
      env: controller.python.env,
    });
  }
  const flags = childFlags(controller);
  return new ChildProcess([
    ...(PROFILES === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${PROFILES}`]),
    "--config",
    controller.config ?? new URL("deno.json", root).pathname,
    ...(flags.length > 0 ? [v8FlagsArgument(flags)] : []),
    ...args,
  ], gc === undefined ? { env } : { env, onLine: (line) => gc.take(line), wholeLines: true });
}

/** Until the cluster has seen the controller's WATCH of the objects (for one printing no READY). */
async function watching(cluster: FakeCluster, controller: Controller): Promise<void> {
  const began = now();
  while (
    !cluster.requests.some((r) => r.verb === "watch" && r.path.endsWith("/kopfexamples"))
  ) {
    if (now() - began > STALL_MS) {
      throw new Error(`The ${controller.key} controller did not watch the objects.`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Whether the kept heap is measured for this controller (only this operator reports it). */
function heapToo(controller: Controller): boolean {
  return HEAP && controller.key === "kopf";
}

function fmt(n: number, digits = 0): string {
  return n.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function cpuPerObjectMs(row: Row): number {
  return (row.cpu / row.count) * 1000;
}

/**
 * CPU per object in the second half of the objects (from when half had their writes): the
 * steady state, without the start-up and the first objects' warm-up (the runtime compiling
 * and tiering up the code that handles them), whose cost is the same whatever the count.
 */
function lateCpuPerObjectMs(row: Row): number {
  return row.late.count > 0 ? (row.late.cpu / row.late.count) * 1000 : NaN;
}

/**
 * CPU per object with the start-up counted in (the issue's measure at 1,000 objects, where a
 * start-up weighs): the child's whole CPU time, from its spawn, over the objects.
 */
function cpuWithStartupMs(row: Row): number {
  return ((row.cpu + (EXISTING ? 0 : row.startupCpu)) / row.count) * 1000;
}

function figuresOf(row: Row, floor: Row | undefined, kopf: Row | undefined): BenchFigure[] {
  const n = `${fmt(row.count)} objects, ${row.controller.label}`;
  const figures: BenchFigure[] = [
    {
      name: `${n}: wall time`,
      value: `${row.seconds.toFixed(2)} s = ${fmt(row.count / row.seconds)} objects/s ` +
        `(creating them took ${row.creation.toFixed(2)} s)`,
    },
    {
      name: `${n}: CPU per object`,
      value: `${cpuPerObjectMs(row).toFixed(3)} ms (${row.cpu.toFixed(2)} s in all; ` +
        (EXISTING
          ? `${row.startupCpu.toFixed(2)} s of it until READY)`
          : `${row.startupCpu.toFixed(2)} s of start-up before it)`) +
        `; ${lateCpuPerObjectMs(row).toFixed(3)} ms in the second half; ` +
        `${row.otherThreadsCpu.toFixed(2)} s on threads other than the main one`,
    },
    {
      name: `${n}: writes per object`,
      value: `${(row.writes / row.count).toFixed(2)} (API requests ${
        (row.requests / row.count).toFixed(2)
      } per object: ${row.verbs})`,
    },
    {
      name: `${n}: peak RSS`,
      value: `${row.peakRss.toFixed(0)} MB (${row.readyRss.toFixed(0)} MB when ready; ` +
        `anonymous + files: ${row.rssParts})`,
    },
    ...(row.retained === undefined ? [] : [{
      name: `${n}: JS heap kept after handling`,
      value: `${(row.retained / 1e6).toFixed(1)} MB = ${fmt(row.retained / row.count)} bytes ` +
        "per object (after a full GC, idle workers ended, beyond the heap before the start)",
    }]),
    ...(row.gc === undefined ? [] : [{
      name: `${n}: garbage collection`,
      value:
        `${row.gc.count} pauses, ${row.gc.ms.toFixed(0)} ms = ${
          gcPerObjectUs(row).toFixed(1)
        } µs per ` +
        `object (${row.gc.kinds}; V8's --trace-gc, from READY to the last write)`,
    }]),
    {
      name: EXISTING ? `${n}: spawn → start of handling` : `${n}: creation → start of handling`,
      value: `p50 ${row.p50.toFixed(0)} ms, p99 ${row.p99.toFixed(0)} ms`,
    },
  ];
  if (floor && floor !== row) {
    figures.push({
      name: `${n}: compared with the floor`,
      value:
        `wall time ×${(row.seconds / floor.seconds).toFixed(2)}, CPU per object ${
          ratio(row, floor, cpuPerObjectMs)
        }${EXISTING ? "" : ` (start-up included ${ratio(row, floor, cpuWithStartupMs)})`}` +
        `, in the second half ${ratio(row, floor, lateCpuPerObjectMs)}`,
    });
  }
  if (kopf && row.controller.key === "python-kopf") {
    figures.push({
      name: `${fmt(row.count)} objects: kopf compared with Python Kopf`,
      value: `wall time ×${(kopf.seconds / row.seconds).toFixed(2)}, CPU per object ×${
        (cpuPerObjectMs(kopf) / cpuPerObjectMs(row)).toFixed(2)
      }, peak RSS ×${(kopf.peakRss / row.peakRss).toFixed(2)} (when ready ×${
        (kopf.readyRss / row.readyRss).toFixed(2)
      })`,
    });
  }
  return figures;
}

/** The medians' cells of the collector's pauses per object (in µs), and their ratio to the floor's. */
function gcCells(
  group: readonly { row: Row }[],
  ratios: (of: (r: Row) => number) => string,
): string[] {
  const traced = group.filter(({ row }) => row.gc !== undefined);
  if (traced.length === 0) return ["–", "–"];
  return [
    `${median(traced.map(({ row }) => gcPerObjectUs(row))).toFixed(1)} µs`,
    ratios(gcPerObjectUs),
  ];
}

/** The collector's pauses per object, in µs (with `KOPF_BENCH_COMPARE_GC`; NaN without). */
function gcPerObjectUs(row: Row): number {
  return row.gc === undefined ? NaN : row.gc.ms * 1000 / row.count;
}

function ratio(row: Row, floor: Row | undefined, of: (r: Row) => number): string {
  return floor ? `×${(of(row) / of(floor)).toFixed(2)}` : "–";
}

/**
 * Per size and controller, the medians of the rounds (`KOPF_BENCH_COMPARE_ROUNDS`) and their
 * ranges: wall time, CPU per object, peak RSS, and the ratios to the floor of each round.
 */
function medians(rows: readonly { row: Row; floor: Row | undefined }[]): string {
  const groups = new Map<string, { row: Row; floor: Row | undefined }[]>();
  for (const each of rows) {
    const key = `${each.row.count}\u0000${each.row.controller.key}`;
    groups.set(key, [...groups.get(key) ?? [], each]);
  }
  const range = (values: number[], digits: number, unit: string) =>
    `${median(values).toFixed(digits)}${unit} (${Math.min(...values).toFixed(digits)}–${
      Math.max(...values).toFixed(digits)
    })`;
  const head = [
    "Objects",
    "Controller",
    "Wall time",
    "CPU/object",
    "Peak RSS",
    "Time vs floor",
    "CPU vs floor",
    ...(EXISTING ? [] : ["CPU vs floor, start-up included"]),
    "CPU vs floor, second half",
    ...(GC ? ["GC pauses/object", "GC vs floor"] : []),
  ];
  return markdownTable(
    head,
    [...groups.values()].map((group) => {
      const { count, controller } = group[0].row;
      const against = group.filter(({ row, floor }) => floor !== undefined && floor !== row);
      const ratios = (of: (r: Row) => number) =>
        against.length === 0
          ? "–"
          : `×${range(against.map(({ row, floor }) => of(row) / of(floor!)), 2, "")}`;
      return [
        fmt(count),
        controller.key,
        range(group.map(({ row }) => row.seconds), 2, " s"),
        range(group.map(({ row }) => cpuPerObjectMs(row)), 3, " ms"),
        range(group.map(({ row }) => row.peakRss), 0, " MB"),
        ratios((r) => r.seconds),
        ratios(cpuPerObjectMs),
        ...(EXISTING ? [] : [ratios(cpuWithStartupMs)]),
        ratios(lateCpuPerObjectMs),
        ...(GC ? gcCells(group, ratios) : []),
      ];
    }),
  );
}

/**
 * The other operators (`baseline`, `kopf-v8-N`, ...) paired with this one round by round: per
 * size, the median and range of each round's ratio of the other's figure to this operator's
 * (measured in the same round), and in how many rounds the other's was lower. A change
 * measured so takes out most of what a busy machine does to both: the rounds' own floors
 * vary by more than a change is worth.
 */
function paired(rows: readonly { row: Row; round: number }[]): string {
  const kopf = new Map<string, Row>();
  for (const { row, round } of rows) {
    if (row.controller.key === "kopf") kopf.set(`${row.count}\u0000${round}`, row);
  }
  const groups = new Map<string, { row: Row; kopf: Row }[]>();
  for (const { row, round } of rows) {
    const key = row.controller.key;
    const mine = kopf.get(`${row.count}\u0000${round}`);
    if (mine === undefined || !(key === "baseline" || key.startsWith("kopf-"))) continue;
    const group = `${row.count}\u0000${key}`;
    groups.set(group, [...groups.get(group) ?? [], { row, kopf: mine }]);
  }
  if (groups.size === 0) return "";
  const head = [
    "Objects",
    "Controller",
    "Wall time vs kopf",
    "CPU vs kopf",
    ...(EXISTING ? [] : ["CPU vs kopf, start-up included"]),
    "Peak RSS vs kopf",
  ];
  const cells = [...groups.values()].map((group) => {
    const column = (of: (r: Row) => number) => {
      const values = group.map(({ row, kopf }) => of(row) / of(kopf));
      const lower = values.filter((value) => value < 1).length;
      return `×${median(values).toFixed(3)} (${Math.min(...values).toFixed(2)}–${
        Math.max(...values).toFixed(2)
      }; lower in ${lower} of ${values.length})`;
    };
    return [
      fmt(group[0].row.count),
      group[0].row.controller.key,
      column((r) => r.seconds),
      column(cpuPerObjectMs),
      ...(EXISTING ? [] : [column(cpuWithStartupMs)]),
      column((r) => r.peakRss),
    ];
  });
  return `\n\nThe others paired with kopf, round by round (the median of each round's ratio):` +
    `\n\n${markdownTable(head, cells)}`;
}

/** The figures as a markdown table, for the README; each row against the floor of its run. */
function table(rows: readonly { row: Row; floor: Row | undefined }[]): string {
  const head = [
    "Objects",
    "Controller",
    "Wall time",
    "Objects/s",
    "CPU/object",
    "Writes/object",
    "Peak RSS",
    "Latency p50 / p99",
    "Time vs floor",
    "CPU vs floor",
  ];
  return markdownTable(
    head,
    rows.map(({ row, floor }) => [
      fmt(row.count),
      row.controller.key,
      `${row.seconds.toFixed(2)} s`,
      fmt(row.count / row.seconds),
      `${cpuPerObjectMs(row).toFixed(3)} ms`,
      (row.writes / row.count).toFixed(2),
      `${row.peakRss.toFixed(0)} MB`,
      `${row.p50.toFixed(0)} / ${row.p99.toFixed(0)} ms`,
      ratio(row, floor, (r) => r.seconds),
      ratio(row, floor, cpuPerObjectMs),
    ]),
  );
}

/**
 * The rows measured, each with the floor measured before it at its size (the same run) and
 * the round it was measured in.
 */
const rows: { row: Row; floor: Row | undefined; round: number }[] = [];
const floors = new Map<number, Row>();
/** This operator's row at each size, which Python Kopf's is compared with. */
const kopfs = new Map<number, Row>();

export const section: BenchSection = {
  title: "Compared: plain fetch, @kubernetes/client-node, kopf, Python Kopf " +
    "(same job, each in its own process)",
  async run(): Promise<BenchFigure[]> {
    const figures: BenchFigure[] = [];
    if (typeof PYTHON_KOPF === "string") console.error(`python-kopf left out: ${PYTHON_KOPF}`);
    const bundled = CONTROLLERS.find((c) => c.key === "kopf-bundled" && WANTED.includes(c.key));
    if (bundled !== undefined) {
      bundled.config = await bundledPackageConfig(new URL("../../", import.meta.url));
    }
    if (WARM_UP) {
      // The fake cluster runs in this process: its code is compiled while it serves the
      // first controller, which would make that one (the floor) look slower than the others.
      await measure(CONTROLLERS[0], 10_000);
      // A bundle just built has no compiled code cached yet: its first run leaves it.
      if (bundled !== undefined) await measure(bundled, 1_000);
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const count of SIZES) {
        for (const controller of CONTROLLERS.filter((c) => WANTED.includes(c.key))) {
          if (controller.key === "python-kopf" && !controller.python) continue;
          const row = await measure(controller, count);
          if (controller.key === "floor") floors.set(count, row);
          if (controller.key === "kopf") kopfs.set(count, row);
          rows.push({ row, floor: floors.get(count), round });
          figures.push(...figuresOf(row, floors.get(count), kopfs.get(count)));
        }
      }
    }
    return figures;
  },
  footer(): string {
    const cpus = navigator.hardwareConcurrency;
    const v8 = V8_FLAGS.length > 0 ? `V8 flags ${V8_FLAGS.join(" ")}` : "V8's default flags";
    const python = rows.some(({ row }) => row.controller.python)
      ? `; Python Kopf ${(PYTHON_KOPF as PythonKopf).found} run by ` +
        (PYTHON_KOPF as PythonKopf).python
      : "";
    const pace = PACE_MS > 0 ? `; objects created ${PACE_MS} ms apart` : "";
    const crd = STATUS_SUBRESOURCE
      ? "the CRD with its status subresource"
      : "the CRD without a status subresource";
    const storages = IN_STATUS ? "; the operator's progress and diff-base in the status" : "";
    const how = EXISTING
      ? "the objects created before the controller starts; wall time from its spawn to the " +
        "last write; CPU = the controller process's user + system time from its spawn; " +
        "latency = spawn → start of handling"
      : "wall time from the first creation to the last write; CPU = the controller " +
        "process's user + system time while handling (from READY; its start-up too where " +
        "said); latency = creation → start of handling";
    return `${table(rows)}${
      ROUNDS > 1 ? `\n\nMedians of ${ROUNDS} rounds:\n\n${medians(rows)}${paired(rows)}` : ""
    }` +
      `\n\n(${cpus} cores; ${v8}${python}; ${crd}${storages}${pace}; each controller ` +
      `in its own process against a fresh fake cluster; ${how}.)`;
  },
};
