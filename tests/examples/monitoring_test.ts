/**
 * The monitoring examples: the Grafana dashboard and the alerting rules use only metrics
 * the operator exposes, and the rules pass Prometheus' own checker (when installed).
 */
import { parse as parseYaml } from "yaml";
import { assert, assertEquals } from "../assert.ts";
import { OperatorMetrics } from "../../src/structs/operator_metrics.ts";
import { MetricsRegistry } from "../../src/structs/metrics.ts";
import { watchProcessMetrics } from "../../src/platform/process_metrics.ts";

const DIR = new URL("../../examples/monitoring/", import.meta.url);

/** Every metric name the operator can expose (histograms with their series suffixes). */
function exposedNames(): Set<string> {
  const registry = new MetricsRegistry();
  const metrics = new OperatorMetrics(registry);
  const process = watchProcessMetrics(registry);
  process.stop();
  metrics.handlerDuration.observe(["r", "h"], 1);
  metrics.apiDuration.observe(["v", "r"], 1);
  metrics.admissionDuration.observe(["w"], 1);
  const names = new Set<string>();
  for (const line of registry.expose().split("\n")) {
    const m = line.match(/^# TYPE (\S+) (\S+)/);
    if (!m) continue;
    names.add(m[1]);
    if (m[2] === "histogram") {
      for (const s of ["_bucket", "_sum", "_count"]) names.add(m[1] + s);
    }
  }
  return names;
}

/** The metric names an expression uses: identifiers that start with kopf_ or process_. */
function usedNames(expr: string): string[] {
  return [...expr.matchAll(/\b((?:kopf|process)_[a-z_]+)\b/g)].map((m) => m[1]);
}

Deno.test("the dashboard plots only metrics the operator exposes, every one of the main ones", async () => {
  const dashboard = JSON.parse(await Deno.readTextFile(new URL("grafana-dashboard.json", DIR)));
  const exposed = exposedNames();
  const used = new Set<string>();
  for (const panel of dashboard.panels) {
    for (const target of panel.targets) {
      for (const name of usedNames(target.expr)) {
        assert(exposed.has(name), `${panel.title}: ${name} is not exposed`);
        used.add(name.replace(/_(bucket|sum|count)$/, ""));
      }
    }
  }
  for (
    const main of [
      "kopf_handler_runs_total",
      "kopf_queue_oldest_event_age_seconds",
      "kopf_watch_silence_seconds",
      "kopf_api_requests_total",
    ]
  ) {
    assert(used.has(main), `the dashboard plots ${main}`);
  }
});

Deno.test("the alerting rules use exposed metrics and pass promtool check rules", async () => {
  const rule = parseYaml(await Deno.readTextFile(new URL("prometheus-rules.yaml", DIR)));
  assertEquals(rule.kind, "PrometheusRule");
  const exposed = exposedNames();
  for (const group of rule.spec.groups) {
    for (const r of group.rules) {
      for (const name of usedNames(r.expr)) assert(exposed.has(name), `${r.alert}: ${name}`);
    }
  }
  const file = await Deno.makeTempFile({ suffix: ".yaml" });
  await Deno.writeTextFile(file, JSON.stringify({ groups: rule.spec.groups }));
  let result;
  try {
    result = await new Deno.Command("promtool", { args: ["check", "rules", file] }).output();
  } catch {
    console.warn("promtool is not installed (Debian: apt-get install prometheus); skipped.");
    return;
  } finally {
    await Deno.remove(file);
  }
  const output = new TextDecoder().decode(result.stdout) + new TextDecoder().decode(result.stderr);
  assertEquals(result.code, 0, output);
  assert(output.includes("SUCCESS: 5 rules found"), output);
});
