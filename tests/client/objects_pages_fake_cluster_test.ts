/**
 * Paginated listings against the fake cluster over HTTP: pages of `limit` objects, one
 * snapshot, a continuation that expires (410) and the listing begun anew, and the fallback
 * to a full list after repeated expiries; and watches that list either way.
 */
import { assert, assertEquals } from "../assert.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { ApiClient } from "../../src/client/api.ts";
import { Vault } from "../../src/client/vault.ts";
import { listObjects, listPages } from "../../src/client/objects.ts";
import { type WatchItem, watchObjects } from "../../src/client/watch.ts";
import type { WatchingTuning } from "../../src/client/tuning.ts";
import { configmaps as CONFIGMAPS } from "../fixtures/discovered.ts";

const BACKOFF = { initial: 0.01, cap: 0.02 };

function client(cluster: FakeCluster, watching: WatchingTuning = {}): ApiClient {
  const vault = new Vault({ relogin: () => Promise.resolve({ fake: cluster.connectionInfo }) });
  return new ApiClient(vault, { watching: { reconnectBackoff: 0.01, ...watching } });
}

function fill(cluster: FakeCluster, count: number, prefix = "cm"): void {
  for (let i = 0; i < count; i++) {
    const name = `${prefix}-${String(i).padStart(3, "0")}`;
    cluster.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name, namespace: "default" },
    });
  }
}

/** The list requests served so far: their limits and how many objects each answered. */
function lists(cluster: FakeCluster): { limit: string | null; items?: number; status: number }[] {
  return cluster.requests.filter((r) => r.verb === "list" && r.path.endsWith("/configmaps")).map(
    (r) => ({ limit: new URLSearchParams(r.query).get("limit"), items: r.items, status: r.status }),
  );
}

Deno.test("a listing comes in pages of the limit, one snapshot at the first page's version", async () => {
  await using cluster = await FakeCluster.start();
  fill(cluster, 10);
  await using api = client(cluster);
  const pages = [];
  for await (const page of listPages(api, CONFIGMAPS, { namespace: "default", limit: 3 })) {
    pages.push(page);
    if (pages.length === 1) fill(cluster, 2, "later"); // not in this listing
  }
  assertEquals(pages.map((p) => p.items.length), [3, 3, 3, 1]);
  assertEquals(pages.map((p) => p.continued), [false, true, true, true]);
  assertEquals(pages.map((p) => p.last), [false, false, false, true]);
  assertEquals(new Set(pages.map((p) => p.resourceVersion)).size, 1);
  assertEquals(pages[0].items[0].kind, "ConfigMap");
  assertEquals(lists(cluster).map((l) => [l.limit, l.items]), [
    ["3", 3],
    ["3", 3],
    ["3", 3],
    ["3", 1],
  ]);
  const all = await listObjects(api, CONFIGMAPS, { namespace: "default", limit: 5 });
  assertEquals(all.items.length, 12);
});

Deno.test("the next page is asked for only when the consumer wants it: one page in hand at a time", async () => {
  await using cluster = await FakeCluster.start({ streamingLists: false });
  fill(cluster, 10);
  await using api = client(cluster, { listPageSize: 3 });
  const controller = new AbortController();
  const watch = watchObjects(api, CONFIGMAPS, {
    namespace: "default",
    signal: controller.signal,
    listParts: true,
  });
  const seen: number[] = [];
  for (let i = 0; i < 3; i++) {
    const item = await watch.next();
    assert(!item.done && item.value.type === "LISTING");
    seen.push(lists(cluster).filter((l) => l.status === 200).length);
    await new Promise((resolve) => setTimeout(resolve, 20)); // a slow consumer
  }
  assertEquals(seen, [1, 2, 3]);
  controller.abort();
  await watch.return();
});

Deno.test("an expired continuation (410) begins the listing anew; the new first page says so", async () => {
  await using cluster = await FakeCluster.start();
  fill(cluster, 7);
  await using api = client(cluster);
  const pages = [];
  const options = { namespace: "default", limit: 3, backoff: BACKOFF };
  for await (const page of listPages(api, CONFIGMAPS, options)) {
    pages.push(page);
    if (pages.length === 1) {
      fill(cluster, 1, "new");
      cluster.faults.compact(); // the snapshot of the first page is gone
    }
  }
  assertEquals(pages.map((p) => [p.items.length, p.continued, p.last]), [
    [3, false, false],
    [3, false, false],
    [3, true, false],
    [2, true, true],
  ]);
  assertEquals(lists(cluster).map((l) => l.status), [200, 410, 200, 200, 200]);
  const relisted = pages.slice(1).flatMap((p) => p.items.map((o) => o.metadata?.name));
  assertEquals(relisted.length, 8);
  assert(relisted.includes("new-000"));
});

Deno.test("after repeated expiries, the last attempt lists everything in one response", async () => {
  await using cluster = await FakeCluster.start();
  fill(cluster, 5);
  await using api = client(cluster);
  const options = { namespace: "default", limit: 2, backoff: BACKOFF };
  const result = [];
  for await (const page of listPages(api, CONFIGMAPS, options)) {
    if (!page.continued) result.length = 0;
    result.push(...page.items);
    if (!page.last) {
      // Every continuation expires: a change, and the history compacted up to it.
      fill(cluster, 1, `during-${result.length}-${lists(cluster).length}`);
      cluster.faults.compact();
    }
  }
  assertEquals(result.length, 8);
  assertEquals(lists(cluster).map((l) => [l.limit, l.status]), [
    ["2", 200],
    ["2", 410],
    ["2", 200],
    ["2", 410],
    ["2", 200],
    ["2", 410],
    [null, 200],
  ]);
});

for (const [streamingLists, expected] of [[true, "stream"], [false, "paginate"]] as const) {
  Deno.test(`auto: a watch lists by ${expected} when the server ${streamingLists ? "streams" : "cannot stream"}`, async () => {
    await using cluster = await FakeCluster.start({ streamingLists });
    fill(cluster, 7);
    await using api = client(cluster, { listPageSize: 3 });
    const controller = new AbortController();
    const items: WatchItem[] = [];
    const watch = watchObjects(api, CONFIGMAPS, {
      namespace: "default",
      signal: controller.signal,
      listParts: true,
    });
    for await (const item of watch) {
      items.push(item);
      if (item.type === "LISTED") {
        cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "live" } });
      }
      if (item.type === "ADDED") controller.abort();
    }
    assertEquals(items.map((i) => i.type), ["LISTING", "LISTING", "LISTED", "ADDED"]);
    const sizes = items.map((i) =>
      i.type === "ADDED" ? 1 : i.type === "LISTED" || i.type === "LISTING" ? i.objects.length : 0
    );
    assertEquals(sizes, [3, 3, 1, 1]);
    const streamed = cluster.requests.filter((r) =>
      r.verb === "watch" && r.query.includes("sendInitialEvents=true")
    );
    assertEquals(streamed.length, 1); // tried once, whether or not it is supported
    assertEquals(streamed[0].status, streamingLists ? 200 : 422);
    assertEquals(lists(cluster).length, streamingLists ? 0 : 3);
  });
}
