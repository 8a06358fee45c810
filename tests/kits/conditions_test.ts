import { assert, assertEquals, assertThrows } from "../assert.ts";
import { setCondition } from "../../src/kits/conditions.ts";
import { UsageError } from "../../src/structs/errors.ts";
import { Patch } from "../../src/structs/patches.ts";
import { readOnlyView } from "../../src/structs/views.ts";

const SINCE = "2020-01-01T00:00:00Z";

/** A handler's `body`: a read-only view, with conditions of another controller and ours. */
function body() {
  return readOnlyView({
    metadata: { name: "db", generation: 7 },
    status: {
      conditions: [
        { type: "Theirs", status: "True", reason: "X", message: "", lastTransitionTime: SINCE },
        {
          type: "DatabaseReady",
          status: "False",
          reason: "Waiting",
          message: "",
          observedGeneration: 6,
          lastTransitionTime: SINCE,
        },
      ],
    },
  });
}

type Written = { conditions: Record<string, unknown>[] };

Deno.test("setCondition writes the whole list into the patch, the others in place", () => {
  const patch = new Patch();
  setCondition({ patch, body: body() }, {
    type: "DatabaseReady",
    status: "True",
    reason: "Provisioned",
    message: "accepting connections",
  });
  const { conditions } = patch.toMergePatch().status as unknown as Written;
  assertEquals(conditions.map((c) => c.type), ["Theirs", "DatabaseReady"]);
  assertEquals(conditions[0], {
    type: "Theirs",
    status: "True",
    reason: "X",
    message: "",
    lastTransitionTime: SINCE,
  });
  const mine = conditions[1];
  assertEquals([mine.status, mine.reason, mine.message, mine.observedGeneration], [
    "True",
    "Provisioned",
    "accepting connections",
    7,
  ]);
  assert(mine.lastTransitionTime !== SINCE, "the status changed: a new transition time");
  assert(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(String(mine.lastTransitionTime)));
});

Deno.test("setCondition keeps the transition time while the status stays", () => {
  const patch = new Patch();
  setCondition({ patch, body: body() }, {
    type: "DatabaseReady",
    status: "False",
    reason: "StillWaiting",
    message: "the backend is slow",
  });
  const { conditions } = patch.toMergePatch().status as unknown as Written;
  assertEquals(conditions[1].lastTransitionTime, SINCE);
  assertEquals(conditions[1].reason, "StillWaiting");
});

Deno.test("setCondition twice in a cycle: the second builds on the first, in the patch", () => {
  const patch = new Patch();
  setCondition({ patch, body: body() }, { type: "A", status: "True", reason: "R", message: "" });
  setCondition({ patch, body: body() }, { type: "B", status: "True", reason: "R", message: "" });
  patch.status.other = 1; // the handler's other changes stay beside them
  const status = patch.toMergePatch().status as unknown as Written & { other: number };
  assertEquals(status.conditions.map((c) => c.type), ["Theirs", "DatabaseReady", "A", "B"]);
  assertEquals(status.other, 1);
});

Deno.test("setCondition refuses a reason the API would refuse, in one line naming it", () => {
  const patch = new Patch();
  const error = assertThrows(
    () =>
      setCondition({ patch, body: body() }, {
        type: "DatabaseReady",
        status: "True",
        reason: "all good",
        message: "",
      }),
    UsageError,
    'kopf.setCondition() cannot set the condition "DatabaseReady": the reason "all good" is ' +
      "not one CamelCase word",
  );
  assert(!error.message.includes("\n"));
  assert(patch.isEmpty, "nothing is written");
  assertThrows(
    () =>
      setCondition({ patch, body: body() }, {
        type: "Database Ready",
        status: "True",
        reason: "Ok",
        message: "",
      }),
    UsageError,
    'the type "Database Ready" is not a condition type',
  );
});

Deno.test("setCondition on an object without a generation or conditions", () => {
  const patch = new Patch();
  setCondition({ patch, body: { metadata: {} } }, {
    type: "A",
    status: "Unknown",
    reason: "NotChecked",
    message: "",
  });
  const { conditions } = patch.toMergePatch().status as unknown as Written;
  assertEquals(conditions.length, 1);
  assertEquals("observedGeneration" in conditions[0], false);
});
