/**
 * The audit: a create handler writes one audit ConfigMap per run. With crashes, a
 * crash between the audit's write and the handler's stored success runs the handler again
 * and some seed has an object with two audits; without crashes (every other fault on), no
 * seed of 200 has. With crashes, a crash right after a write comes once per hundred writes;
 * one seed in five meets one between an audit and its outcome (40 of the first 200), so
 * 200 seeds miss it only by a chance of about 0.8^200 (below 1e-19); the first such seed
 * is the 11th.
 */
import { assertEquals } from "../../assert.ts";
import { simulate } from "../../../src/testing/mod.ts";
import * as audit from "../../simulation/scenarios/audit.ts";
import { failuresOf, optionsOf } from "./scenario_modules.ts";

Deno.test("with crashes, some seed of 200 writes two audits of one object", async () => {
  const report = await simulate(
    optionsOf(audit, { seeds: 200, faults: {}, stopAtFailure: true }),
  );
  assertEquals(report.failures.length, 1, "no seed of 200 wrote an audit twice");
  const [found] = report.failures;
  assertEquals(found.invariant, "oneAuditPerObject");
  assertEquals(/ has 2 audits/.test(found.message), true, found.message);
  assertEquals(found.trace.includes("crashes right after a write landed"), true);
});

Deno.test("without crashes: 200 seeds, one audit per object", async () => {
  const report = await simulate(optionsOf(audit, { seeds: 200, faults: { crashes: false } }));
  assertEquals(report.runs, 200);
  assertEquals(failuresOf(report), []);
});
