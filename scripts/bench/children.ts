/**
 * Children (`kopf.on.child`) among many unrelated objects: 1,000 KopfExamples, each owning
 * one ConfigMap (owner reference and owner-kind label, as `kopf.adopt()` makes them), and
 * 100,000 unrelated ConfigMaps in the same namespace. An operator (a process of its own) with
 * one child handler, which puts a deleted child back as `examples/18-children` does.
 *
 * Figures: the time from a change of a child to its parent's child handler starting (p50,
 * p99 over 50 changes, one at a time); a deleted child recreated; a ConfigMap owned by an
 * object of another kind changed, with no handler run; the ConfigMaps the fake cluster sent
 * (list items, watch events, GETs: `cluster.traffic`) against 2 × (children + changes); the
 * operator's heap (after a full GC) against the same operator whose parents have no
 * children, per child.
 *
 *     deno task bench children
 *     KOPF_BENCH_CHILDREN_UNRELATED=10000 deno task bench children
 *
 * Run with `--child <url>`, this file is that operator process.
 */
import { parse as parseYaml } from "yaml";
import type { BenchFigure, BenchSection } from "./types.ts";
import { kopf, type RawBody } from "../../mod.ts";
import { ApiClient, createObject, Vault } from "../../src/client/mod.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { OPERATOR_V8_FLAGS, v8FlagsArgument } from "../../src/cli/runtime_flags.ts";
import { operateUntilTerminated } from "./support/bench_operator.ts";
import { ChildProcess, now } from "./support/process.ts";
import { percentile } from "./support/stats.ts";

const PARENTS = Number(Deno.env.get("KOPF_BENCH_CHILDREN_PARENTS") ?? 1_000);
const UNRELATED = Number(Deno.env.get("KOPF_BENCH_CHILDREN_UNRELATED") ?? 100_000);
const CHANGES = 50;
const LATENCY_TARGET_MS = 1_000;
const HEAP_TARGET_BYTES = 1_024;
const WAIT_MS = 120_000;

const CONFIGMAPS = new kopf.Resource({
  group: "",
  version: "v1",
  plural: "configmaps",
  kind: "ConfigMap",
  namespaced: true,
});

/** The operator process: a child handler that prints when it starts, and recreates. */
async function child(url: string): Promise<void> {
  const registry = new kopf.OperatorRegistry();
  kopf.on.login({ registry, id: "bench-login" }, () => ({ server: url }));
  const api = new ApiClient(
    new Vault({ relogin: () => Promise.resolve({ bench: { server: url } }) }),
  );
  kopf.on.child("kopfexamples", "configmaps", { registry }, async function repair(kwargs) {
    const { child, childEvent } = kwargs;
    console.log(`CHILD ${child.metadata.name} ${childEvent} ${now()}`);
    if (childEvent === "DELETED") {
      const again: RawBody = {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: child.metadata.name },
        data: { field: "value" },
      };
      kopf.adopt(again);
      await createObject(api, CONFIGMAPS, again);
    }
  });
  kopf.configure({ quiet: true });
  Deno.addSignalListener("SIGUSR2", () => {
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    gc?.(); // weak references and finalizers cleared by the first one
    console.log(`HEAP ${Deno.memoryUsage().heapUsed}`);
  });
  await operateUntilTerminated({
    registry,
    settings: new kopf.OperatorSettings({ posting: { enabled: false } }),
    namespaces: ["default"],
  });
  await api.close();
}

/** A line the operator prints, or an error after a while. */
async function expectLine(operator: ChildProcess, prefix: string): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`No "${prefix}" line within ${WAIT_MS} ms.`)),
      WAIT_MS,
    );
  });
  try {
    return await Promise.race([operator.expect(prefix), late]);
  } finally {
    clearTimeout(timer);
  }
}

interface Run {
  heap: number;
  latencies: number[];
  recreated: boolean;
  foreignRan: boolean;
  configmapObjects: number;
}

/** One run: parents with (or without) a child each, the unrelated ConfigMaps, the changes. */
async function measure(withChildren: boolean): Promise<Run> {
  await using cluster = await FakeCluster.start({ historySize: 10_000 });
  const crd = new URL("../../examples/crd.yaml", import.meta.url);
  cluster.create(parseYaml(await Deno.readTextFile(crd)) as RawBody);
  for (let i = 0; i < UNRELATED; i++) {
    cluster.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `unrelated-${i}`, namespace: "default" },
      data: { field: "value" },
    });
  }
  for (let i = 0; i < PARENTS; i++) {
    const parent = cluster.create({
      apiVersion: "kopf.dev/v1",
      kind: "KopfExample",
      metadata: { name: `parent-${i}`, namespace: "default" },
      spec: { field: "value" },
    });
    if (!withChildren) continue;
    const child: RawBody = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `child-${i}` },
      data: { field: "value" },
    };
    kopf.adopt(child, { owner: parent as never });
    cluster.create(child);
  }
  // Owned by an object of another kind (labelled as adopt() would): it must trigger nothing.
  const other = cluster.list("configmaps", { namespace: "default" })[0];
  const foreign: RawBody = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "foreign" } };
  kopf.adopt(foreign, { owner: other as never });
  cluster.create(foreign);
  const before = cluster.traffic.resources.configmaps?.objects ?? 0;

  await using operator = new ChildProcess([
    v8FlagsArgument([...OPERATOR_V8_FLAGS, "--expose-gc"]),
    new URL(import.meta.url).pathname,
    "--child",
    cluster.url,
  ]);
  await expectLine(operator, "READY");
  // The children's watch runs once its listing is done: wait for its watch request.
  await waitFor(() =>
    cluster.requests.some((r) => r.verb === "watch" && r.path.endsWith("/configmaps"))
  );
  const latencies: number[] = [];
  let recreated = false;
  let foreignRan = false;
  if (withChildren) {
    cluster.patch("configmaps", "foreign", { data: { field: "changed" } }, {
      namespace: "default",
    });
    for (let i = 0; i < CHANGES; i++) {
      const name = `child-${(i * 17) % PARENTS}`;
      const at = now();
      cluster.patch("configmaps", name, { data: { field: `changed-${i}` } }, {
        namespace: "default",
      });
      const line = await expectLine(operator, "CHILD ");
      const [, seen, , started] = line.split(" ");
      if (seen === "foreign") foreignRan = true;
      latencies.push(Number(started) - at);
    }
    cluster.delete("configmaps", "child-0", { namespace: "default" });
    await expectLine(operator, "CHILD child-0 DELETED");
    await cluster.waitFor("configmaps", "child-0", (o) => o !== undefined, {
      namespace: "default",
      timeout: WAIT_MS / 1000,
    });
    recreated = true;
  }
  // The least of a few samples, apart: what is left between bursts of the watches' work.
  let heap = Infinity;
  for (let sample = 0; sample < 5; sample++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    operator.kill("SIGUSR2");
    heap = Math.min(heap, Number((await expectLine(operator, "HEAP ")).slice("HEAP ".length)));
  }
  const configmapObjects = (cluster.traffic.resources.configmaps?.objects ?? 0) - before;
  return {
    heap,
    latencies: latencies.sort((a, b) => a - b),
    recreated,
    foreignRan,
    configmapObjects,
  };
}

async function waitFor(check: () => boolean): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("Timed out waiting for the children's watch.");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const fmt = (n: number) => n.toLocaleString("en");

export const section: BenchSection = {
  title: `Children: ${fmt(PARENTS)} parents with a ConfigMap each, ${fmt(UNRELATED)} unrelated`,
  async run(): Promise<BenchFigure[]> {
    const without = await measure(false);
    const withChildren = await measure(true);
    const p50 = percentile(withChildren.latencies, 50);
    const p99 = percentile(withChildren.latencies, 99);
    const changes = CHANGES + 2; // the foreign one and the deletion (and its recreation)
    const budget = 2 * (PARENTS + changes) + 10;
    const perChild = (withChildren.heap - without.heap) / PARENTS;
    return [
      {
        name: `a child changed → its parent's child handler starts (p50, p99 of ${CHANGES})`,
        value: `${p50.toFixed(0)} ms, ${p99.toFixed(0)} ms`,
        target: `p99 ≤ ${LATENCY_TARGET_MS} ms`,
        ok: p99 <= LATENCY_TARGET_MS,
      },
      {
        name: "a deleted child recreated by the handler; a foreign-owned one ran nothing",
        value: `${withChildren.recreated ? "recreated" : "NOT recreated"}; ${
          withChildren.foreignRan ? "the foreign one RAN" : "nothing ran for the foreign one"
        }`,
        target: "recreated; nothing ran",
        ok: withChildren.recreated && !withChildren.foreignRan,
      },
      {
        name: "ConfigMaps sent to the operator (list items, watch events, GETs)",
        value: `${fmt(withChildren.configmapObjects)} (without children: ${
          fmt(without.configmapObjects)
        }), of ${fmt(PARENTS + UNRELATED + 1)} ConfigMaps`,
        target: `≤ 2 × (children + changes) + 10 = ${fmt(budget)}`,
        ok: withChildren.configmapObjects <= budget,
      },
      {
        name: "the operator's heap after a full GC, per child",
        value: `${perChild.toFixed(0)} bytes (${(withChildren.heap / 1e6).toFixed(1)} MB with ` +
          `children, ${(without.heap / 1e6).toFixed(1)} MB without)`,
        target: `≤ ${fmt(HEAP_TARGET_BYTES)} bytes`,
        ok: perChild <= HEAP_TARGET_BYTES,
      },
    ];
  },
};

if (import.meta.main && Deno.args[0] === "--child") await child(Deno.args[1]);
