import { assert, assertEquals } from "../assert.ts";
import {
  cycleConditions,
  idleConditions,
  unchangedConditions,
} from "../../src/handling/cycle_conditions.ts";
import type { HandlerFate } from "../../src/handling/handler_states.ts";
import { conditionProblem } from "../../src/structs/condition_lists.ts";

const TYPES = { ready: "Ready", reconciling: "Reconciling", stalled: "Stalled" };

/** The three as `[status, reason, message]`, by type. */
function summary(conditions: ReturnType<typeof cycleConditions>) {
  for (const c of conditions) assertEquals(conditionProblem(c), undefined, JSON.stringify(c));
  return Object.fromEntries(conditions.map((c) => [c.type, [c.status, c.reason, c.message]]));
}

const fate = (id: string, kind: HandlerFate["fate"], message: string | null = null) => ({
  id,
  fate: kind,
  message,
});

Deno.test("all succeeded: Ready alone (Reconciling and Stalled only while True)", () => {
  assertEquals(summary(cycleConditions([fate("a", "succeeded"), fate("b", "succeeded")], TYPES)), {
    Ready: ["True", "Succeeded", "Handlers 'a', 'b' succeeded."],
  });
});

Deno.test("a handler retrying: reconciling with its error; not ready; no Stalled", () => {
  const conditions = cycleConditions([
    fate("a", "succeeded"),
    fate("b", "pending"),
    fate("c", "retrying", "not yet"),
  ], TYPES);
  const retrying = "Handler 'c' is retrying: not yet";
  assertEquals(summary(conditions), {
    Ready: ["False", "Retrying", retrying],
    Reconciling: ["True", "Retrying", retrying],
  });
});

Deno.test("handlers not run yet, or waiting for sub-handlers: progressing", () => {
  assertEquals(summary(cycleConditions([fate("a", "succeeded"), fate("b", "pending")], TYPES)), {
    Ready: ["False", "Progressing", "Handler 'b' is in progress."],
    Reconciling: ["True", "Progressing", "Handler 'b' is in progress."],
  });
});

Deno.test("a permanent failure with nothing left to run: stalled, with the handler and error; no Reconciling", () => {
  const conditions = cycleConditions(
    [fate("a", "succeeded"), fate("b", "failed", "no quota")],
    TYPES,
  );
  const failed = "Handler 'b' failed: no quota";
  assertEquals(summary(conditions), {
    Ready: ["False", "Failed", failed],
    Stalled: ["True", "Failed", failed],
  });
});

Deno.test("a failure while others still run: not ready for the failure, reconciling, no Stalled yet", () => {
  const conditions = cycleConditions([
    fate("a", "failed", "no quota"),
    fate("b", "retrying", "busy"),
  ], TYPES);
  assertEquals(summary(conditions), {
    Ready: ["False", "Failed", "Handler 'a' failed: no quota"],
    Reconciling: ["True", "Retrying", "Handler 'b' is retrying: busy"],
  });
});

Deno.test("many handlers are named up to five, the rest counted; the first's error told", () => {
  const fates = ["a", "b", "c", "d", "e", "f", "g"].map((id) => fate(id, "failed", `${id} broke`));
  const [ready] = cycleConditions(fates, TYPES);
  assertEquals(
    ready.message,
    "Handlers 'a', 'b', 'c', 'd', 'e' and 2 more failed; 'a': a broke",
  );
  const [pending] = cycleConditions([fate("a", "pending"), fate("b", "pending")], TYPES);
  assertEquals(pending.message, "Handlers 'a', 'b' are in progress.");
});

Deno.test("the framework's own words about a handler are told as they are", () => {
  const timedOut = fate("slow", "failed", "Handler 'slow' has timed out after 60s.");
  assertEquals(
    cycleConditions([timedOut], TYPES)[1].message,
    "Handler 'slow' has timed out after 60s.",
  );
  assertEquals(
    cycleConditions([timedOut, fate("other", "failed", "x")], TYPES)[1].message,
    "Handlers 'slow', 'other' failed; Handler 'slow' has timed out after 60s.",
  );
});

Deno.test("no handlers: nothing to do, ready", () => {
  assertEquals(cycleConditions([], TYPES), idleConditions(TYPES));
  assertEquals(summary(idleConditions(TYPES)), {
    Ready: ["True", "NothingToDo", "No handler had anything to do."],
  });
});

Deno.test("the types are the settings' names", () => {
  const types = { ready: "Available", reconciling: "Busy", stalled: "Stuck" };
  assertEquals(cycleConditions([fate("a", "succeeded")], types).map((c) => c.type), [
    "Available",
  ]);
  assertEquals(cycleConditions([fate("a", "pending")], types).map((c) => c.type), [
    "Available",
    "Busy",
  ]);
  assertEquals(cycleConditions([fate("a", "failed", "x")], types).map((c) => c.type), [
    "Available",
    "Stuck",
  ]);
});

Deno.test("nothing to do: the object's conditions stay as they are, but for a Reconciling or Stalled not True", () => {
  const current = [
    { type: "Other", status: "True", reason: "X", message: "" },
    { type: "Ready", status: "False", reason: "Failed", message: "Handler 'b' failed: x" },
    { type: "Reconciling", status: "False", reason: "Failed", message: "m" },
    { type: "Stalled", status: "True", reason: "Failed", message: "Handler 'b' failed: x" },
  ];
  assertEquals(unchangedConditions(current, TYPES), [
    { type: "Ready", status: "False", reason: "Failed", message: "Handler 'b' failed: x" },
    { type: "Stalled", status: "True", reason: "Failed", message: "Handler 'b' failed: x" },
  ]);
  // As versions before wrote them: all three, the abnormal ones False.
  const before = [
    { type: "Ready", status: "True", reason: "Succeeded", message: "m" },
    { type: "Reconciling", status: "False", reason: "Succeeded", message: "m" },
    { type: "Stalled", status: "False", reason: "Succeeded", message: "m" },
  ];
  assertEquals(unchangedConditions(before, TYPES), [before[0]]);
});

Deno.test("nothing to do, and no conditions yet (or a handling left unfinished): ready", () => {
  assertEquals(unchangedConditions([], TYPES), idleConditions(TYPES));
  const left = [
    { type: "Ready", status: "False", reason: "Retrying", message: "m" },
    { type: "Reconciling", status: "True", reason: "Retrying", message: "m" },
  ];
  assertEquals(unchangedConditions(left, TYPES), idleConditions(TYPES));
  // What the API would refuse is replaced rather than kept.
  const broken = [{ type: "Ready", status: "Yes", reason: "x y", message: "" }];
  assertEquals(unchangedConditions(broken, TYPES), idleConditions(TYPES));
  assert(
    unchangedConditions([{ type: "Ready", status: "True", reason: "Ok" }], TYPES).length === 1,
  );
});
