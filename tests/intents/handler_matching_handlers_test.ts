/**
 * The documented handler examples: registering, and which handlers the registry selects
 * for event-watching, state-changing, resuming and field handlers.
 */
import { causeOf } from "./causes.ts";
import { kopf } from "../../mod.ts";
import type { ChangingKwargs, EventKwargs } from "../../mod.ts";
import { buildChangingKwargs } from "../../src/intents/kwargs_builders.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { assert, assertEquals } from "../assert.ts";
import { DISCOVERED, jobs, kexV1 } from "../fixtures/discovered.ts";
import { matcherOf } from "../../src/intents/registry.ts";

function fresh(): kopf.OperatorRegistry {
  return new kopf.OperatorRegistry({ onWarning: () => {} });
}

const BODY: RawBody = {
  metadata: { name: "kex-1", namespace: "ns" },
  spec: { items: ["item1", "item2"], somefield: 1 },
};

Deno.test("a handler registers with a decorator-free call and serves its resource", () => {
  const registry = fresh();
  kopf.on.create("kopfexamples", { registry }, function myHandler({ spec }: ChangingKwargs) {
    return spec;
  });
  assertEquals(matcherOf(registry).resolve(DISCOVERED).resources.map(String), [
    "kopfexamples.v1.kopf.dev",
  ]);
  assertEquals(matcherOf(registry).handlersFor(kexV1).changing.map((h) => h.id), ["myHandler"]);
});

Deno.test("an instance's method registers explicitly, bound to that instance", () => {
  const registry = fresh();
  class MyCls {
    seen: string[] = [];
    myHandler({ name }: ChangingKwargs): void {
      this.seen.push(String(name));
    }
  }
  const instance = new MyCls();
  kopf.on.create("kopfexamples", { registry }, instance.myHandler.bind(instance));
  const [h] = matcherOf(registry).handlersFor(kexV1).changing;
  assertEquals(h.id, "myHandler");
  h.fn(buildChangingKwargs({ resource: kexV1, body: BODY }, {
    reason: "create",
    old: null,
    new: BODY,
    diff: [],
    retry: 0,
    started: new Date(),
    runtime: 0,
  }) as never);
  assertEquals(instance.seen, ["kex-1"]);
});

Deno.test("event-watching handlers are selected for every event of their resource", () => {
  const registry = fresh();
  kopf.on.event("kopfexamples", { registry }, function myHandler({ event }: EventKwargs) {
    return event.type;
  });
  assertEquals(matcherOf(registry).selectEventHandlers(kexV1, { body: BODY }).map((h) => h.kind), [
    "event",
  ]);
});

Deno.test("create, update and delete handlers run for their own reason only", () => {
  const registry = fresh();
  kopf.on.create("kopfexamples", { registry }, function onCreate() {});
  kopf.on.update("kopfexamples", { registry }, function onUpdate() {});
  kopf.on.delete("kopfexamples", { registry }, function onDelete() {});
  const pick = (reason: kopf.Reason) =>
    matcherOf(registry).selectChangingHandlers(
      kexV1,
      causeOf({ reason, body: BODY, old: null, new: BODY }),
    )
      .map((h) => h.id);
  assertEquals(
    [pick("create"), pick("update"), pick("delete"), pick("resume")],
    [["onCreate"], ["onUpdate"], ["onDelete"], []],
  );
  assert(matcherOf(registry).requiresFinalizer(kexV1, { body: BODY }));
});

Deno.test("an update handler on status makes status part of what is compared", () => {
  const registry = fresh();
  kopf.on.update("batch/v1", "jobs", { registry, field: "status" }, function jobStatusChanges() {});
  assertEquals(matcherOf(registry).extraFields(jobs), [["status"]]);
  const job = { metadata: { name: "j" }, status: { active: 0 } };
  const ids = matcherOf(registry).selectChangingHandlers(
    jobs,
    causeOf({
      reason: "update",
      body: job,
      old: { status: { active: 1 } },
      new: { status: { active: 0 } },
    }),
  ).map((h) => h.id);
  assertEquals(ids, ["jobStatusChanges/status"]);
});

Deno.test("resume handlers run only in the first round, and not for deleted objects unless asked", () => {
  const registry = fresh();
  function myHandler() {}
  kopf.on.resume("kopfexamples", { registry }, myHandler);
  kopf.on.create("kopfexamples", { registry }, myHandler);
  kopf.on.resume("kopfexamples", { registry, deleted: true }, function evenDeleted() {});
  kopf.on.delete("kopfexamples", { registry }, function onDelete() {});
  const pick = (reason: kopf.Reason, initial: boolean, deleted = false) =>
    matcherOf(registry).selectChangingHandlers(
      kexV1,
      causeOf({
        reason,
        initial,
        deleted,
        body: BODY,
        old: BODY,
        new: BODY,
      }),
    )
      .map((h) => h.id);
  assertEquals(pick("resume", true), ["myHandler", "evenDeleted"]);
  assertEquals(pick("create", true), ["myHandler", "evenDeleted"], "the pair runs once");
  assertEquals(pick("create", false), ["myHandler"]);
  assertEquals(pick("update", false), []);
  assertEquals(pick("delete", true, true), ["evenDeleted", "onDelete"]);
});

Deno.test("a field handler runs when its field is affected", () => {
  const registry = fresh();
  kopf.on.field(
    "kopfexamples",
    { registry, field: "spec.somefield" },
    function somefieldChanged() {},
  );
  const pick = (oldSpec: object, newSpec: object) =>
    matcherOf(registry).selectChangingHandlers(
      kexV1,
      causeOf({
        reason: "update",
        body: BODY,
        old: { spec: oldSpec },
        new: { spec: newSpec },
      }),
    ).map((h) => h.id);
  assertEquals(pick({ somefield: 1 }, { somefield: 2 }), ["somefieldChanged/spec.somefield"]);
  assertEquals(pick({ somefield: 1, x: 1 }, { somefield: 1, x: 2 }), []);
});
