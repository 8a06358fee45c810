import { assert, assertEquals } from "../assert.ts";
import {
  CONDITION_REASON_PATTERN,
  conditionMessage,
  conditionProblem,
  conditionsInPatch,
  conditionsOf,
  conditionTypeProblem,
  mergeConditions,
  putConditions,
  sameConditions,
  transitionTime,
} from "../../src/structs/condition_lists.ts";
import { Patch } from "../../src/structs/patches.ts";
import { readOnlyView } from "../../src/structs/views.ts";

const T0 = "2024-01-01T00:00:00Z";
const T1 = "2024-01-01T00:05:00Z";

const ready = (status: "True" | "False", reason = "Succeeded", message = "") => ({
  type: "Ready",
  status,
  reason,
  message,
});

Deno.test("the API's reason pattern: one CamelCase word, with _ , : inside", () => {
  for (const good of ["Provisioned", "A", "Not_Ready", "Failed:Quota,Memory", "X1"]) {
    assert(CONDITION_REASON_PATTERN.test(good), good);
  }
  for (const bad of ["", "1Failed", "Not ready", "Failed:", "Failed,", "Failed-Quota", "Über"]) {
    assert(!CONDITION_REASON_PATTERN.test(bad), bad);
  }
});

Deno.test("a condition's problems are named in one line each; good ones have none", () => {
  assertEquals(conditionProblem(ready("True")), undefined);
  assertEquals(
    conditionProblem({
      type: "example.com/DatabaseReady",
      status: "Unknown",
      reason: "A",
      message: "",
    }),
    undefined,
  );
  const reason = conditionProblem(ready("True", "not ready"));
  assert(reason?.startsWith('the reason "not ready" is not one CamelCase word'), reason);
  assert(!reason!.includes("\n"));
  const status = conditionProblem({ ...ready("True"), status: "Yes" as "True" });
  assertEquals(status, 'the status "Yes" is not "True", "False" or "Unknown"');
  assert(conditionTypeProblem("Data base")?.startsWith('the type "Data base"'));
  assert(conditionTypeProblem(42)?.startsWith("the type 42"));
  assertEquals(conditionTypeProblem("x".repeat(317)), "the type is longer than 316 characters");
  assertEquals(
    conditionProblem({ ...ready("True"), message: 1 as unknown as string }),
    "the message must be a string, not number",
  );
});

Deno.test("transition times are RFC 3339 in whole seconds, UTC", () => {
  assertEquals(transitionTime(Date.UTC(2024, 0, 2, 3, 4, 5, 999)), "2024-01-02T03:04:05Z");
});

Deno.test("messages are cut to the API's limit", () => {
  assertEquals(conditionMessage("short"), "short");
  const long = conditionMessage("x".repeat(40_000));
  assertEquals(long.length, 32768);
  assert(long.endsWith("…"));
});

Deno.test("a new condition is appended; others stay in place and order, untouched", () => {
  const others: Record<string, unknown>[] = [
    { type: "Kubelet", status: "True", reason: "Theirs", message: "m", extra: { x: 1 } },
    { type: "Other", status: "False", reason: "Also", message: "" },
  ];
  const merged = mergeConditions([ready("True")], {
    current: others,
    base: others,
    generation: 3,
    now: T1,
  });
  assertEquals(merged as unknown[], [
    ...others,
    {
      type: "Ready",
      status: "True",
      observedGeneration: 3,
      lastTransitionTime: T1,
      reason: "Succeeded",
      message: "",
    },
  ]);
  assert(merged[0] !== others[0], "copies, not the object's own entries");
});

Deno.test("a condition replaces its type where it is; duplicates of the type go", () => {
  const current = [
    { type: "A", status: "True", reason: "X", message: "" },
    { ...ready("False", "Retrying"), lastTransitionTime: T0 },
    { type: "B", status: "True", reason: "X", message: "" },
    { ...ready("False", "Stray"), lastTransitionTime: T0 },
  ];
  const merged = mergeConditions([ready("True")], {
    current,
    base: current,
    generation: 1,
    now: T1,
  });
  assertEquals(merged.map((c) => [c.type, c.status]), [["A", "True"], ["Ready", "True"], [
    "B",
    "True",
  ]]);
});

Deno.test("lastTransitionTime changes only when the status does", () => {
  const current = [{ ...ready("False", "Retrying", "a"), lastTransitionTime: T0 }];
  const sameStatus = mergeConditions([ready("False", "Progressing", "b")], {
    current,
    base: current,
    generation: 2,
    now: T1,
  });
  assertEquals(sameStatus[0].lastTransitionTime, T0);
  assertEquals([sameStatus[0].reason, sameStatus[0].message], ["Progressing", "b"]);
  const flipped = mergeConditions([ready("True")], {
    current,
    base: current,
    generation: 2,
    now: T1,
  });
  assertEquals(flipped[0].lastTransitionTime, T1);
});

Deno.test("the time is kept from the object's condition, else from the base's of the same status", () => {
  const current = [{ ...ready("True"), lastTransitionTime: T0 }];
  // A handler flipped it this cycle (base), then the final one says True again.
  const base = [{ ...ready("False", "Busy"), lastTransitionTime: T1 }];
  const merged = mergeConditions([ready("True")], { current, base, generation: 1, now: T1 });
  assertEquals(merged[0].lastTransitionTime, T0);
  // New to the object, set by a handler already: its time stays.
  const fresh = mergeConditions([ready("False", "Other")], {
    current: [],
    base,
    generation: 1,
    now: "2030-01-01T00:00:00Z",
  });
  assertEquals(fresh[0].lastTransitionTime, T1);
});

Deno.test("without a generation, no observedGeneration", () => {
  const merged = mergeConditions([ready("True")], {
    current: [],
    base: [],
    generation: undefined,
    now: T0,
  });
  assertEquals("observedGeneration" in merged[0], false);
});

Deno.test("lists are the same by type, status, reason, message and generation, not times", () => {
  const a = [{ ...ready("True"), observedGeneration: 1, lastTransitionTime: T0 }];
  assert(sameConditions(a, [{ ...a[0], lastTransitionTime: T1 }]));
  assert(!sameConditions(a, [{ ...a[0], observedGeneration: 2 }]));
  assert(!sameConditions(a, [{ ...a[0], message: "other" }]));
  assert(!sameConditions(a, [{ ...a[0], reason: "Other" }]));
  assert(!sameConditions(a, [{ ...a[0], status: "False" }]));
  assert(!sameConditions(a, []));
  assert(!sameConditions(a, ["junk"]));
});

Deno.test("conditions are read from a status, a view of one, or a patch", () => {
  assertEquals(conditionsOf(undefined), []);
  assertEquals(conditionsOf({ conditions: "junk" }), []);
  const view = readOnlyView({ conditions: [ready("True")] });
  assertEquals(conditionsOf(view).length, 1);
  const patch = new Patch();
  assertEquals(conditionsInPatch(patch), undefined);
  patch.status.other = 1;
  assertEquals(conditionsInPatch(patch), undefined);
  patch.status.conditions = null;
  assertEquals(conditionsInPatch(patch), []);
  patch.status.conditions = [ready("True")];
  assertEquals(conditionsInPatch(patch), [ready("True")]);
});

Deno.test("putConditions merges into what the patch holds, else the object's, and sets the whole list", () => {
  const status = readOnlyView({
    conditions: [{ type: "Theirs", status: "True", reason: "X", message: "" }],
  });
  const patch = new Patch();
  putConditions(patch, status, [{ type: "Mine", status: "True", reason: "A", message: "" }], {
    generation: 1,
    now: T0,
  });
  putConditions(patch, status, [{ type: "Also", status: "False", reason: "B", message: "" }], {
    generation: 1,
    now: T0,
  });
  const written = patch.toMergePatch().status as { conditions: { type: string }[] };
  assertEquals(written.conditions.map((c) => c.type), ["Theirs", "Mine", "Also"]);
});
