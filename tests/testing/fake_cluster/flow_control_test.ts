/**
 * API Priority and Fairness in the fake cluster (`maxInflight`, `maxQueued`): requests over
 * the limit wait their turn in a queue, the rest get kube-apiserver's plain-text 429 with
 * `Retry-After` and the flow schema's and priority level's UIDs; watches hold a seat only
 * while they are set up, other long-running requests and health checks none; the counts
 * and the request log say what happened. Requests are held open by an admission webhook
 * that answers only when the test lets it.
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import { DroppedRequests } from "../../../src/testing/fake_cluster/dropped_requests.ts";
import { EXEMPT, LIMITED, waitLimitOf } from "../../../src/testing/fake_cluster/flow_control.ts";
import { UsageError } from "../../../src/structs/errors.ts";
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../../assert.ts";
import { configMap, holdingWebhook } from "./helpers.ts";

const CMS = "/api/v1/namespaces/default/configmaps";
const FS = "x-kubernetes-pf-flowschema-uid";
const PL = "x-kubernetes-pf-prioritylevel-uid";

/** A webhook that holds ConfigMap creates, registered through the direct API (no request). */
async function gate(cluster: FakeCluster) {
  const held = await holdingWebhook();
  cluster.create(held.configuration);
  return held;
}

/** A raw request to the cluster: the response, its body unread. */
function send(cluster: FakeCluster, method: string, path: string, body?: unknown) {
  return fetch(cluster.url + path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** The first of these to settle, and the others. */
async function first(promises: Promise<Response>[]) {
  const tagged = promises.map((p, i) => p.then((response) => ({ response, i })));
  const { response, i } = await Promise.race(tagged);
  return { response, rest: promises.filter((_, j) => j !== i) };
}

Deno.test("over maxInflight requests wait in the queue; over maxQueued they get kube-apiserver's 429", async () => {
  await using cluster = await FakeCluster.start({ maxInflight: 2, maxQueued: 1 });
  await using held = await gate(cluster);
  // Open watches hold no seat: three of them, more than the seats, and still two creates pass.
  const watches: Response[] = [];
  for (let i = 0; i < 3; i++) watches.push(await send(cluster, "GET", `${CMS}?watch=true`));
  for (const watch of watches) {
    assertEquals(watch.status, 200);
    assertEquals([watch.headers.get(FS), watch.headers.get(PL)], [
      LIMITED.flowSchemaUid,
      LIMITED.priorityLevelUid,
    ]);
  }
  const a = send(cluster, "POST", CMS, configMap("a"));
  const b = send(cluster, "POST", CMS, configMap("b"));
  await held.arrived(2);
  // Two more: one waits in the queue, the other finds it full and is rejected at once.
  const { response: rejected, rest: [queued] } = await first([
    send(cluster, "POST", CMS, configMap("c")),
    send(cluster, "POST", CMS, configMap("d")),
  ]);
  assertEquals(rejected.status, 429);
  assertEquals(await rejected.text(), "Too many requests, please try again later.\n");
  assertEquals(rejected.headers.get("content-type"), "text/plain; charset=utf-8");
  assertEquals(rejected.headers.get("x-content-type-options"), "nosniff");
  assertEquals(rejected.headers.get("retry-after"), "1");
  assertEquals(rejected.headers.get(FS), LIMITED.flowSchemaUid);
  assertEquals(rejected.headers.get(PL), LIMITED.priorityLevelUid);
  assertEquals(cluster.traffic.flowControl, { dispatched: 5, queued: 1, rejected: 1, timedOut: 0 });
  const throttled = cluster.requests.filter((r) => r.throttled);
  assertEquals(throttled.map((r) => [r.verb, r.status]), [["create", 429]]);

  // A place frees: the queued create is served, and the webhook sees it.
  held.release();
  for (const done of [a, b, queued]) {
    const response = await done;
    assertEquals(response.status, 201);
    assertEquals(response.headers.get(FS), LIMITED.flowSchemaUid);
    await response.body?.cancel();
  }
  assertEquals(cluster.list("configmaps").length, 3);
  const waited = cluster.requests.filter((r) => r.waited !== undefined);
  assertEquals(waited.map((r) => [r.verb, r.status]), [["create", 201]]);
  assert(waited[0].waited! >= 0);
  assertEquals(cluster.traffic.flowControl, { dispatched: 6, queued: 1, rejected: 1, timedOut: 0 });
  for (const watch of watches) await watch.body?.cancel();
});

Deno.test("a full server still answers health checks, long-running requests and unauthenticated ones as before", async () => {
  await using cluster = await FakeCluster.start({ maxInflight: 1, maxQueued: 0, token: "t" });
  await using held = await gate(cluster);
  const auth = { authorization: "Bearer t" };
  const holding = fetch(cluster.url + CMS, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify(configMap("a")),
  });
  await held.arrived(1);
  const get = (path: string, headers: Record<string, string> = auth) =>
    fetch(cluster.url + path, { headers });
  // The probes flow schema is exempt, and says so.
  const health = await get("/healthz");
  assertEquals([health.status, await health.text()], [200, "ok"]);
  assertEquals([health.headers.get(FS), health.headers.get(PL)], [
    EXEMPT.flowSchemaUid,
    EXEMPT.priorityLevelUid,
  ]);
  // Logs are long-running: not classified at all (no headers), answered as ever.
  const log = await get("/api/v1/namespaces/default/pods/nothing/log");
  assertEquals(log.status, 404);
  assertEquals(log.headers.get(FS), null);
  await log.body?.cancel();
  // Authentication comes first: a stranger is refused before flow control.
  const stranger = await get(CMS, {});
  assertEquals(stranger.status, 401);
  await stranger.body?.cancel();
  // A watch is classified: with no seat and no room in the queue, it is refused too.
  const watch = await get(`${CMS}?watch=true`);
  assertEquals(watch.status, 429);
  await watch.body?.cancel();
  // So is anything else, discovery included.
  const discovery = await get("/api");
  assertEquals(discovery.status, 429);
  await discovery.body?.cancel();
  held.release();
  assertEquals((await holding).status, 201);
  assertEquals(cluster.traffic.flowControl.rejected, 2);
});

Deno.test("a queued request waits a quarter of its deadline at most, then gets a 429", async () => {
  await using cluster = await FakeCluster.start({ maxInflight: 1 });
  await using held = await gate(cluster);
  const holding = send(cluster, "POST", CMS, configMap("a"));
  await held.arrived(1);
  // timeout=400ms: a quarter of it, 100 ms, in the queue.
  const late = await send(cluster, "GET", `${CMS}?timeout=400ms`);
  assertEquals(late.status, 429);
  assertEquals(await late.text(), "Too many requests, please try again later.\n");
  const entry = cluster.requests.find((r) => r.throttled)!;
  assertEquals(entry.verb, "list");
  assert(entry.waited! >= 90, `waited ${entry.waited} ms`);
  assertEquals(cluster.traffic.flowControl, { dispatched: 1, queued: 1, rejected: 1, timedOut: 1 });
  held.release();
  await (await holding).body?.cancel();
});

Deno.test("the wait limit is a quarter of the deadline: 60 s or the timeout given, a watch's the default", () => {
  const params = (query: string) => new URLSearchParams(query);
  assertEquals(waitLimitOf(params(""), false), 15_000);
  assertEquals(waitLimitOf(params("timeout=8s"), false), 2_000);
  assertEquals(waitLimitOf(params("timeout=1m30s"), false), 15_000);
  // Go's durations want a unit; a bad one leaves the default (kube-apiserver answers 400).
  assertEquals(waitLimitOf(params("timeout=8"), false), 15_000);
  assertEquals(waitLimitOf(params("timeout=0s"), false), 15_000);
  assertEquals(waitLimitOf(params("timeout=8s"), true), 15_000);
});

Deno.test("Retry-After starts at 1 s, doubles while drops go on, and comes down when they stop", () => {
  let now = 1_000_000;
  const dropped = new DroppedRequests(() => now);
  const drop = (times: number) => {
    for (let i = 0; i < times; i++) dropped.record();
  };
  drop(3);
  assertEquals(dropped.retryAfter, 1, "reconsidered only when a new second begins");
  now += 1000;
  drop(1);
  assertEquals(dropped.retryAfter, 2, "3 drops in the last second: doubled");
  now += 1000;
  drop(5);
  assertEquals(dropped.retryAfter, 2, "raised at most once per its own length");
  now += 1000;
  drop(1);
  assertEquals(dropped.retryAfter, 4, "6 drops in the last 2 s");
  for (let i = 0; i < 40; i++) {
    now += 1000;
    drop(100);
  }
  assertEquals(dropped.retryAfter, 32, "at most 32 s");
  now += 60_000;
  drop(1);
  assertEquals(dropped.retryAfter, 31, "quiet: one less at each new second of drops");
});

Deno.test("the limits are checked: one clear line for a bad value", async () => {
  for (
    const [options, text] of [
      [{ maxInflight: 0 }, "maxInflight must be a whole number of requests, at least 1, not 0"],
      [{ maxInflight: 1.5 }, "not 1.5"],
      [
        { maxInflight: 2, maxQueued: -1 },
        "maxQueued must be a whole number of requests, 0 or more",
      ],
      [{ maxQueued: 3 }, "maxQueued needs maxInflight too"],
    ] as const
  ) {
    const error = await assertRejects(() => FakeCluster.start(options), UsageError);
    assertStringIncludes(error.message, text);
  }
});

Deno.test("injected latency is spent holding a seat, as a slow server's requests hold theirs", async () => {
  await using cluster = await FakeCluster.start({ maxInflight: 1, maxQueued: 0 });
  cluster.faults.latency(300);
  const { response: refused, rest: [served] } = await first([
    send(cluster, "GET", CMS),
    send(cluster, "GET", CMS),
  ]);
  assertEquals(refused.status, 429);
  await refused.body?.cancel();
  const list = await served;
  assertEquals(list.status, 200);
  await list.body?.cancel();
});
