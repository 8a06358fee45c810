/** One measured figure of a benchmark section. */
export interface BenchFigure {
  /** What was measured, e.g. "watch parsing, 1 KB objects". */
  name: string;
  /** The figure with its unit, e.g. "123,456 events/s". */
  value: string;
  /** The target as text, e.g. "≥ 50,000 events/s", if there is one. */
  target?: string;
  /** Whether the target was met, if there is one. */
  ok?: boolean;
}

/** A section of `scripts/bench.ts`, kept in `scripts/bench/<area>.ts`. */
export interface BenchSection {
  /** The section's heading. */
  title: string;
  /** Run the measurements and return the figures. */
  run(): Promise<BenchFigure[]>;
  /** Text printed after the figures, e.g. a markdown table of them, once they are run. */
  footer?(): string;
}
