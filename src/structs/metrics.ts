/**
 * Metrics in Prometheus' model: counters, gauges and histograms with labels, kept by a
 * {@link MetricsRegistry} (one per operator) and exposed in the Prometheus text format
 * (version 0.0.4), which every Prometheus-compatible scraper reads.
 *
 * Small on purpose: recording is a map lookup and an addition, so that the operator's
 * throughput does not change measurably with metrics on; label values are what callers
 * give (resources, handler ids, verbs, codes -- never object names or uids, so the number
 * of series stays bounded).
 *
 * @module
 */

/** Label values in the order of the metric's label names. */
export type LabelValues = readonly string[];

/** What every metric has: a name, a help text and label names. */
interface MetricInit {
  readonly name: string;
  readonly help: string;
  readonly labels?: readonly string[];
}

/** A metric as the registry exposes it. */
interface Exposable {
  readonly name: string;
  expose(lines: string[]): void;
}

const NO_LABELS: LabelValues = Object.freeze([]);

/** The key of a series: its label values joined by a character label values never hold. */
function keyOf(values: LabelValues): string {
  return values.length === 0 ? "" : values.length === 1 ? values[0] : values.join("\u0000");
}

/** `{a="x",b="y"}` with the values escaped as the text format requires. */
function labelText(names: readonly string[], values: LabelValues, extra = ""): string {
  const parts = names.map((name, i) =>
    `${name}="${
      String(values[i] ?? "").replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")
    }"`
  );
  if (extra) parts.push(extra);
  return parts.length === 0 ? "" : `{${parts.join(",")}}`;
}

/** A number as the text format writes it. */
function numberText(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

abstract class Metric implements Exposable {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  protected abstract readonly type: "counter" | "gauge" | "histogram";

  constructor(init: MetricInit) {
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(init.name)) {
      throw new TypeError(`Metric name ${JSON.stringify(init.name)} is not a valid name.`);
    }
    this.name = init.name;
    this.help = init.help;
    this.labelNames = init.labels ?? [];
  }

  expose(lines: string[]): void {
    lines.push(`# HELP ${this.name} ${this.help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")}`);
    lines.push(`# TYPE ${this.name} ${this.type}`);
    this.exposeSamples(lines);
  }

  protected abstract exposeSamples(lines: string[]): void;
}

/** A value that only goes up (restarts at zero with the process). */
export class Counter extends Metric {
  protected readonly type = "counter";
  readonly #series = new Map<string, { values: LabelValues; value: number }>();

  /** Add `amount` (1 by default) to the series of the label values. */
  inc(values: LabelValues = NO_LABELS, amount = 1): void {
    const key = keyOf(values);
    const series = this.#series.get(key);
    if (series === undefined) this.#series.set(key, { values: [...values], value: amount });
    else series.value += amount;
  }

  /** The current value of a series (0 if it has none). */
  get(values: LabelValues = NO_LABELS): number {
    return this.#series.get(keyOf(values))?.value ?? 0;
  }

  protected exposeSamples(lines: string[]): void {
    for (const { values, value } of this.#series.values()) {
      lines.push(`${this.name}${labelText(this.labelNames, values)} ${numberText(value)}`);
    }
  }
}

/** A value that goes up and down; set directly, or read from a callback when scraped. */
export class Gauge extends Metric {
  protected readonly type = "gauge";
  readonly #series = new Map<string, { values: LabelValues; value: number }>();
  #collect: ((set: (values: LabelValues, value: number) => void) => void) | undefined;

  /** Set the series of the label values. */
  set(values: LabelValues, value: number): void {
    const key = keyOf(values);
    const series = this.#series.get(key);
    if (series === undefined) this.#series.set(key, { values: [...values], value });
    else series.value = value;
  }

  /** Add to the series of the label values (subtract with a negative amount). */
  add(values: LabelValues, amount: number): void {
    this.set(values, this.get(values) + amount);
  }

  /** The current value of a series (0 if it has none). */
  get(values: LabelValues = NO_LABELS): number {
    return this.#series.get(keyOf(values))?.value ?? 0;
  }

  /**
   * Read the values when scraped instead (e.g. queue depths, memory): the callback sets
   * the series it knows; series it does not set are dropped.
   */
  collectWith(callback: (set: (values: LabelValues, value: number) => void) => void): this {
    this.#collect = callback;
    return this;
  }

  protected exposeSamples(lines: string[]): void {
    if (this.#collect !== undefined) {
      this.#series.clear();
      this.#collect((values, value) => this.set(values, value));
    }
    for (const { values, value } of this.#series.values()) {
      lines.push(`${this.name}${labelText(this.labelNames, values)} ${numberText(value)}`);
    }
  }
}

/** Prometheus' default buckets for durations, in seconds. */
export const DURATION_BUCKETS: readonly number[] = Object.freeze([
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
]);

interface HistogramSeries {
  readonly values: LabelValues;
  readonly counts: number[];
  sum: number;
  count: number;
}

/** Observations counted in buckets (cumulative when exposed), with their sum and count. */
export class Histogram extends Metric {
  protected readonly type = "histogram";
  readonly buckets: readonly number[];
  readonly #series = new Map<string, HistogramSeries>();

  /** A histogram with the given upper bounds (sorted; `+Inf` is implied). */
  constructor(init: MetricInit & { readonly buckets?: readonly number[] }) {
    super(init);
    this.buckets = [...(init.buckets ?? DURATION_BUCKETS)].sort((a, b) => a - b);
  }

  /** Record one observation in the series of the label values. */
  observe(values: LabelValues, value: number): void {
    const key = keyOf(values);
    let series = this.#series.get(key);
    if (series === undefined) {
      series = { values: [...values], counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.#series.set(key, series);
    }
    const buckets = this.buckets;
    for (let i = 0; i < buckets.length; i++) {
      if (value <= buckets[i]) {
        series.counts[i]++;
        break;
      }
    }
    series.sum += value;
    series.count++;
  }

  /** How many observations a series has. */
  count(values: LabelValues = NO_LABELS): number {
    return this.#series.get(keyOf(values))?.count ?? 0;
  }

  protected exposeSamples(lines: string[]): void {
    for (const series of this.#series.values()) {
      let cumulative = 0;
      for (let i = 0; i < this.buckets.length; i++) {
        cumulative += series.counts[i];
        const le = `le="${numberText(this.buckets[i])}"`;
        lines.push(
          `${this.name}_bucket${labelText(this.labelNames, series.values, le)} ${cumulative}`,
        );
      }
      lines.push(
        `${this.name}_bucket${
          labelText(this.labelNames, series.values, 'le="+Inf"')
        } ${series.count}`,
      );
      lines.push(
        `${this.name}_sum${labelText(this.labelNames, series.values)} ${numberText(series.sum)}`,
      );
      lines.push(`${this.name}_count${labelText(this.labelNames, series.values)} ${series.count}`);
    }
  }
}

/** The metrics of one operator, exposed together. */
export class MetricsRegistry {
  /** The content type of {@link MetricsRegistry.expose}'s text. */
  readonly contentType: string = METRICS_CONTENT_TYPE;
  readonly #metrics = new Map<string, Exposable>();

  /** A counter; the same one again when asked twice by the same name. */
  counter(init: MetricInit): Counter {
    return this.#add(init.name, () => new Counter(init), Counter);
  }

  /** A gauge; the same one again when asked twice by the same name. */
  gauge(init: MetricInit): Gauge {
    return this.#add(init.name, () => new Gauge(init), Gauge);
  }

  /** A histogram; the same one again when asked twice by the same name. */
  histogram(init: MetricInit & { readonly buckets?: readonly number[] }): Histogram {
    return this.#add(init.name, () => new Histogram(init), Histogram);
  }

  /** All metrics in the Prometheus text format, sorted by name. */
  expose(): string {
    const lines: string[] = [];
    for (const name of [...this.#metrics.keys()].sort()) this.#metrics.get(name)!.expose(lines);
    return lines.join("\n") + "\n";
  }

  // deno-lint-ignore no-explicit-any
  #add<T extends Exposable>(name: string, make: () => T, type: new (...args: any[]) => T): T {
    const existing = this.#metrics.get(name);
    if (existing !== undefined) {
      if (!(existing instanceof type)) {
        throw new TypeError(`The metric ${name} exists already as another type.`);
      }
      return existing;
    }
    const metric = make();
    this.#metrics.set(name, metric);
    return metric;
  }
}

/** The content type of the text format. */
export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
