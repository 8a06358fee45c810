/**
 * The lost update: create handlers read-modify-write one counter ConfigMap with a
 * client of their own. Written without the resourceVersion, some seed loses a count, and
 * replaying that seed fails the same, with the same trace byte for byte; written with the
 * resourceVersion and retried on 409, no seed of 200 loses one.
 */
import { assert, assertEquals } from "../../assert.ts";
import { simulate } from "../../../src/testing/mod.ts";
import * as counter from "../../simulation/scenarios/counter.ts";
import { failuresOf, optionsOf } from "./scenario_modules.ts";

const LOST_UPDATE = "tests/simulation/operators/counter_lost_update.ts";

Deno.test("without the resourceVersion, some seed of 200 loses a count; its replay is the same", async () => {
  const lossy = { ...counter, operator: LOST_UPDATE };
  const report = await simulate(optionsOf(lossy, { seeds: 200, stopAtFailure: true }));
  assertEquals(report.failures.length, 1, "no seed of 200 lost a count");
  const [found] = report.failures;
  assertEquals(found.invariant, "counterEqualsObjectsCreated");
  assert(/^the counter is \d+, but 10 objects were created$/.test(found.message), found.message);
  const replay = await simulate(optionsOf(lossy, { seed: found.seed }));
  assertEquals(replay.failures.length, 1);
  assertEquals(replay.failures[0].invariant, found.invariant);
  assertEquals(replay.failures[0].message, found.message);
  assertEquals(replay.failures[0].trace, found.trace);
});

Deno.test("with the resourceVersion and retries on 409: 200 seeds, no count lost", async () => {
  const report = await simulate(optionsOf(counter, { seeds: 200 }));
  assertEquals(report.runs, 200);
  assertEquals(failuresOf(report), []);
});
