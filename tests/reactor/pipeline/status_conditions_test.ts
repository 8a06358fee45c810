import { assert, assertEquals } from "../../assert.ts";
import { StatusConditions } from "../../../src/reactor/pipeline/status_conditions.ts";
import { ObjectProcessing, waitInPlace } from "../../../src/reactor/pipeline/object_processing.ts";
import { ConditionsSettings } from "../../../src/settings/output_settings.ts";
import { Resource } from "../../../src/structs/resources.ts";
import type { RawBody } from "../../../src/structs/bodies.ts";
import type { HandlerFate } from "../../../src/handling/handler_states.ts";
import { wallClockAt } from "../../clocks.ts";

const NOW = Date.UTC(2024, 0, 1, 12, 0, 0);
const clock = wallClockAt(NOW);

function resource(subresource: boolean, group = "kopf.dev", plural = "kopfexamples"): Resource {
  return new Resource({
    group,
    version: "v1",
    plural,
    namespaced: true,
    subresources: subresource ? ["status"] : [],
  });
}

function processing(body: RawBody, res: Resource = resource(true)): ObjectProcessing {
  return new ObjectProcessing(res, { type: "MODIFIED", object: body }, undefined, waitInPlace, {});
}

function kex(generation: number, status?: Record<string, unknown>): RawBody {
  return {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name: "x", namespace: "default", generation },
    spec: { field: "value" },
    ...(status === undefined ? {} : { status }),
  } as RawBody;
}

const SUCCEEDED: HandlerFate[] = [{ id: "create_fn", fate: "succeeded", message: null }];

/**
 * The conditions as a handling cycle of `create_fn` that succeeded leaves them, at
 * `generation`: `Ready` alone; with `before`, as versions before wrote them (all three).
 */
function readyAt(generation: number, before = false) {
  const message = "Handler 'create_fn' succeeded.";
  const three = [["Ready", "True"], ["Reconciling", "False"], ["Stalled", "False"]];
  return (before ? three : three.slice(0, 1)).map((
    [type, status],
  ) => ({
    type,
    status,
    observedGeneration: generation,
    lastTransitionTime: "2024-01-01T12:00:00Z",
    reason: "Succeeded",
    message,
  }));
}

function written(p: ObjectProcessing) {
  return p.patch.toMergePatch().status as Record<string, unknown>;
}

Deno.test("with a status subresource: the conditions and the generation, once", () => {
  const conditions = new StatusConditions(new ConditionsSettings(), clock);
  const first = processing(kex(4));
  conditions.afterCycle(first, SUCCEEDED);
  assertEquals(written(first), { conditions: readyAt(4), observedGeneration: 4 });
  // The object as our write left it: the same cycle again writes nothing.
  const again = processing(kex(4, { conditions: readyAt(4), observedGeneration: 4 }));
  conditions.afterCycle(again, SUCCEEDED);
  assert(again.patch.isEmpty);
});

Deno.test("without a status subresource: the generation that the write makes", () => {
  const conditions = new StatusConditions(new ConditionsSettings(), clock);
  const bare = resource(false);
  // Nothing else changes the object: the conditions themselves make generation 5.
  const first = processing(kex(4), bare);
  conditions.afterCycle(first, SUCCEEDED);
  assertEquals(written(first), { conditions: readyAt(5), observedGeneration: 5 });
  // A result that changes the status makes it too: no second one for the conditions.
  const result = processing(kex(4), bare);
  result.patch.status.create_fn = { done: true };
  conditions.afterCycle(result, SUCCEEDED);
  assertEquals(written(result).observedGeneration, 5);
  // Right as they are, and a result the status already holds: no write, no generation.
  const same = processing(
    kex(5, { conditions: readyAt(5), observedGeneration: 5, create_fn: { done: true } }),
    bare,
  );
  same.patch.status.create_fn = { done: true };
  same.patch.metadata.annotations.note = "metadata only";
  conditions.afterCycle(same, SUCCEEDED);
  assertEquals(written(same), { create_fn: { done: true } });
});

Deno.test("built-in resources, deleted objects, and the setting off: nothing", () => {
  const settings = new ConditionsSettings();
  const conditions = new StatusConditions(settings, clock);
  const pod = processing(kex(1), resource(true, "", "pods"));
  conditions.afterCycle(pod, SUCCEEDED);
  conditions.afterNothing(pod);
  assert(pod.patch.isEmpty);
  const ingress = processing(kex(1), resource(true, "networking.k8s.io", "ingresses"));
  conditions.afterCycle(ingress, SUCCEEDED);
  assert(ingress.patch.isEmpty);
  const deleted = kex(1);
  deleted.metadata!.deletionTimestamp = "2024-01-01T00:00:00Z";
  const deleting = processing(deleted);
  conditions.afterCycle(deleting, SUCCEEDED);
  assert(deleting.patch.isEmpty);
  settings.enabled = false; // read at each use: a startup handler may turn them off
  const off = processing(kex(1));
  conditions.afterCycle(off, SUCCEEDED);
  conditions.afterNothing(off);
  assert(off.patch.isEmpty);
});

Deno.test("the handlers' conditions in the patch are the base, and always written", () => {
  const conditions = new StatusConditions(new ConditionsSettings(), clock);
  const body = kex(2, { conditions: readyAt(2), observedGeneration: 2 });
  const p = processing(body);
  const mine = { type: "Mine", status: "True", reason: "Set", message: "" };
  p.patch.status.conditions = [...readyAt(2), mine];
  conditions.afterCycle(p, SUCCEEDED);
  assertEquals(written(p).conditions, [...readyAt(2), mine]);
});

Deno.test("nothing to do: conditions right stay unwritten; missing or left reconciling are set", () => {
  const conditions = new StatusConditions(new ConditionsSettings(), clock);
  const right = processing(kex(3, { conditions: readyAt(3), observedGeneration: 3 }));
  conditions.afterNothing(right);
  assert(right.patch.isEmpty);
  const fresh = processing(kex(3));
  conditions.afterNothing(fresh);
  const idle = written(fresh).conditions as { type: string; reason: string }[];
  assertEquals(idle.map((c) => [c.type, c.reason]), [["Ready", "NothingToDo"]]);
  // A change undone before its handlers finished: they will not run; nothing left to do.
  const reconciling = readyAt(3, true).map((c) =>
    c.type === "Reconciling" ? { ...c, status: "True", reason: "Retrying" } : c
  );
  const left = processing(kex(3, { conditions: reconciling, observedGeneration: 3 }));
  conditions.afterNothing(left);
  assertEquals(
    (written(left).conditions as { reason: string }[]).map((c) => c.reason),
    ["NothingToDo"],
  );
  // A newer generation with nothing to do (a change undone): the same conditions, observed.
  const newer = processing(kex(4, { conditions: readyAt(3), observedGeneration: 3 }));
  conditions.afterNothing(newer);
  assertEquals(written(newer), { conditions: readyAt(4), observedGeneration: 4 });
});

Deno.test("conditions as versions before wrote them (Reconciling and Stalled False): no write for them alone; the next write leaves the False ones out, the other types in place", () => {
  const conditions = new StatusConditions(new ConditionsSettings(), clock);
  const before = readyAt(3, true);
  const echo = processing(kex(3, { conditions: before, observedGeneration: 3 }));
  conditions.afterNothing(echo);
  assert(echo.patch.isEmpty);
  const other = { type: "Other", status: "False", reason: "Theirs", message: "" };
  const cycle = processing(kex(4, { conditions: [before[0], other, ...before.slice(1)] }));
  conditions.afterCycle(cycle, SUCCEEDED);
  assertEquals(written(cycle), { conditions: [readyAt(4)[0], other], observedGeneration: 4 });
  // Reconciling comes back while handlers are at work, and goes when they are done.
  const retrying: HandlerFate[] = [{ id: "create_fn", fate: "retrying", message: "not yet" }];
  const busy = processing(kex(5, { conditions: readyAt(4), observedGeneration: 4 }));
  conditions.afterCycle(busy, retrying);
  const busyConditions = written(busy).conditions as { type: string; status: string }[];
  assertEquals(busyConditions.map((c) => [c.type, c.status]), [
    ["Ready", "False"],
    ["Reconciling", "True"],
  ]);
  const done = processing(kex(5, { conditions: busyConditions, observedGeneration: 5 }));
  conditions.afterCycle(done, SUCCEEDED);
  assertEquals(
    (written(done).conditions as { type: string; status: string }[]).map((c) => [c.type, c.status]),
    [["Ready", "True"]],
  );
});
