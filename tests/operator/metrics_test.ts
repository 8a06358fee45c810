/**
 * The operator's metrics and readiness over HTTP, scraped while a real operator serves the
 * fake cluster: the counts move exactly as the scenario drives them, and Prometheus' own
 * checker accepts the exposition.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { TemporaryError } from "../../src/structs/errors.ts";
import { on } from "../../src/intents/registration.ts";
import {
  Calls,
  clusterRegistry,
  freePort,
  handled,
  kex,
  startCluster,
  startOperator,
} from "./harness.ts";
import { assertPromtoolAccepts, sampleOf as sample } from "../promtool.ts";

Deno.test("metrics count handler runs, events, cycles and requests as the scenario drives them", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry }, function create_fn({ name, retry }) {
    calls.add(name!);
    if (name === "flaky" && retry === 0) throw new TemporaryError("not yet", { delay: 0 });
    return "done";
  });
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const op = await startOperator(registry, { metricsEndpoint: `${base}/metrics` });
  try {
    const ready = await fetch(`${base}/readyz`);
    assertEquals([ready.status, await ready.text()], [200, "ready\n"]);
    cluster.create(kex("steady"));
    cluster.create(kex("flaky"));
    await cluster.waitFor("kopfexamples", "steady", handled);
    await cluster.waitFor("kopfexamples", "flaky", handled);
    const response = await fetch(`${base}/metrics`);
    assertEquals(response.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    const text = await response.text();
    const runs = (outcome: string) =>
      sample(
        text,
        `kopf_handler_runs_total{resource="kopfexamples.kopf.dev",handler="create_fn",outcome="${outcome}"}`,
      );
    assertEquals(calls.list.length, 3);
    assertEquals(runs("success"), 2, text);
    assertEquals(runs("temporary_error"), 1);
    assertEquals(
      sample(
        text,
        'kopf_handler_duration_seconds_count{resource="kopfexamples.kopf.dev",handler="create_fn"}',
      ),
      3,
    );
    assert(
      (sample(text, 'kopf_events_received_total{resource="kopfexamples.kopf.dev",type="ADDED"}') ??
        0) >= 2,
      text,
    );
    // Each object's first state, and the flaky one's retry; the states of the writes that
    // finished them need nothing and are not processed (their echoes), so no more than that
    // but for the flaky one's write of its retry's progress, whose state is processed.
    const cycles = sample(text, 'kopf_processing_cycles_total{resource="kopfexamples.kopf.dev"}');
    assert(cycles !== undefined && cycles >= 3 && cycles <= 4, text);
    // Every patch of the handling is one API request: the two counts agree exactly.
    const patches = sample(text, 'kopf_patches_total{resource="kopfexamples.kopf.dev"}');
    assert(patches !== undefined && patches >= 2, text);
    assertEquals(
      sample(
        text,
        'kopf_api_requests_total{verb="patch",resource="kopfexamples.kopf.dev",code="200"}',
      ),
      patches,
    );
    assert((sample(text, 'kopf_watch_connects_total{resource="kopfexamples.kopf.dev"}') ?? 0) >= 1);
    assertEquals(sample(text, "kopf_ready"), 1);
    assertEquals(sample(text, "kopf_peering_paused"), 0);
    assert((sample(text, "process_resident_memory_bytes") ?? 0) > 1_000_000);
    assertStringIncludes(text, 'kopf_objects{resource="kopfexamples.kopf.dev"} 2');
    // No object names or uids in any label: the series stay few.
    assert(!text.includes("steady") && !text.includes("flaky"), "no object names in labels");
    await assertPromtoolAccepts(text);
  } finally {
    await op.stop();
  }
});

Deno.test("readiness and liveness share one server when they share a host and port", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  on.create("kopfexamples", { registry }, function noop() {});
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const op = await startOperator(registry, {
    livenessEndpoint: `${base}/healthz`,
    metricsEndpoint: `${base}/metrics`,
  });
  try {
    assertEquals((await fetch(`${base}/healthz`)).status, 200);
    assertEquals(await (await fetch(`${base}/healthz`)).json(), {});
    assertEquals((await fetch(`${base}/readyz`)).status, 200);
    const metrics = await fetch(`${base}/metrics`);
    assertStringIncludes(await metrics.text(), "# TYPE kopf_handler_runs_total counter");
    const missing = await fetch(`${base}/nothing`);
    await missing.body?.cancel();
    assertEquals(missing.status, 404);
  } finally {
    await op.stop();
  }
});
