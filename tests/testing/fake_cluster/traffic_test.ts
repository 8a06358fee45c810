/**
 * The served-traffic counters (`cluster.traffic`): objects and body bytes of list pages,
 * GETs and watch events per resource and in total, bookmarks and watch errors apart, error
 * answers not at all — checked against the bytes a client receives, up to 100,000 objects.
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import type { TrafficCounts } from "../../../src/testing/mod.ts";
import { assert, assertEquals } from "../../assert.ts";
import { configMap, exampleCrd } from "./helpers.ts";

const CMS = "/api/v1/namespaces/default/configmaps";
const STREAM = "watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan" +
  "&allowWatchBookmarks=true";

/** GET a path; the status, the body's bytes and its JSON. */
async function fetched(
  cluster: FakeCluster,
  path: string,
  accept = "application/json",
  // deno-lint-ignore no-explicit-any
): Promise<{ status: number; bytes: number; body: any }> {
  return await bounded(path, async (signal) => {
    const response = await fetch(cluster.url + path, { headers: { accept }, signal });
    const bytes = new Uint8Array(await response.arrayBuffer());
    return {
      status: response.status,
      bytes: bytes.length,
      body: JSON.parse(new TextDecoder().decode(bytes)),
    };
  });
}

/** Seconds a request or a watch may take before the test fails instead of hanging. */
const DEADLINE = 60;

/** Run a request that is aborted (and fails the test) after the deadline. */
async function bounded<T>(path: string, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error(`${path}: not done within ${DEADLINE} s`)),
    DEADLINE * 1000,
  );
  try {
    return await run(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A watch read line by line as bytes (how many lines of each type, and their bytes), until
 * `until` is satisfied or the stream ends; it fails after the deadline rather than hang.
 */
function watchLines(
  cluster: FakeCluster,
  path: string,
  until: (lines: { type: string; bytes: number }[]) => boolean,
  accept = "application/json",
): Promise<{ type: string; bytes: number }[]> {
  return bounded(path, async (signal) => {
    const response = await fetch(cluster.url + path, { headers: { accept }, signal });
    const reader = response.body!.getReader();
    const lines: { type: string; bytes: number }[] = [];
    let pending = new Uint8Array(0);
    try {
      while (!until(lines)) {
        const { done, value } = await reader.read();
        if (done) break;
        const joined = new Uint8Array(pending.length + value.length);
        joined.set(pending);
        joined.set(value, pending.length);
        let start = 0;
        for (let i = 0; i < joined.length; i++) {
          if (joined[i] !== 10) continue;
          const line = joined.subarray(start, i + 1);
          const text = new TextDecoder().decode(line);
          lines.push({ type: JSON.parse(text).type, bytes: line.length });
          start = i + 1;
        }
        pending = joined.slice(start);
      }
    } finally {
      await reader.cancel().catch(() => {});
    }
    return lines;
  });
}

function sum(lines: { type: string; bytes: number }[], types: string[]): [number, number] {
  const picked = lines.filter((l) => types.includes(l.type));
  return [picked.length, picked.reduce((total, l) => total + l.bytes, 0)];
}

Deno.test("list pages, GETs and watch events are counted per resource with their bytes", async () => {
  // No periodic bookmarks: one written after the client stopped reading would be counted
  // but never read, and the comparison below would race with it.
  await using cluster = await FakeCluster.start({ bookmarkInterval: 3600 });
  for (const name of ["a", "b", "c"]) cluster.create(configMap(name, { key: name }));
  cluster.create(exampleCrd());
  assertEquals(cluster.traffic.total.objects, 0); // the direct API is not traffic

  const page1 = await fetched(cluster, `${CMS}?limit=2`);
  const token = encodeURIComponent(page1.body.metadata.continue);
  const page2 = await fetched(cluster, `${CMS}?limit=2&continue=${token}`);
  const one = await fetched(cluster, `${CMS}/a`);
  const missing = await fetched(cluster, `${CMS}/nothing`);
  assertEquals(missing.status, 404);
  const kexList = await fetched(cluster, "/apis/kopf.dev/v1/kopfexamples");

  const lines = await watchLines(
    cluster,
    `${CMS}?${STREAM}`,
    (seen) => {
      // After the initial events and their bookmark: a live change.
      if (seen.length === 4) cluster.patch("configmaps", "a", { data: { key: "changed" } });
      return seen.some((l) => l.type === "MODIFIED");
    },
  );
  // Counted as written, so before the client read them: nothing is pending here.
  const traffic = cluster.traffic;
  const cms = traffic.resources["configmaps"];
  assertEquals(cms.lists, { count: 2, items: 3, bytes: page1.bytes + page2.bytes });
  assertEquals(cms.gets, { count: 1, bytes: one.bytes });
  const [events, eventBytes] = sum(lines, ["ADDED", "MODIFIED", "DELETED"]);
  const [bookmarks, bookmarkBytes] = sum(lines, ["BOOKMARK"]);
  assertEquals(events, 4);
  assertEquals(bookmarks, 1); // the end of the initial events
  assertEquals(cms.watchEvents, { count: events, bytes: eventBytes });
  assertEquals(cms.bookmarks, { count: bookmarks, bytes: bookmarkBytes });
  assertEquals(cms.objects, 3 + 1 + 4);
  assertEquals(cms.bytes, page1.bytes + page2.bytes + one.bytes + eventBytes);
  const kex = traffic.resources["kopfexamples.kopf.dev"];
  assertEquals([kex.objects, kex.lists.count, kex.bytes], [0, 1, kexList.bytes]);
  assertEquals(traffic.total.objects, cms.objects + kex.objects);
  assertEquals(traffic.total.bytes, cms.bytes + kex.bytes);
  assertEquals(Object.keys(traffic.resources).sort(), ["configmaps", "kopfexamples.kopf.dev"]);
  // A snapshot: what came later is not in it.
  await fetched(cluster, `${CMS}/b`);
  assertEquals(traffic.resources["configmaps"].gets.count, 1);
  assertEquals(cluster.traffic.resources["configmaps"].gets.count, 2);
});

Deno.test("a watch's ERROR event (410) is counted apart; metadata-only watches send fewer bytes", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(configMap("a", { big: "x".repeat(2000) }));
  // A version older than the current one: compaction keeps the current version watchable
  // (there is nothing after it to replay), as etcd's compaction revision stays readable.
  const old = cluster.resourceVersion;
  cluster.patch("configmaps", "a", { data: { small: "y" } });
  cluster.faults.compact();
  const gone = await watchLines(cluster, `${CMS}?watch=true&resourceVersion=${old}`, () => false);
  assertEquals(gone.map((l) => l.type), ["ERROR"]);
  const counted: TrafficCounts = cluster.traffic.resources["configmaps"];
  assertEquals(counted.watchErrors, { count: 1, bytes: gone[0].bytes });
  assertEquals([counted.objects, counted.bytes], [0, 0]);

  const accept = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
  const done = (seen: { type: string }[]) => seen.at(-1)?.type === "BOOKMARK";
  const plain = await watchLines(cluster, `${CMS}?${STREAM}`, done);
  const afterPlain = cluster.traffic.resources["configmaps"].watchEvents.bytes;
  const meta = await watchLines(cluster, `${CMS}?${STREAM}`, done, accept);
  const metaBytes = cluster.traffic.resources["configmaps"].watchEvents.bytes - afterPlain;
  assertEquals(afterPlain, sum(plain, ["ADDED"])[1]);
  assertEquals(metaBytes, sum(meta, ["ADDED"])[1]);
  assert(metaBytes < afterPlain / 4, `${metaBytes} bytes of metadata, ${afterPlain} in all`);
});

Deno.test("100,000 objects: listed in pages and streamed, every object and byte counted", async () => {
  await using cluster = await FakeCluster.start();
  const count = 100_000;
  for (let i = 0; i < count; i++) cluster.create(configMap(`cm-${i}`, { i: String(i) }));
  let listedBytes = 0;
  let listedItems = 0;
  let pages = 0;
  let token = "";
  do {
    const page = await fetched(cluster, `${CMS}?limit=5000${token}`);
    listedBytes += page.bytes;
    listedItems += page.body.items.length;
    pages++;
    const next = page.body.metadata.continue;
    token = next ? `&continue=${encodeURIComponent(next)}` : "";
  } while (token);
  assertEquals(listedItems, count);
  const lines = await watchLines(
    cluster,
    `${CMS}?${STREAM}`,
    (seen) => seen.at(-1)?.type === "BOOKMARK",
  );
  const [events, eventBytes] = sum(lines, ["ADDED"]);
  assertEquals(events, count);
  const cms = cluster.traffic.resources["configmaps"];
  assertEquals(cms.lists, { count: pages, items: count, bytes: listedBytes });
  assertEquals(cms.watchEvents, { count, bytes: eventBytes });
  assertEquals(cms.objects, 2 * count);
  assertEquals(cms.bytes, listedBytes + eventBytes);
});
