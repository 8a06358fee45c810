/**
 * FakeCluster throughput and memory: PATCH requests per second over HTTP, watch events
 * per second delivered to one watcher, and the RSS of 10,000 objects of about 2 KB
 * (measured in a fresh process so that nothing else counts).
 */
import type { BenchFigure, BenchSection } from "./types.ts";
import { FakeCluster } from "../../src/testing/mod.ts";

const PATCH_TARGET = 2_000;
const WATCH_TARGET = 20_000;
const RSS_TARGET_MB = 200;

function rate(n: number, ms: number): number {
  return Math.round((n / ms) * 1000);
}

function fmt(n: number): string {
  return n.toLocaleString("en-US");
}

async function patchRate(): Promise<BenchFigure> {
  await using cluster = await FakeCluster.start();
  const names = Array.from({ length: 50 }, (_, i) => `cm-${i}`);
  for (const name of names) {
    cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { n: "0" } });
  }
  const total = 6_000;
  const concurrency = 16;
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const response = await fetch(
        `${cluster.url}/api/v1/namespaces/default/configmaps/${names[i % names.length]}`,
        {
          method: "PATCH",
          headers: { "content-type": "application/merge-patch+json" },
          body: JSON.stringify({ data: { n: String(i) } }),
        },
      );
      if (response.status !== 200) throw new Error(`PATCH failed: ${response.status}`);
      await response.body?.cancel();
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const perSecond = rate(total, performance.now() - started);
  return {
    name: `PATCH requests over HTTP (${fmt(total)}, ${concurrency} concurrent)`,
    value: `${fmt(perSecond)} requests/s`,
    target: `≥ ${fmt(PATCH_TARGET)} requests/s`,
    ok: perSecond >= PATCH_TARGET,
  };
}

async function watchRate(): Promise<BenchFigure> {
  await using cluster = await FakeCluster.start({ historySize: 1_000 });
  cluster.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "w" },
    data: { n: "0" },
  });
  const total = 50_000;
  const response = await fetch(
    `${cluster.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${cluster.resourceVersion}`,
  );
  const reader = response.body!.getReader();
  const started = performance.now();
  // Produce the changes in batches, yielding so that the stream flows meanwhile.
  const produce = async () => {
    for (let i = 1; i <= total; i++) {
      cluster.patch("configmaps", "w", { data: { n: String(i) } });
      if (i % 500 === 0) await new Promise((resolve) => setTimeout(resolve, 0));
    }
  };
  const consume = async () => {
    let lines = 0;
    while (lines < total) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the watch ended early");
      for (const byte of value) if (byte === 10) lines++;
    }
  };
  await Promise.all([produce(), consume()]);
  const perSecond = rate(total, performance.now() - started);
  await reader.cancel();
  return {
    name: `watch events delivered to one watcher (${fmt(total)} changes, produced meanwhile)`,
    value: `${fmt(perSecond)} events/s`,
    target: `≥ ${fmt(WATCH_TARGET)} events/s`,
    ok: perSecond >= WATCH_TARGET,
  };
}

async function memory(): Promise<BenchFigure> {
  const module = new URL("../../src/testing/mod.ts", import.meta.url).href;
  const code = `
    const { FakeCluster } = await import(${JSON.stringify(module)});
    const cluster = await FakeCluster.start();
    const filler = "x".repeat(1900);
    for (let i = 0; i < 10000; i++) {
      cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm-" + i }, data: { filler: filler + i } });
    }
    const size = JSON.stringify(cluster.get("configmaps", "cm-1")).length;
    console.log(JSON.stringify({ rss: Deno.memoryUsage().rss, count: cluster.list("configmaps").length, size }));
    await cluster.stop();
  `;
  const config = new URL("../../deno.json", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--config", config, code],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!output.success) throw new Error("the memory measurement failed");
  const { rss, count, size } = JSON.parse(
    new TextDecoder().decode(output.stdout).trim().split("\n").pop()!,
  );
  const mb = Math.round(rss / 1024 / 1024);
  return {
    name: `RSS of a fresh process holding ${fmt(count)} objects of ${fmt(size)} bytes`,
    value: `${mb} MB`,
    target: `≤ ${RSS_TARGET_MB} MB`,
    ok: mb <= RSS_TARGET_MB,
  };
}

/** The FakeCluster section of the benchmarks. */
export const section: BenchSection = {
  title: "FakeCluster",
  async run(): Promise<BenchFigure[]> {
    return [await patchRate(), await watchRate(), await memory()];
  },
};
