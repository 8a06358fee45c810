/**
 * The trace of a simulated run: what happened, line by line, on simulated time -- the
 * requests and their answers, the watch events delivered, the faults, the operator's
 * starts, crashes and log lines, and what the scenario did. The same seed writes the same
 * trace, byte for byte; a failure's trace is what a person reads to understand it.
 *
 * @module
 */

/** The kinds of trace lines, each padded to one width. */
export type TraceKind = "api" | "watch" | "fault" | "operator" | "log" | "scenario" | "check";

/** The trace lines of one run, the last `limit` of them kept. */
export class Trace {
  readonly #lines: string[] = [];
  #dropped = 0;

  constructor(readonly now: () => number, readonly limit: number = 50_000) {}

  /** Add a line of this kind, stamped with the simulated time. */
  add(kind: TraceKind, text: string): void {
    const stamp = this.now().toFixed(3).padStart(10);
    this.#lines.push(`${stamp} ${kind.padEnd(8)} ${text}`);
    if (this.#lines.length > this.limit * 1.25) {
      const cut = this.#lines.length - this.limit;
      this.#lines.splice(0, cut);
      this.#dropped += cut;
    }
  }

  /** How many lines were written (kept or not). */
  get length(): number {
    return this.#dropped + this.#lines.length;
  }

  /** The trace as text, a line per line, with a first line saying what was left out. */
  text(): string {
    const kept = this.#lines.length > this.limit
      ? this.#lines.slice(this.#lines.length - this.limit)
      : this.#lines;
    const left = this.#dropped + this.#lines.length - kept.length;
    const head = left > 0 ? `(${left} earlier lines left out)\n` : "";
    return head + kept.map((line) => line + "\n").join("");
  }
}
