/**
 * Defects found by the simulation, each pinned by its seed: a discovery whose
 * group-version document met 429s beyond its retry skipped that group for good — the
 * operator served no ConfigMaps ever after. It discovers again until it has them all.
 */
import { assertEquals } from "../../assert.ts";
import { simulate } from "../../../src/testing/mod.ts";
import { allMarked, createSome, labeller } from "./labelling.ts";

const SEEDS = 20;

const THROTTLED = {
  crashes: false,
  restarts: false,
  takeovers: false,
  tokenExpiry: false,
  watchTimeouts: false,
  watchDrops: false,
  bookmarks: false,
  expiredResumes: false,
  pagedLists: false,
  watchLag: false,
  conflicts: false,
  lostReplies: false,
  errors: 15, // a 429 or 5xx for a third of the requests
} as const;

Deno.test("a group-version skipped by a throttled discovery is discovered again (seeds 8 and 19 fail without the fix)", async () => {
  const report = await simulate({
    operator: labeller,
    seeds: SEEDS,
    settle: 120,
    faults: THROTTLED,
    scenario: createSome(5, 5, 60),
    invariants: [allMarked],
  });
  assertEquals(report.failures.map((f) => `${f.seed}: ${f.invariant}: ${f.message}`), []);
});
