import { assert, assertEquals, assertThrows } from "../assert.ts";
import { MetricsRegistry } from "../../src/structs/metrics.ts";
import { assertPromtoolAccepts, promtool } from "../promtool.ts";

Deno.test("counters, gauges and histograms are exposed in the text format, sorted by name", () => {
  const registry = new MetricsRegistry();
  const runs = registry.counter({ name: "x_runs_total", help: "Runs.", labels: ["kind"] });
  runs.inc(["a"]);
  runs.inc(["a"], 2);
  runs.inc(['we"ird\\n']);
  registry.gauge({ name: "x_depth", help: "Depth." }).set([], 4);
  const durations = registry.histogram({
    name: "x_seconds",
    help: "Durations.",
    labels: ["op"],
    buckets: [0.1, 1],
  });
  durations.observe(["get"], 0.05);
  durations.observe(["get"], 0.5);
  durations.observe(["get"], 5);
  assertEquals(
    registry.expose(),
    [
      "# HELP x_depth Depth.",
      "# TYPE x_depth gauge",
      "x_depth 4",
      "# HELP x_runs_total Runs.",
      "# TYPE x_runs_total counter",
      'x_runs_total{kind="a"} 3',
      'x_runs_total{kind="we\\"ird\\\\n"} 1',
      "# HELP x_seconds Durations.",
      "# TYPE x_seconds histogram",
      'x_seconds_bucket{op="get",le="0.1"} 1',
      'x_seconds_bucket{op="get",le="1"} 2',
      'x_seconds_bucket{op="get",le="+Inf"} 3',
      'x_seconds_sum{op="get"} 5.55',
      'x_seconds_count{op="get"} 3',
      "",
    ].join("\n"),
  );
});

Deno.test("gauges can be read when scraped; series they no longer set go", () => {
  const registry = new MetricsRegistry();
  let depths: [string, number][] = [["a", 1], ["b", 2]];
  registry.gauge({ name: "q", help: "Queue.", labels: ["r"] })
    .collectWith((set) => depths.forEach(([r, v]) => set([r], v)));
  assert(registry.expose().includes('q{r="b"} 2'));
  depths = [["a", 5]];
  const text = registry.expose();
  assert(text.includes('q{r="a"} 5') && !text.includes('r="b"'), text);
});

Deno.test("a name is one metric: asked again, the same; as another type, refused", () => {
  const registry = new MetricsRegistry();
  const a = registry.counter({ name: "c_total", help: "C." });
  assertEquals(registry.counter({ name: "c_total", help: "C." }), a);
  assertThrows(() => registry.gauge({ name: "c_total", help: "C." }), TypeError, "another type");
  assertThrows(() => registry.gauge({ name: "bad name", help: "?" }), TypeError, "not a valid");
});

Deno.test("the exposition passes promtool's checks (when promtool is installed)", async () => {
  const registry = new MetricsRegistry();
  registry.counter({ name: "kopf_x_total", help: "X.", labels: ["a"] }).inc(["1"]);
  registry.histogram({ name: "kopf_y_seconds", help: "Y." }).observe([], 0.2);
  await assertPromtoolAccepts(registry.expose());
  // And it is a real check: a counter without _total is flagged.
  const bad = await promtool("# HELP kopf_z Z.\n# TYPE kopf_z counter\nkopf_z 1\n");
  if (bad !== undefined) assert(bad.output.includes("_total"), bad.output);
});
