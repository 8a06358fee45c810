/**
 * Shrinking a failing seed: a lost-update race needs no fault at all (the latencies of
 * concurrent handlers are enough), and the shrunk run replays exactly with the faults it
 * suppressed.
 */
import { assert, assertEquals } from "../../assert.ts";
import { simulate } from "../../../src/testing/mod.ts";
import * as counting from "../../fixtures/simulation/counting_scenario.ts";

const OPERATOR = new URL("../../fixtures/simulation/counting_operator.ts", import.meta.url).href;

Deno.test("a lost update is shrunk to the faults it needs, and the shrunk run replays", async () => {
  const options = {
    operator: OPERATOR, // imported afresh for each seed
    scenario: counting.scenario,
    resources: counting.resources,
    settle: 60,
    invariants: counting.invariants,
  };
  const report = await simulate({ ...options, seeds: 30, shrink: true, stopAtFailure: true });
  assertEquals(report.failures.length, 1, "the race shows within 30 seeds");
  const failure = report.failures[0];
  const shrunk = failure.shrunk!;
  assert(shrunk !== undefined);
  assert(!shrunk.needed.includes("crashes"), `needed: ${shrunk.needed.join(", ")}`);
  assert(shrunk.suppress.length > 5, `suppressed: ${shrunk.suppress.join(", ")}`);
  const replay = await simulate({ ...options, seed: failure.seed, suppress: shrunk.suppress });
  assertEquals(replay.failures[0]?.invariant, "counted");
  assertEquals(replay.failures[0].trace, shrunk.trace);
});
