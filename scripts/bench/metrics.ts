/**
 * What keeping metrics costs per handled object: the recordings an object's handling makes
 * (its event, its cycle, its handler run and duration, its patch and the API requests with
 * their durations), timed over many objects; and an exposition of a registry that size.
 * Set against the operator's CPU per object (about 0.4 ms, see the operator section), this
 * bounds what metrics can cost end to end more tightly than timing whole runs can, whose
 * noise on a shared machine is larger than the cost.
 *
 *     deno task bench metrics
 */
import type { BenchFigure, BenchSection } from "./types.ts";
import { OperatorMetrics } from "../../src/structs/operator_metrics.ts";
import { requestLabels } from "../../src/structs/metric_labels.ts";

const OBJECTS = 200_000;

function recordOne(metrics: OperatorMetrics, i: number): void {
  const resource = "kopfexamples.kopf.dev";
  metrics.eventsReceived.inc([resource, "ADDED"]);
  metrics.processingCycles.inc([resource]);
  metrics.handlerRuns.inc([resource, "create_fn", "success"]);
  metrics.handlerDuration.observe([resource, "create_fn"], (i % 100) / 10_000);
  metrics.patches.inc([resource]);
  const [verb, labelled] = requestLabels(
    "PATCH",
    `/apis/kopf.dev/v1/namespaces/ns/kopfexamples/o${i}`,
  );
  metrics.apiRequests.inc([verb, labelled, "200"]);
  metrics.apiDuration.observe([verb, labelled], 0.002);
}

export const section: BenchSection = {
  title: "Metrics: what recording costs per handled object",
  run(): Promise<BenchFigure[]> {
    const metrics = new OperatorMetrics();
    for (let i = 0; i < 10_000; i++) recordOne(metrics, i); // warm up
    const started = performance.now();
    for (let i = 0; i < OBJECTS; i++) recordOne(metrics, i);
    const perObjectUs = ((performance.now() - started) * 1000) / OBJECTS;
    const exposeStarted = performance.now();
    const text = metrics.registry.expose();
    const exposeMs = performance.now() - exposeStarted;
    return Promise.resolve([
      {
        name: "recordings of one handled object (8 series updates)",
        value: `${perObjectUs.toFixed(2)} µs, ${(perObjectUs / 4).toFixed(2)}% of 0.4 ms`,
        target: "≤ 3% of the operator's CPU per object",
        ok: perObjectUs / 400 <= 0.03,
      },
      {
        name: "one scrape's exposition",
        value: `${exposeMs.toFixed(2)} ms for ${text.split("\n").length} lines`,
      },
    ]);
  },
};
