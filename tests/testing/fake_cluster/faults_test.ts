/**
 * Fault injection and the request log of the fake API server.
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import { assert, assertEquals, assertThrows } from "../../assert.ts";
import { call, configMap, watch } from "./helpers.ts";
import { UsageError } from "../../../src/structs/errors.ts";

const CMS = "/api/v1/namespaces/default/configmaps";

Deno.test("failRequests fails matching requests with a Status; 429 carries Retry-After; clear() heals", async () => {
  await using cluster = await FakeCluster.start();
  cluster.faults.failRequests({
    share: 1,
    status: 503,
    verbs: ["list"],
    resources: ["configmaps"],
  });
  const failed = await call(cluster, "GET", CMS);
  assertEquals([failed.status, failed.body.kind, failed.body.code], [503, "Status", 503]);
  assertEquals((await call(cluster, "GET", "/api/v1/namespaces/default/secrets")).status, 200);
  assertEquals((await call(cluster, "POST", CMS, configMap("a"))).status, 201, "other verbs pass");
  cluster.faults.clear();
  cluster.faults.failRequests({ share: 1, status: 429, retryAfter: 7 });
  const throttled = await call(cluster, "GET", CMS);
  assertEquals([throttled.status, throttled.body.reason], [429, "TooManyRequests"]);
  assertEquals(throttled.headers.get("retry-after"), "7");
  cluster.faults.clear();
  assertEquals((await call(cluster, "GET", CMS)).status, 200);
});

Deno.test("failRequests with a share fails about that share of requests", async () => {
  await using cluster = await FakeCluster.start();
  cluster.faults.failRequests({ share: 0.5, status: 500 });
  let failed = 0;
  for (let i = 0; i < 60; i++) if ((await call(cluster, "GET", CMS)).status === 500) failed++;
  assert(failed > 10 && failed < 50, `about half failed: ${failed} of 60`);
});

Deno.test("bad fault settings are refused with a clear message", async () => {
  await using cluster = await FakeCluster.start();
  assertThrows(() => cluster.faults.failRequests({ share: 2, status: 500 }), UsageError, "share");
  assertThrows(() => cluster.faults.failRequests({ share: 1, status: 200 }), UsageError, "status");
  assertThrows(() => cluster.faults.latency(-1), UsageError, "latency");
  assertThrows(() => cluster.faults.dropWatchesEvery(0), UsageError, "seconds");
});

Deno.test("latency delays every response", async () => {
  await using cluster = await FakeCluster.start();
  cluster.faults.latency(150);
  const started = performance.now();
  await call(cluster, "GET", CMS);
  assert(performance.now() - started >= 140, "the response took the latency");
});

Deno.test("expireToken: the old token gets 401, the new one works and is in the kubeconfig", async () => {
  await using cluster = await FakeCluster.start({ token: "first" });
  const old = cluster.token;
  const fresh = cluster.faults.expireToken();
  assert(fresh && fresh !== old);
  const rejected = await fetch(cluster.url + CMS, { headers: { authorization: `Bearer ${old}` } });
  assertEquals(rejected.status, 401);
  await rejected.body?.cancel();
  assertEquals((await call(cluster, "GET", CMS)).status, 200);
  assert(cluster.kubeconfig.includes(fresh));
  assertEquals(cluster.connectionInfo.token, fresh);
});

Deno.test("dropWatchesEvery breaks watches periodically until cleared", async () => {
  await using cluster = await FakeCluster.start();
  cluster.faults.dropWatchesEvery(0.05);
  for (let i = 0; i < 2; i++) {
    const stream = await watch(cluster, `${CMS}?watch=true`);
    let broke = false;
    try {
      while (await stream.next());
    } catch {
      broke = true;
    }
    assert(broke, "the watch broke");
  }
  cluster.faults.clear();
});

Deno.test("the request log records method, path, verb, status and time", async () => {
  await using cluster = await FakeCluster.start();
  const before = new Date();
  await call(cluster, "POST", CMS, configMap("a"));
  await call(cluster, "GET", `${CMS}/nope?x=1`);
  const [created, missing] = cluster.requests.slice(-2);
  assertEquals([created.method, created.path, created.verb, created.status], [
    "POST",
    CMS,
    "create",
    201,
  ]);
  assertEquals([missing.verb, missing.status, missing.query], ["get", 404, "x=1"]);
  assert(created.time >= new Date(before.getTime() - 1));
});

Deno.test("loseReplies applies the write, then breaks its reply; reads and clear() are untouched", async () => {
  await using cluster = await FakeCluster.start();
  cluster.faults.loseReplies({ share: 1, verbs: ["create", "patch"] });
  const response = await fetch(`${cluster.url}${CMS}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(configMap("lost")),
  });
  let broken = false;
  try {
    await response.text();
  } catch {
    broken = true;
  }
  assert(broken, "the reply's body breaks");
  assertEquals(cluster.get("configmaps", "lost")?.metadata?.name, "lost", "but the write is done");
  assertEquals((await call(cluster, "GET", `${CMS}/lost`)).status, 200, "reads answer");
  cluster.faults.clear();
  assertEquals((await call(cluster, "POST", CMS, configMap("kept"))).status, 201);
  assertThrows(() => cluster.faults.loseReplies({ share: 2 }), UsageError, "share");
});
