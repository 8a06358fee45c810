/**
 * What the runtime tells about the process, as Prometheus' standard process metrics and
 * one of the event loop: resident memory, the JS heap, and how late a timer fires (the
 * event loop's lag: high when handlers or the framework block it).
 *
 * @module
 */
import { nodeProcess } from "./process.ts";
import type { MetricsRegistry } from "../structs/metrics.ts";

/** How often the event loop's lag is measured, in milliseconds. */
const LAG_INTERVAL_MS = 1000;

/** What watches the process; stop it with the operator. */
export interface ProcessMetrics {
  /** Stop measuring the event loop's lag. */
  stop(): void;
}

function memoryUsage(): { rss: number; heapUsed: number; heapTotal: number } {
  return typeof Deno !== "undefined" ? Deno.memoryUsage() : nodeProcess().memoryUsage();
}

/** Register the process's gauges on the registry, and start measuring the lag. */
export function watchProcessMetrics(registry: MetricsRegistry): ProcessMetrics {
  registry.gauge({
    name: "process_resident_memory_bytes",
    help: "Resident memory size in bytes.",
  }).collectWith((set) => set([], memoryUsage().rss));
  registry.gauge({
    name: "kopf_js_heap_used_bytes",
    help: "JavaScript heap in use, in bytes.",
  }).collectWith((set) => set([], memoryUsage().heapUsed));
  registry.gauge({
    name: "kopf_js_heap_total_bytes",
    help: "JavaScript heap reserved, in bytes.",
  }).collectWith((set) => set([], memoryUsage().heapTotal));
  const lag = registry.gauge({
    name: "kopf_event_loop_lag_seconds",
    help: "How late the last periodic timer fired, in seconds.",
  });
  lag.set([], 0);
  let expected = performance.now() + LAG_INTERVAL_MS;
  const timer = setInterval(() => {
    const now = performance.now();
    lag.set([], Math.max(0, now - expected) / 1000);
    expected = now + LAG_INTERVAL_MS;
  }, LAG_INTERVAL_MS);
  // The measuring must not keep a process alive that has nothing else to do.
  (timer as unknown as { unref?: () => void }).unref?.();
  if (typeof Deno !== "undefined") Deno.unrefTimer(timer as unknown as number);
  return { stop: () => clearInterval(timer) };
}
