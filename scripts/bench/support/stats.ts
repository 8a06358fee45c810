/** Small figures' helpers of the benchmarks. */

/** The p-th percentile (0–100) of ascending numbers, by the nearest rank below. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

/** Bytes as whole megabytes (MiB), e.g. `"123"`. */
export function mb(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(0);
}
