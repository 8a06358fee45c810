/**
 * FakeCluster throughput and memory: PATCH requests per second over HTTP, watch events
 * per second delivered to one watcher, the cost of owner references (2,000 owned
 * ConfigMaps created and collected), of namespaces' deletion among many other objects,
 * of single-object watches (`fieldSelector=metadata.name=…`) among many objects, and the
 * RSS of 10,000 objects of about 2 KB (measured in a fresh process so that nothing else
 * counts).
 */
import type { BenchFigure, BenchSection } from "./types.ts";
import { FakeCluster } from "../../src/testing/mod.ts";

const PATCH_TARGET = 2_000;
const WATCH_TARGET = 20_000;
const RSS_TARGET_MB = 200;
const OWNED_TARGET_MS = 250;
const NAMESPACE_TARGET_MS = 5;
const NAMED_WATCH_TARGET_MS = 2;

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

/**
 * Watch events per second to one watcher, while `idle` other watches (of ConfigMaps in
 * other namespaces, which none of the changes concern) stay open.
 */
async function watchRate(idle = 0): Promise<BenchFigure> {
  await using cluster = await FakeCluster.start({ historySize: 1_000 });
  cluster.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "w" },
    data: { n: "0" },
  });
  const others: ReadableStreamDefaultReader<Uint8Array>[] = [];
  for (let i = 0; i < idle; i++) {
    const other = await fetch(
      `${cluster.url}/api/v1/namespaces/idle-${i}/configmaps?watch=true&resourceVersion=${cluster.resourceVersion}`,
    );
    others.push(other.body!.getReader());
  }
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
  for (const other of others) await other.cancel();
  const among = idle ? ` among ${fmt(idle)} idle watches of other namespaces` : "";
  return {
    name: `watch events delivered to one watcher${among} (${
      fmt(total)
    } changes, produced meanwhile)`,
    value: `${fmt(perSecond)} events/s`,
    target: `≥ ${fmt(WATCH_TARGET)} events/s`,
    ok: perSecond >= WATCH_TARGET,
  };
}

function configMap(name: string, metadata: Record<string, unknown> = {}) {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, ...metadata },
    data: { n: name },
  };
}

/**
 * 2,000 ConfigMaps created with an owner reference, then collected when their owner is
 * deleted (in the background); the same 2,000 created without an owner for comparison.
 */
async function ownedCollection(): Promise<BenchFigure> {
  const count = 2_000;
  const run = async (owned: boolean) => {
    await using cluster = await FakeCluster.start();
    const owner = cluster.create(configMap("owner"));
    const refs = [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata?.uid }];
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      cluster.create(configMap(`cm-${i}`, owned ? { ownerReferences: refs } : {}));
    }
    const created = performance.now() - started;
    cluster.delete("configmaps", "owner");
    const all = performance.now() - started;
    const left = cluster.list("configmaps").length;
    if (left !== (owned ? 0 : count)) throw new Error(`${left} ConfigMaps left after the owner`);
    return { created, all };
  };
  const unowned = await run(false);
  const owned = await run(true);
  const ms = Math.round(owned.all);
  return {
    name: `${fmt(count)} owned ConfigMaps created, then collected with their owner`,
    value: `${fmt(ms)} ms (creating them ${fmt(Math.round(owned.created))} ms; ` +
      `${fmt(Math.round(unowned.created))} ms unowned)`,
    target: `≤ ${fmt(OWNED_TARGET_MS)} ms`,
    ok: ms <= OWNED_TARGET_MS,
  };
}

/** Namespaces of 100 ConfigMaps each deleted, one after another, beside 10,000 ConfigMaps. */
async function namespaceDeletion(): Promise<BenchFigure> {
  await using cluster = await FakeCluster.start();
  for (let i = 0; i < 10_000; i++) cluster.create(configMap(`cm-${i}`));
  const namespaces = Array.from({ length: 10 }, (_, i) => `doomed-${i}`);
  for (const namespace of namespaces) {
    cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
    for (let i = 0; i < 100; i++) cluster.create(configMap(`cm-${i}`, { namespace }));
  }
  const started = performance.now();
  for (const namespace of namespaces) cluster.delete("namespaces", namespace);
  const ms = (performance.now() - started) / namespaces.length;
  if (cluster.list("namespaces").length !== 3) throw new Error("a namespace is still there");
  return {
    name: `namespaces of 100 ConfigMaps deleted beside 10,000 others (${namespaces.length})`,
    value: `${ms.toFixed(1)} ms per namespace`,
    target: `≤ ${fmt(NAMESPACE_TARGET_MS)} ms`,
    ok: ms <= NAMESPACE_TARGET_MS,
  };
}

/**
 * Single-object watches (`fieldSelector=metadata.name=…`, as `kubectl get -w NAME` and
 * `kubectl wait` open them) among 20,000 ConfigMaps: opened one after another, each
 * until its initial ADDED event arrives.
 */
async function namedWatches(): Promise<BenchFigure> {
  await using cluster = await FakeCluster.start();
  for (let i = 0; i < 20_000; i++) cluster.create(configMap(`cm-${i}`));
  const total = 200;
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const selector = encodeURIComponent(`metadata.name=cm-${i * 100}`);
    const response = await fetch(
      `${cluster.url}/api/v1/namespaces/default/configmaps?watch=true&fieldSelector=${selector}`,
    );
    const reader = response.body!.getReader();
    const { value } = await reader.read();
    if (!new TextDecoder().decode(value).startsWith('{"type":"ADDED"')) {
      throw new Error("the watch did not start with the object");
    }
    await reader.cancel();
  }
  const ms = (performance.now() - started) / total;
  return {
    name: `single-object watches among 20,000 objects (${total}, one after another)`,
    value: `${ms.toFixed(2)} ms per watch to its first event`,
    target: `≤ ${NAMED_WATCH_TARGET_MS} ms`,
    ok: ms <= NAMED_WATCH_TARGET_MS,
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
    return [
      await patchRate(),
      await watchRate(),
      await watchRate(1_000),
      await ownedCollection(),
      await namespaceDeletion(),
      await namedWatches(),
      await memory(),
    ];
  },
};
