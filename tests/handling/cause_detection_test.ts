/**
 * Cause detection by Kopf's rules.
 */
import { assertEquals } from "../assert.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { diff } from "../../src/structs/diffs.ts";
import { detectCause, type DetectionInputs } from "../../src/handling/cause_detection.ts";

const F = "kopf.zalando.org/KopfFinalizerMarker";

function inputs(
  overrides: Partial<DetectionInputs> & { meta?: RawBody["metadata"] },
): DetectionInputs {
  const body: RawBody = { metadata: { name: "x", ...overrides.meta }, spec: { a: 1 } };
  return {
    eventType: "MODIFIED",
    body,
    finalizer: F,
    old: { spec: { a: 1 } },
    diff: [],
    initial: false,
    ...overrides,
  };
}

Deno.test("detectCause: Kopf's rules in their order", () => {
  const deleting = { deletionTimestamp: "2020-01-01T00:00:00Z" };
  const cases: [string, Partial<DetectionInputs> & { meta?: RawBody["metadata"] }, string][] = [
    ["a DELETED event", { eventType: "DELETED", meta: { ...deleting, finalizers: [F] } }, "gone"],
    ["deletion with our finalizer", { meta: { ...deleting, finalizers: ["a/b", F] } }, "delete"],
    ["deletion without it", { meta: { ...deleting, finalizers: ["a/b"] } }, "free"],
    ["deletion, optional handlers", { meta: deleting, optionalDeletion: true }, "delete"],
    ["no diff-base", { old: null, initial: true }, "create"],
    ["no diff, first listing", { initial: true }, "resume"],
    ["no diff", {}, "noop"],
    ["a diff", { diff: diff({ a: 1 }, { a: 2 }) }, "update"],
    ["a diff, first listing", { diff: diff({ a: 1 }, { a: 2 }), initial: true }, "update"],
  ];
  for (const [what, overrides, reason] of cases) {
    assertEquals(detectCause(inputs(overrides)).reason, reason, what);
  }
});

Deno.test("detectCause: creations never mix with resuming; deletions are flagged", () => {
  assertEquals(detectCause(inputs({ old: null, initial: true })).initial, false);
  assertEquals(detectCause(inputs({ diff: diff(1, 2), initial: true })).initial, true);
  const deleting = detectCause(inputs({ meta: { deletionTimestamp: "t", finalizers: [F] } }));
  assertEquals([deleting.reason, deleting.deleted], ["delete", true]);
});
