/**
 * The client's adaptive limit of requests in flight against a real HTTP server that
 * executes a few requests at once and answers the rest as kube-apiserver's flow control
 * does (429, `Retry-After`, the flow schema's and priority level's UIDs): all requests
 * succeed with few 429s, the metrics say how many and what the limit is, deferred
 * requests wait behind live ones, watches take no place, and a single 429 (a probe of the
 * limit) is no warning.
 */
import { configure, type LogRecord, reset } from "@logtape/logtape";
import { assert, assertEquals } from "../assert.ts";
import { OperatorMetrics } from "../../src/structs/operator_metrics.ts";
import { runWithRequestPriority } from "../../src/client/request_priorities.ts";
import type { NetworkingTuning } from "../../src/client/tuning.ts";
import { assertPromtoolAccepts, sampleOf as sample } from "../promtool.ts";
import { deferred } from "../clocks.ts";
import { json, type Recorded, ScriptedServer } from "./scripted_server.ts";
// kube-apiserver's answer when a priority level has no seat and no room in its queues.
import { tooManyRequests } from "../../src/testing/fake_cluster/flow_control.ts";

/**
 * A server that executes `seats` requests at once (each `hold(request)` long) and answers
 * 429 beyond, counting what it did.
 */
function throttlingServer(seats: number, hold: (request: Recorded) => Promise<void>) {
  const counts = { executing: 0, peak: 0, admitted: 0, throttled: 0 };
  const server = ScriptedServer.start(async (request) => {
    if (counts.executing >= seats) {
      counts.throttled++;
      return tooManyRequests(1);
    }
    counts.executing++;
    counts.admitted++;
    counts.peak = Math.max(counts.peak, counts.executing);
    try {
      await hold(request);
    } finally {
      counts.executing--;
    }
    return json({ kind: "ConfigMap", apiVersion: "v1", metadata: { name: "x" } });
  });
  return { server, counts };
}

const pause = (ms: number) => () => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `n` callers, each sending its share of `total` patches one after another. */
async function patches(
  server: ScriptedServer,
  networking: NetworkingTuning,
  metrics: OperatorMetrics,
  callers: number,
  total: number,
): Promise<void> {
  await using api = server.client({
    networking: { errorBackoffs: [1, 1, 1, 1, 1], ...networking },
    metrics,
  });
  let left = total;
  await Promise.all(Array.from({ length: callers }, async () => {
    while (left-- > 0) {
      await api.request("PATCH", "/api/v1/namespaces/default/configmaps/x", {
        body: { data: { a: String(left) } },
        contentType: "application/merge-patch+json",
      });
    }
  }));
}

Deno.test("against a server of 4 seats without a queue, 100 callers' 2,000 patches all pass with ≤ 1% of 429s", async () => {
  const { server, counts } = throttlingServer(4, pause(2));
  await using _ = server;
  const metrics = new OperatorMetrics();
  await patches(server, {}, metrics, 100, 2000);
  const sent = counts.admitted + counts.throttled;
  assertEquals(counts.admitted, 2000);
  assert(counts.throttled <= sent * 0.01, `${counts.throttled} of ${sent} throttled`);
  const text = metrics.registry.expose();
  const resource = 'verb="patch",resource="configmaps"';
  assertEquals(
    sample(text, `kopf_api_throttled_total{${resource}}`),
    counts.throttled || undefined,
  );
  assertEquals(
    sample(text, `kopf_api_requests_total{${resource},code="429"}`),
    counts.throttled || undefined,
  );
  const limit = sample(text, "kopf_api_concurrency_limit")!;
  assert(limit >= 1 && limit <= 5, `the limit settles at the server's seats: ${limit}`);
  assertEquals(sample(text, "kopf_api_concurrency_inflight"), 0);
  assertEquals(sample(text, "kopf_api_concurrency_waiting"), 0);
  await assertPromtoolAccepts(text);
});

Deno.test("20 requests at once: the client sends its initial limit, not all 20, and learns from the 429s", async () => {
  for (const adaptive of [true, false]) {
    const release = deferred();
    const { server, counts } = throttlingServer(4, () => release.promise);
    await using _ = server;
    const metrics = new OperatorMetrics();
    const sending = patches(server, { adaptiveConcurrency: adaptive }, metrics, 20, 20);
    // The first attempts are all in: 4 held, the rest refused (and waiting to retry or to go).
    while (counts.admitted + counts.throttled < (adaptive ? 8 : 20)) await pause(5)();
    await pause(50)();
    release.resolve();
    await sending;
    const text = metrics.registry.expose();
    if (adaptive) {
      // 8 went first (the initial limit): 4 refused; then a limit of 5 (0.7 of 8, below the
      // 7 others in flight) and one more refused; then no more than 4 at a time.
      assert(counts.throttled <= 6, `${counts.throttled} throttled`);
      const limit = sample(text, "kopf_api_concurrency_limit")!;
      assert(limit >= 3 && limit <= 4, `${limit}: at the server's 4 seats or just below`);
    } else {
      assert(counts.throttled >= 16, `${counts.throttled} throttled without the limit`);
      assertEquals(sample(text, "kopf_api_concurrency_limit"), undefined, "no limit to show");
    }
  }
});

Deno.test("under the limit, deferred requests wait behind live ones; watches and exempt requests take no place", async () => {
  const order: string[] = [];
  const first = deferred();
  const server = ScriptedServer.start(async (request) => {
    if (request.query.get("watch") === "true") return server.stream().response();
    order.push(request.query.get("who") ?? "?");
    if (request.query.get("who") === "first") await first.promise;
    return json({ kind: "ConfigMap", apiVersion: "v1", metadata: { name: "x" } });
  });
  await using _ = server;
  const fixed = { minConcurrency: 1, initialConcurrency: 1, maxConcurrency: 1 };
  await using api = server.client({ networking: fixed });
  const get = (who: string) =>
    api.request("GET", "/api/v1/namespaces/default/configmaps/x", { query: { who } });
  const holding = get("first");
  while (order.length < 1) await pause(5)();
  // A watch opens although the one place is taken: the server does not count watches.
  const stop = new AbortController();
  const stream = await api.openStream("/api/v1/configmaps", {
    query: { watch: "true" },
    signal: stop.signal,
  });
  // The deferred one asks first, the live one second: the live one goes first.
  const later = runWithRequestPriority("deferred", () => get("deferred"));
  const now = get("live");
  // The coordination of replicas takes no place: it goes at once.
  await runWithRequestPriority("exempt", () => get("exempt"));
  await pause(20)();
  assertEquals(order, ["first", "exempt"], "both wait for the one place");
  first.resolve();
  await Promise.all([holding, later, now]);
  assertEquals(order, ["first", "exempt", "live", "deferred"]);
  stop.abort();
  await stream.body.cancel().catch(() => {});
});

Deno.test("a request's first 429 under the adaptive limit is no warning; one refused again is", async () => {
  const records: LogRecord[] = [];
  await configure({
    reset: true,
    sinks: { capture: (record: LogRecord) => records.push(record) },
    loggers: [
      { category: ["kopf"], lowestLevel: "info", sinks: ["capture"] },
      { category: ["logtape", "meta"], lowestLevel: "warning", sinks: [] },
    ],
  });
  try {
    const warnings = async (refusals: number, networking: NetworkingTuning) => {
      let calls = 0;
      await using server = ScriptedServer.start(() =>
        ++calls <= refusals
          // As kube-apiserver refuses (its least Retry-After is 1 s).
          ? tooManyRequests(1)
          : json({
            kind: "ConfigMap",
            apiVersion: "v1",
            metadata: { name: "x", namespace: "default" },
          })
      );
      await using api = server.client({ networking: { errorBackoffs: [0, 0, 0], ...networking } });
      records.length = 0;
      await api.request("GET", "/api/v1/namespaces/default/configmaps/x");
      return records.filter((r) => r.level === "warning").length;
    };
    assertEquals(await warnings(1, {}), 0, "a probe of the limit");
    assertEquals(await warnings(2, {}), 1, "refused again: the server is under pressure");
    assertEquals(await warnings(1, { adaptiveConcurrency: false }), 1, "no limit: as before");
  } finally {
    await reset();
  }
});
