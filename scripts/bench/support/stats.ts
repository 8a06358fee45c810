/** Small figures' helpers of the benchmarks. */

/** The p-th percentile (0–100) of ascending numbers, by the nearest rank below. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

/** The median of numbers in any order (of an even count, the mean of the middle two). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Bytes as whole megabytes (MiB), e.g. `"123"`. */
export function mb(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(0);
}

/** A markdown table: the head, its rule, and a line per row of cells. */
export function markdownTable(
  head: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  return [
    `| ${head.join(" | ")} |`,
    `|${head.map(() => "---").join("|")}|`,
    ...rows.map((cells) => `| ${cells.join(" | ")} |`),
  ].join("\n");
}
