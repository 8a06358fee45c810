/**
 * The memory figures of the soak: a process's resident set sampled every second from
 * `/proc` (the operator's child processes, and the driver's own, which holds the fake
 * cluster), and the judgement of a long run — the average of the five minutes after the
 * warm-up (minutes 5–10 by default) against that of the last five, flat when it grew by no
 * more than {@link FLAT_GROWTH}.
 *
 * @module
 */

/** One reading: seconds on the monotonic clock, and the RSS then in MB. */
export interface RssSample {
  readonly at: number;
  readonly mb: number;
}

/** How much the late average may exceed the early one and still be flat: GC noise. */
export const FLAT_GROWTH = 0.1;

/** The warm-up of a run by default, in seconds: what it holds by then is its working set. */
export const WARM_UP = 300;
/** The length of each of the two windows compared, in seconds. */
const WINDOW = 300;

/** Samples a process's RSS every second; its peak from the kernel's high-water mark. */
export class RssSampler {
  readonly samples: RssSample[] = [];
  /** The highest RSS of any process sampled, in MB (`VmHWM`, so peaks between samples too). */
  peakMb = 0;
  #timer: ReturnType<typeof setInterval> | undefined;

  /** Sample this process (`"self"`) or a child by pid, now and every second; the last one stops. */
  start(pid: number | "self"): void {
    this.stop();
    void this.#sample(pid);
    this.#timer = setInterval(() => void this.#sample(pid), 1000);
  }

  /** Stop sampling. */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** The first and last readings, in MB (0 without any). */
  get startMb(): number {
    return this.samples[0]?.mb ?? 0;
  }

  get endMb(): number {
    return this.samples.at(-1)?.mb ?? 0;
  }

  async #sample(pid: number | "self"): Promise<void> {
    try {
      const status = await Deno.readTextFile(`/proc/${pid}/status`);
      const rss = Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024;
      const hwm = Number(status.match(/VmHWM:\s+(\d+)/)?.[1] ?? 0) / 1024;
      this.peakMb = Math.max(this.peakMb, hwm);
      this.samples.push({ at: performance.now() / 1000, mb: rss });
    } catch {
      // The process has just ended (or /proc is not there): nothing to sample.
    }
  }
}

/** A run's memory trend: the two averages, the growth between them, and the verdict. */
export interface MemoryTrend {
  /** Seconds from the first sample to the first window. */
  readonly warmUp: number;
  /** The average RSS over the five minutes after the warm-up, in MB. */
  readonly early: number;
  /** The average RSS over the last five minutes, in MB. */
  readonly late: number;
  /** `late / early - 1`. */
  readonly growth: number;
  /** Whether it stayed within {@link FLAT_GROWTH}. */
  readonly flat: boolean;
}

/**
 * The five minutes after the warm-up (seconds from the first sample; minutes 5–10 by
 * default) against the last five, or `undefined` when the run is too short for the two
 * windows to be apart.
 */
export function memoryTrend(
  samples: readonly RssSample[],
  warmUp: number = WARM_UP,
): MemoryTrend | undefined {
  const t0 = samples[0]?.at ?? 0;
  const total = (samples.at(-1)?.at ?? t0) - t0;
  if (total < warmUp + 2 * WINDOW) return undefined;
  const window = (from: number, to: number) => {
    const mbs = samples.filter((s) => s.at - t0 >= from && s.at - t0 < to).map((s) => s.mb);
    return mbs.length === 0 ? 0 : mbs.reduce((a, b) => a + b, 0) / mbs.length;
  };
  const early = window(warmUp, warmUp + WINDOW);
  const late = window(total - WINDOW, total + 1);
  const growth = early > 0 ? late / early - 1 : 0;
  return { warmUp, early, late, growth, flat: growth <= FLAT_GROWTH };
}

/** Minutes as the table shows them: whole, or with one decimal. */
function minutes(seconds: number): string {
  const m = seconds / 60;
  return Number.isInteger(m) ? String(m) : m.toFixed(1);
}

/** The rows of a trend for the soak's table, under a name (`operator`, `fake cluster`). */
export function trendRows(who: string, trend: MemoryTrend): [string, string][] {
  const percent = Math.round(trend.growth * 100);
  return [
    [
      `${who} RSS, average of minutes ${minutes(trend.warmUp)}–${minutes(trend.warmUp + WINDOW)}`,
      `${Math.round(trend.early)} MB`,
    ],
    [`${who} RSS, average of the last 5 minutes`, `${Math.round(trend.late)} MB`],
    [
      `${who} RSS growth after warm-up`,
      `${percent > 0 ? "+" : ""}${percent}% (${trend.flat ? "flat" : "growing"})`,
    ],
  ];
}
