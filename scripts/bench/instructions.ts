/**
 * Instructions per object: the floor of the comparison (`compare/floor.ts`) and this
 * framework's operator (`compare/kopf.ts`), each in a process of its own under Valgrind's
 * callgrind against a fresh fake cluster, counting the instructions the process executes (all
 * its threads, in user space) from READY until every object of a burst is written.
 *
 * The CPU time of `bench compare` moves by 20-30% from run to run on a shared or virtual
 * machine, more than most changes of the work per object are worth; this count moves by 1-2%,
 * so a change of a few percent shows in two runs side by side. It is not the CPU time: the
 * kernel's work (the system calls, as many for both) is not counted, nor what cache misses and
 * branches cost, and the process runs some ten to fifty times slower, so it takes the burst in
 * smaller bites (fewer objects waiting, more turns of the event loop) than at full speed, and
 * its compilers tier up after fewer objects. Read it beside the CPU, not instead of it.
 *
 * - `KOPF_BENCH_INSTRUCTIONS_SIZE`: the objects of the burst (2,000);
 * - `KOPF_BENCH_INSTRUCTIONS_RUNS`: the runs, the controllers taking turns in each (1);
 *   with more, the medians;
 * - `KOPF_BENCH_INSTRUCTIONS_WRITES=2`: the operator with Kopf's default storages, two writes
 *   per object, and `floor-twice` (the floor making the same two) beside; by default one write,
 *   the operator's progress and diff-base in the status;
 * - `KOPF_BENCH_INSTRUCTIONS_BASELINE=<another checkout>`: that checkout's operator too, as
 *   `baseline`, in the same turns: the commit before a change beside it;
 * - `KOPF_BENCH_INSTRUCTIONS_KOPF_V8=--flag,--flag`: the operator a second time in each turn,
 *   with those V8 flags added (`kopf-v8`), to try them;
 * - `KOPF_BENCH_INSTRUCTIONS_CONTROLLERS=floor,kopf,kopf-no-conditions`: only these, in this
 *   order (`kopf-no-conditions`: the operator without its status conditions; `kopf-bundled`:
 *   the operator with the package as JSR serves it, built first, see
 *   `support/bundled_operator.ts`); all but those two by default;
 * - `KOPF_BENCH_INSTRUCTIONS_FUNCTIONS=<n>`: also where the instructions went, per controller
 *   (its last run): the `n` JavaScript functions, builtins and bytecode handlers that executed
 *   most themselves, by V8's perf map of its code (`--perf-basic-prof`), and the `n` V8 runtime
 *   functions and C++ builtins under which most was executed (named from the `deno`
 *   executable's relocations, with binutils' `readelf`); then what moved most for `kopf`
 *   against the `baseline`, or the floor; last, how much each controller executes under V8's
 *   entries that compile or tier code, and how much of the operator's excess over the
 *   `baseline` or the floor that is. The perf map costs the process some 10% more
 *   instructions; compare counts of runs made alike. See `support/callgrind_functions.ts`.
 *
 * Without Valgrind, one line says how to get it, and nothing is measured.
 *
 *     deno task bench instructions
 *     KOPF_BENCH_INSTRUCTIONS_BASELINE=../main KOPF_BENCH_INSTRUCTIONS_RUNS=3 \
 *       deno task bench instructions
 */
import { parse as parseYaml } from "yaml";
import type { BenchFigure, BenchSection } from "./types.ts";
import type { RawBody } from "../../mod.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { OPERATOR_V8_FLAGS, v8FlagsArgument } from "../../src/cli/runtime_flags.ts";
import { ChildProcess } from "./support/process.ts";
import { RequestCounter } from "./support/requests.ts";
import { createBurst } from "./support/bursts.ts";
import { markdownTable, median } from "./support/stats.ts";
import {
  callgrindArgs,
  callgrindControl,
  callgrindProblem,
  callgrindTotal,
} from "./support/callgrind.ts";
import { BY_ADDRESS_ARGS, PERF_MAP_V8_FLAGS } from "./support/callgrind_functions.ts";
import { bundledPackageConfig } from "./support/bundled_operator.ts";
import {
  type InstructionProfile,
  instructionProfile,
  profileTables,
} from "./support/instruction_profiles.ts";

const SIZE = Number(Deno.env.get("KOPF_BENCH_INSTRUCTIONS_SIZE") ?? 2_000);
const RUNS = Number(Deno.env.get("KOPF_BENCH_INSTRUCTIONS_RUNS") ?? 1);
for (const [name, value] of [["SIZE", SIZE], ["RUNS", RUNS]] as const) {
  if (!Number.isInteger(value) || value < 1) {
    throw new Error(`KOPF_BENCH_INSTRUCTIONS_${name} must be a whole number ≥ 1, not ${value}.`);
  }
}
const TWO_WRITES = Deno.env.get("KOPF_BENCH_INSTRUCTIONS_WRITES") === "2";
const ASKED = Deno.env.get("KOPF_BENCH_INSTRUCTIONS_CONTROLLERS")?.split(",").map((key) =>
  key.trim()
);
const BASELINE = Deno.env.get("KOPF_BENCH_INSTRUCTIONS_BASELINE");
/** V8 flags added to the operator's, to try them beside it. */
const KOPF_V8 = (Deno.env.get("KOPF_BENCH_INSTRUCTIONS_KOPF_V8") ?? "").split(",").filter(Boolean);
const FUNCTIONS = Number(Deno.env.get("KOPF_BENCH_INSTRUCTIONS_FUNCTIONS") ?? 0);
if (!Number.isInteger(FUNCTIONS) || FUNCTIONS < 0) {
  throw new Error(
    `KOPF_BENCH_INSTRUCTIONS_FUNCTIONS must be a whole number ≥ 0, not ${FUNCTIONS}.`,
  );
}
/** A controller that writes nothing for this long has stalled. */
const STALL_MS = 120_000;

interface Counted {
  key: string;
  label: string;
  module: string;
  root: URL;
  args?: string[];
  /** Whether it writes the object as well as its status (then both are awaited). */
  twice: boolean;
  /** V8 flags beside the operators' own. */
  v8?: string[];
  /** The child's configuration, if not the checkout's (the bundled package's). */
  config?: string;
}

const HERE = new URL("../../", import.meta.url);
const KOPF_MODULE = "compare/kopf.ts";
const KNOWN: Counted[] = [
  {
    key: "floor",
    label: "(a) floor: plain fetch",
    module: "compare/floor.ts",
    root: HERE,
    twice: false,
  },
  ...(TWO_WRITES
    ? [{
      key: "floor-twice",
      label: "(a2) floor writing twice",
      module: "compare/floor.ts",
      root: HERE,
      args: ["--twice"],
      twice: true,
    }]
    : []),
  ...(BASELINE === undefined ? [] : [{
    key: "baseline",
    label: `(c0) kopf operator of ${BASELINE}`,
    module: KOPF_MODULE,
    root: new URL(`${BASELINE.replace(/\/*$/, "/")}`, `file://${Deno.cwd()}/`),
    twice: TWO_WRITES,
  }]),
  { key: "kopf", label: "(c) kopf operator", module: KOPF_MODULE, root: HERE, twice: TWO_WRITES },
  ...(KOPF_V8.length === 0 ? [] : [{
    key: "kopf-v8",
    label: `(c2) kopf operator with ${KOPF_V8.join(" ")}`,
    module: KOPF_MODULE,
    root: HERE,
    twice: TWO_WRITES,
    v8: KOPF_V8,
  }]),
  {
    key: "kopf-bundled",
    label: "(c3) kopf operator, the package as JSR serves it",
    module: KOPF_MODULE,
    root: HERE,
    twice: TWO_WRITES,
  },
  {
    key: "kopf-no-conditions",
    label: "(c1) kopf operator without the status conditions",
    module: KOPF_MODULE,
    root: HERE,
    args: ["--no-conditions"],
    twice: TWO_WRITES,
  },
];
const CONTROLLERS: Counted[] = ASKED === undefined
  ? KNOWN.filter((c) => c.key !== "kopf-no-conditions" && c.key !== "kopf-bundled")
  : ASKED.map((key) => {
    const known = KNOWN.find((c) => c.key === key);
    if (known === undefined) {
      throw new Error(
        `KOPF_BENCH_INSTRUCTIONS_CONTROLLERS: no controller ${key} here; known: ${
          KNOWN.map((c) => c.key).join(", ")
        } (floor-twice with KOPF_BENCH_INSTRUCTIONS_WRITES=2, baseline with ` +
          "KOPF_BENCH_INSTRUCTIONS_BASELINE, kopf-v8 with KOPF_BENCH_INSTRUCTIONS_KOPF_V8).",
      );
    }
    return known;
  });

/** The instructions one controller executed from READY until the burst was written. */
async function count(controller: Counted): Promise<number> {
  await using cluster = await FakeCluster.start({ historySize: 4 * SIZE + 1_000 });
  cluster.create(parseYaml(
    await Deno.readTextFile(new URL("../../examples/crd.yaml", import.meta.url)),
  ) as RawBody);
  const kubeconfig = await cluster.writeKubeconfig();
  const counter = new RequestCounter(cluster);
  const dir = await Deno.makeTempDir({ prefix: "kopf-bench-callgrind-" });
  try {
    const out = `${dir}/callgrind.out`;
    await using child = new ChildProcess(
      callgrindArgs(out, `${dir}/valgrind.log`, Deno.execPath(), [
        "run",
        "-A",
        "--config",
        controller.config ?? new URL("deno.json", controller.root).pathname,
        v8FlagsArgument([
          ...OPERATOR_V8_FLAGS,
          ...controller.v8 ?? [],
          ...FUNCTIONS > 0 ? PERF_MAP_V8_FLAGS : [],
        ]),
        new URL(`scripts/bench/${controller.module}`, controller.root).pathname,
        cluster.url,
        kubeconfig,
        ...controller.args ?? [],
      ], FUNCTIONS > 0 ? BY_ADDRESS_ARGS : []),
      {
        program: "valgrind",
        env: TWO_WRITES ? {} : { KOPF_BENCH_COMPARE_STORAGE: "status" },
      },
    );
    await child.expect("READY");
    await callgrindControl(child.pid, "--instr=on");
    await createBurst(cluster, SIZE, "b-");
    let progress = { written: -1, at: Date.now() };
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      counter.drain();
      const status = counter.statusPatched.size;
      const written = controller.twice ? Math.min(status, counter.patched.size) : status;
      if (written >= SIZE) break;
      if (written > progress.written) progress = { written, at: Date.now() };
      if (Date.now() - progress.at > STALL_MS) {
        throw new Error(`The ${controller.key} controller stalled at ${written} of ${SIZE}.`);
      }
    }
    await callgrindControl(child.pid, "--dump");
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.name.startsWith("callgrind.out")) continue;
      const dump = await Deno.readTextFile(`${dir}/${entry.name}`);
      const total = callgrindTotal(dump);
      if (total === undefined) continue;
      if (FUNCTIONS > 0) {
        profiles.set(controller.key, await instructionProfile(dump, child.pid, SIZE));
      }
      return total;
    }
    throw new Error(`callgrind wrote no count for the ${controller.key} controller.`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Per controller, its instructions by function, in its last run. */
const profiles = new Map<string, InstructionProfile>();

const thousands = (n: number) => Math.round(n / 1000).toLocaleString("en-US");
const counts = new Map<string, number[]>();

export const section: BenchSection = {
  title:
    "Instructions per object under callgrind (the floor and the operator, each in its own process)",
  async run(): Promise<BenchFigure[]> {
    const problem = await callgrindProblem();
    if (problem !== undefined) {
      return [{ name: "instructions per object", value: `not measured: ${problem}` }];
    }
    const figures: BenchFigure[] = [];
    for (const controller of CONTROLLERS.filter((c) => c.key === "kopf-bundled")) {
      controller.config = await bundledPackageConfig(controller.root);
    }
    for (let run = 1; run <= RUNS; run++) {
      for (const controller of CONTROLLERS) {
        const perObject = await count(controller) / SIZE;
        counts.set(controller.key, [...counts.get(controller.key) ?? [], perObject]);
        figures.push({
          name: `${SIZE.toLocaleString("en-US")} objects, ${controller.label}, run ${run}`,
          value: `${thousands(perObject)} thousand instructions per object`,
        });
      }
    }
    return figures;
  },
  footer(): string {
    // Against a controller left out of the run, no ratio.
    const against = (key: string, perObject: number) => {
      const of = counts.get(key);
      return of === undefined ? "–" : `×${(perObject / median(of)).toFixed(3)}`;
    };
    const rows = CONTROLLERS.filter((c) => counts.has(c.key)).map((c) => {
      const perObject = median(counts.get(c.key)!);
      const spread = counts.get(c.key)!;
      return [
        c.key,
        `${thousands(perObject)} (${thousands(Math.min(...spread))}–${
          thousands(Math.max(...spread))
        })`,
        against("floor", perObject),
        against("kopf", perObject),
      ];
    });
    if (rows.length === 0) return "";
    return `${
      markdownTable(
        ["Controller", "Thousand instructions per object", "vs floor", "vs kopf"],
        rows,
      )
    }\n\n(${SIZE.toLocaleString("en-US")} objects in a burst, ${
      TWO_WRITES ? "two writes per object (Kopf's default storages)" : "one write per object"
    }; medians of ${RUNS} run${RUNS === 1 ? "" : "s"}; user-space instructions of all the ` +
      "process's threads from READY to the last write, counted by Valgrind's callgrind; the " +
      "`kopf` task's V8 flags.)" +
      profileTables(profiles, FUNCTIONS, profiles.has("baseline") ? "baseline" : "floor");
  },
};
