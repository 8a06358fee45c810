/**
 * The garbage collector's pauses of a Deno child, from the lines V8 prints on its stdout
 * with `--trace-gc`: how often and how long each kind of collection stopped the child's
 * main thread while it was measured. The CPU a benchmark reads from `/proc` does not tell
 * the collector's share; these lines do.
 *
 * A line reads like
 * `[4242:0x55d0c0de0000]     2418 ms: Scavenge 33.4 (43.1) -> 30.9 (43.1) MB, pooled: 0.0 MB, 0.93 / 0.00 ms (average mu = …) allocation failure;`:
 * the kind, the heap's size before and after, then the pause (and the time of background
 * work, not counted here). A mark-compact's also says `(+ 20.7 ms in 288 steps since start
 * of marking, …)`: the incremental marking done on the main thread in steps before its
 * pause, counted with it.
 *
 * @module
 */

/** Collections of one kind: how many, and the main thread's time in them. */
export interface GcPauses {
  readonly count: number;
  readonly ms: number;
}

const TRACE_LINE = new RegExp(
  String.raw`^\[\d+:0x[0-9a-f]+(?::\d+)?\]\s+[\d.]+ ms: (.+?)\s+[\d.]+ \([\d.]+\) -> ` +
    String.raw`[\d.]+ \([\d.]+\) MB, (?:pooled: [\d.]+ MB, )?([\d.]+) / [\d.]+ ms` +
    String.raw`(?: \(\+ ([\d.]+) ms in \d+ steps)?`,
);

/** A `--trace-gc` line's kind and main-thread time (see the module docs); else `undefined`. */
export function parseGcLine(line: string): { kind: string; ms: number } | undefined {
  const match = TRACE_LINE.exec(line);
  if (match === null) return undefined;
  return { kind: match[1], ms: Number(match[2]) + Number(match[3] ?? 0) };
}

/** The pauses of one child, summed by kind between {@link start} and {@link stop}. */
export class GcTally {
  #counting = false;
  readonly #kinds = new Map<string, { count: number; ms: number }>();

  /** Count the collections from now on (the child is ready). */
  start(): void {
    this.#counting = true;
  }

  /** Count no more (the measured work is done). */
  stop(): void {
    this.#counting = false;
  }

  /**
   * A line of the child's stdout: whether it is V8's trace of a collection (counted while
   * counting), and so no line of the child's own.
   */
  take(line: string): boolean {
    const pause = parseGcLine(line);
    if (pause === undefined) return false;
    if (this.#counting) {
      const kind = this.#kinds.get(pause.kind);
      if (kind === undefined) this.#kinds.set(pause.kind, { count: 1, ms: pause.ms });
      else {
        kind.count++;
        kind.ms += pause.ms;
      }
    }
    return true;
  }

  /** The collections counted, by kind, in the order their kinds first came. */
  get kinds(): ReadonlyMap<string, GcPauses> {
    return this.#kinds;
  }

  /** All the collections counted. */
  get total(): GcPauses {
    let count = 0;
    let ms = 0;
    for (const kind of this.#kinds.values()) {
      count += kind.count;
      ms += kind.ms;
    }
    return { count, ms };
  }

  /** What was counted, as `139 Scavenge 215 ms, 3 Mark-Compact 90 ms` (or `none`). */
  describe(): string {
    if (this.#kinds.size === 0) return "none";
    return [...this.#kinds].map(([kind, { count, ms }]) => `${count} ${kind} ${ms.toFixed(0)} ms`)
      .join(", ");
  }
}
