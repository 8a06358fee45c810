/**
 * A CPU profile of a controller of the compare bench (`scripts/bench/compare.ts`) while it
 * handles a burst of objects: the child runs with V8's profiler preloaded
 * (`scripts/bench/support/cpu_profiler.ts`, in-process: `--inspect` would make Deno report
 * every request and body chunk to the debugger, which costs more than what is measured),
 * started once it is ready and stopped once every object is handled. The profile is written
 * as a `.cpuprofile` (Chrome DevTools opens it) and summarised: the self time of the
 * heaviest functions and files, how much went to the garbage collector, and the time
 * charged to the nearest function of the project's own (`src/`, `scripts/`) on the stack —
 * what of ours made the runtime work (fetch, streams, timers), which self time scatters.
 *
 *     deno task profile                                  # kopf, 10,000 objects
 *     deno task profile --count 5000 --top 60 --out kopf-5k.cpuprofile
 *     deno task profile --module bench/compare/floor.ts   # the floor, for comparison
 *     deno task profile --no-status
 *     deno task profile --child-args --no-conditions    # arguments of the child module
 *
 * `--no-status` serves the example CRD (`examples/crd.yaml`) without its status subresource;
 * `--interval` is the sampling interval in µs (200); `--heap <path>` also samples the
 * allocations (collected ones included), writes them there as a `.heapprofile` and prints
 * the functions that allocated most.
 */
import { parse as parseYaml } from "yaml";
import type { RawBody } from "../mod.ts";
import { FakeCluster } from "../src/testing/mod.ts";
import { OPERATOR_V8_FLAGS, v8FlagsArgument } from "../src/cli/runtime_flags.ts";
import { ChildProcess } from "./bench/support/process.ts";
import { RequestCounter } from "./bench/support/requests.ts";
import { createBurst } from "./bench/support/bursts.ts";

const args: Record<string, string | boolean> = {
  count: "10000",
  top: "40",
  out: "kopf.cpuprofile",
  module: "bench/compare/kopf.ts",
  interval: "200",
  heap: "",
  "no-status": false,
  "child-args": "",
};
for (let i = 0; i < Deno.args.length; i++) {
  const name = Deno.args[i].replace(/^--/, "");
  if (!(name in args)) throw new Error(`Unknown option ${Deno.args[i]}`);
  args[name] = typeof args[name] === "boolean" ? true : Deno.args[++i];
}
const count = Number(args.count);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function summarize(profile: Profile, top: number): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const total = profile.endTime - profile.startTime;
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  for (const [id, time] of self) {
    const frame = byId.get(id)!.callFrame;
    const file = frame.url.replace(/^.*\/(src|scripts|node_modules)\//, "$1/") || "(native)";
    const name = `${frame.functionName || "(anonymous)"} ${file}:${frame.lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + time);
    byFile.set(file, (byFile.get(file) ?? 0) + time);
  }
  const show = (map: Map<string, number>, n: number) => {
    for (const [name, time] of [...map].sort((a, b) => b[1] - a[1]).slice(0, n)) {
      console.log(
        `${(time / 1000).toFixed(0).padStart(7)} ms ${
          (100 * time / total).toFixed(1).padStart(5)
        }%  ${name}`,
      );
    }
  };
  console.log(`Profiled ${(total / 1e6).toFixed(2)} s; by function (self time):`);
  show(byFunction, top);
  console.log("\nBy file (self time):");
  show(byFile, 25);
  const parents = new Map<number, number>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parents.set(child, node.id);
  }
  const byOwn = new Map<string, number>();
  for (const [id, time] of self) {
    let name: string | undefined;
    for (
      let at: number | undefined = id;
      at !== undefined && name === undefined;
      at = parents.get(at)
    ) {
      const frame = byId.get(at)!.callFrame;
      const own = /\/(src|scripts)\//.exec(frame.url);
      if (own) {
        const file = frame.url.slice(own.index + 1);
        name = `${frame.functionName || "(anonymous)"} ${file}:${frame.lineNumber + 1}`;
      }
    }
    name ??= `(no own frame) ${byId.get(id)!.callFrame.functionName || "(anonymous)"}`;
    byOwn.set(name, (byOwn.get(name) ?? 0) + time);
  }
  console.log("\nBy the nearest own function on the stack (its runtime calls included):");
  show(byOwn, top);
}

await using cluster = await FakeCluster.start({ historySize: 4 * count + 1_000 });
const crd = parseYaml(
  await Deno.readTextFile(new URL("../examples/crd.yaml", import.meta.url)),
) as RawBody & { spec: { versions: Array<{ subresources?: Record<string, unknown> }> } };
if (args["no-status"]) {
  for (const version of crd.spec.versions) delete version.subresources?.status;
}
cluster.create(crd);
const kubeconfig = await cluster.writeKubeconfig();
const counter = new RequestCounter(cluster);
const drainer = setInterval(() => counter.drain(), 50);
await using child = new ChildProcess([
  "--config",
  new URL("../deno.json", import.meta.url).pathname,
  v8FlagsArgument(OPERATOR_V8_FLAGS),
  `--preload=${new URL("bench/support/cpu_profiler.ts", import.meta.url).pathname}`,
  new URL(String(args.module), import.meta.url).pathname,
  cluster.url,
  kubeconfig,
  ...String(args["child-args"]).split(/\s+/).filter(Boolean),
], {
  stderr: "piped",
  env: {
    KOPF_CPU_PROFILE: String(args.out),
    KOPF_CPU_PROFILE_INTERVAL: String(args.interval),
    ...(args.heap ? { KOPF_HEAP_PROFILE: String(args.heap) } : {}),
    // The plain controllers patch the object itself then (see scripts/bench/compare.ts).
    ...(args["no-status"] ? { KOPF_BENCH_COMPARE_STATUS: "none" } : {}),
  },
});
child.process.stderr.cancel();
await child.expect("READY");
child.kill("SIGUSR1");
await child.expect("PROFILING");
const started = performance.now();
await createBurst(cluster, count, "p-");
// Done when every object has had its last write (status and/or body, whichever comes; the
// diff-base in an annotation, or in the status with KOPF_BENCH_COMPARE_STORAGE=status).
for (;;) {
  await new Promise((resolve) => setTimeout(resolve, 100));
  const objects = cluster.list("kopfexamples.kopf.dev");
  const done = objects.filter((o) => {
    const status = o.status as Record<string, unknown> | undefined;
    const inStatus = status?.kopf as Record<string, unknown> | undefined;
    return status?.handled !== undefined ||
      (status?.createFn !== undefined &&
        (o.metadata?.annotations?.["kopf.zalando.org/last-handled-configuration"] !==
            undefined || inStatus?.["last-handled-configuration"] !== undefined));
  }).length;
  if (done >= count) break;
}
const seconds = (performance.now() - started) / 1000;
child.kill("SIGUSR2");
await child.expect("PROFILED");
clearInterval(drainer);
counter.drain();
const profile = JSON.parse(await Deno.readTextFile(String(args.out))) as Profile;
console.log(
  `${count} objects in ${seconds.toFixed(2)} s; requests: ${counter.describe()}; ` +
    `profile in ${args.out}`,
);
summarize(profile, Number(args.top));
if (args.heap) await summarizeHeap(String(args.heap), Number(args.top));

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

/** The functions that allocated most, by sampled bytes, of a sampling heap profile. */
async function summarizeHeap(path: string, top: number): Promise<void> {
  const { head } = JSON.parse(await Deno.readTextFile(path)) as { head: HeapNode };
  const bytes = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapNode) => {
    const frame = node.callFrame;
    const file = frame.url.replace(/^.*\/(src|scripts)\//, "$1/") || "(native)";
    const name = `${frame.functionName || "(anonymous)"} ${file}:${frame.lineNumber + 1}`;
    bytes.set(name, (bytes.get(name) ?? 0) + node.selfSize);
    total += node.selfSize;
    node.children.forEach(walk);
  };
  walk(head);
  console.log(`\nAllocations (sampled, ${(total / 2 ** 20).toFixed(0)} MB in all), by function:`);
  for (const [name, size] of [...bytes].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(
      `${(size / 2 ** 20).toFixed(1).padStart(7)} MB ${
        (100 * size / total).toFixed(1).padStart(5)
      }%  ${name}`,
    );
  }
}
