/**
 * What a peer suite's run comes to: one outcome per test, printed one a line, and a
 * summary per suite.
 *
 * @module
 */

/** How one test ended. */
export type Outcome = "pass" | "fail" | "skip";

/** One test of a peer suite and how it ended. */
export interface TestResult {
  /** The test's name as its suite spells it (pytest's node id, the module's name). */
  readonly name: string;
  readonly outcome: Outcome;
  /** Why it failed or was skipped: the suite's own one-line reason. */
  readonly reason?: string;
}

/** One line per test: `PASS name`, `FAIL name: reason`, `SKIP name: reason`. */
export function resultLine(result: TestResult): string {
  const tag = result.outcome.toUpperCase();
  return result.reason ? `${tag} ${result.name}: ${result.reason}` : `${tag} ${result.name}`;
}

/** `suite: 25 passed, 21 failed, 0 skipped (of 46)`. */
export function summaryLine(suite: string, results: readonly TestResult[]): string {
  const count = (outcome: Outcome) => results.filter((r) => r.outcome === outcome).length;
  return `${suite}: ${count("pass")} passed, ${count("fail")} failed, ${count("skip")} skipped ` +
    `(of ${results.length})`;
}
