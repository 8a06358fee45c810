/**
 * The operator's processes under simulation: two replicas with leader election hand the
 * leadership over when the leader is stopped or crashes, and every object is still handled
 * once; a crash loses the process's memory (a new one starts); a token that expires is
 * replaced by logging in again.
 */
import { assert, assertEquals } from "../../assert.ts";
import { kopf } from "../../../mod.ts";
import { simulate } from "../../../src/testing/mod.ts";
import { allMarked, createSome, labeller } from "./labelling.ts";

const createTen = createSome(10, 30, 0);

Deno.test("two replicas with leader election: takeovers, crashes, token expiries; all handled", async () => {
  const registry = labeller();
  const settings = new kopf.OperatorSettings();
  settings.leadership.leaderElection = true;
  let traces = "";
  const report = await simulate({
    operator: registry,
    settings,
    replicas: 2,
    seeds: 8,
    settle: 300,
    faults: { takeovers: 10, tokenExpiry: 10 },
    scenario: createTen,
    invariants: [allMarked, function showTrace(sim) {
      // Keep one trace to look into: broken on purpose for the first seed only.
      return sim.seed === 1 ? "kept" : undefined;
    }],
  });
  const real = report.failures.filter((f) => f.invariant !== "showTrace");
  assertEquals(real.map((f) => `${f.seed}: ${f.invariant}: ${f.message}`), []);
  traces = report.failures.find((f) => f.invariant === "showTrace")?.trace ?? "";
  assert(/starts \(operator-1\)/.test(traces) && /starts \(operator-2\)/.test(traces));
  assert(traces.includes("the leader (process"), "a takeover happened");
  assert(/Leading: the Lease kopf-operator is acquired by operator-\d/.test(traces));
  assert(traces.includes("the token expires"));
  assert(traces.includes("HTTP 401"), "the old token was refused");
});

Deno.test("a crash loses the process's memory: its replacement starts afresh", async () => {
  const registry = labeller();
  let startups = 0;
  kopf.on.startup({ registry, id: "count" }, () => {
    startups++;
  });
  const report = await simulate({
    operator: registry,
    seed: 3,
    settle: 120,
    faults: { crashes: 30, restarts: false },
    scenario: createTen,
    invariants: [allMarked],
  });
  assertEquals(report.failures.map((f) => f.message), []);
  assert(startups > 1, `a new process started after a crash (${startups} startups)`);
});
