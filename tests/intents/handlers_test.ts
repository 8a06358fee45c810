/**
 * The documented handler examples: registering, event-watching, state-changing, resuming,
 * field handlers and sub-handlers (registration side).
 */
import { kopf } from "../../mod.ts";
import type { ChangingKwargs, EventKwargs } from "../../mod.ts";
import type { ChangingHandler } from "../../src/intents/handlers.ts";
import { buildChangingKwargs } from "../../src/intents/kwargs.ts";
import { RegistrationError } from "../../src/intents/handler_options.ts";
import { type SubhandlerScope, subhandlerScope } from "../../src/intents/subhandlers.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { assert, assertEquals, assertRejects, assertThrows } from "../assert.ts";
import { DISCOVERED, jobs, kexV1 } from "../fixtures/discovered.ts";

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
  assertEquals(registry.resolve(DISCOVERED).resources.map(String), ["kopfexamples.v1.kopf.dev"]);
  assertEquals(registry.handlersFor(kexV1).changing.map((h) => h.id), ["myHandler"]);
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
  const [h] = registry.handlersFor(kexV1).changing;
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
  assertEquals(registry.selectEventHandlers(kexV1, { body: BODY }).map((h) => h.kind), ["event"]);
});

Deno.test("create, update and delete handlers run for their own reason only", () => {
  const registry = fresh();
  kopf.on.create("kopfexamples", { registry }, function onCreate() {});
  kopf.on.update("kopfexamples", { registry }, function onUpdate() {});
  kopf.on.delete("kopfexamples", { registry }, function onDelete() {});
  const pick = (reason: kopf.Reason) =>
    registry.selectChangingHandlers(kexV1, { reason, body: BODY, old: null, new: BODY })
      .map((h) => h.id);
  assertEquals(
    [pick("create"), pick("update"), pick("delete"), pick("resume")],
    [["onCreate"], ["onUpdate"], ["onDelete"], []],
  );
  assert(registry.requiresFinalizer(kexV1, { body: BODY }));
});

Deno.test("an update handler on status makes status part of what is compared", () => {
  const registry = fresh();
  kopf.on.update("batch/v1", "jobs", { registry, field: "status" }, function jobStatusChanges() {});
  assertEquals(registry.extraFields(jobs), [["status"]]);
  const job = { metadata: { name: "j" }, status: { active: 0 } };
  const ids = registry.selectChangingHandlers(jobs, {
    reason: "update",
    body: job,
    old: { status: { active: 1 } },
    new: { status: { active: 0 } },
  }).map((h) => h.id);
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
    registry.selectChangingHandlers(kexV1, {
      reason,
      initial,
      deleted,
      body: BODY,
      old: BODY,
      new: BODY,
    })
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
    registry.selectChangingHandlers(kexV1, {
      reason: "update",
      body: BODY,
      old: { spec: oldSpec },
      new: { spec: newSpec },
    }).map((h) => h.id);
  assertEquals(pick({ somefield: 1 }, { somefield: 2 }), ["somefieldChanged/spec.somefield"]);
  assertEquals(pick({ somefield: 1, x: 1 }, { somefield: 1, x: 2 }), []);
});

/** A scope like the handling layer's: collects sub-handlers and what execute() runs. */
function scope(parentId: string): SubhandlerScope & { executed: ChangingHandler[][] } {
  const executed: ChangingHandler[][] = [];
  return {
    parentId,
    registry: fresh(),
    executed,
    execute(handlers) {
      executed.push([...handlers]);
      return Promise.resolve();
    },
  };
}

Deno.test("declarative sub-handlers get ids under their parent's", () => {
  const s = scope("create_fn");
  subhandlerScope.run(s, () => {
    for (const item of (BODY.spec as { items: string[] }).items) {
      kopf.subhandler({ id: item }, () => item);
    }
    kopf.register(function fromRegister() {}, { field: "spec.somefield" });
  });
  assertEquals(s.registry.handlers.map((h) => h.id), [
    "create_fn/item1",
    "create_fn/item2",
    "create_fn/fromRegister/spec.somefield",
  ]);
  const selected = s.registry.selectChangingHandlers(kexV1, {
    reason: "create",
    body: BODY,
    old: null,
    new: BODY,
  });
  assertEquals(selected.length, 3, "sub-handlers serve their parent's object, any reason");
});

Deno.test("imperative sub-handlers are passed to the handling layer to run", async () => {
  const s = scope("create_fn");
  const handleItem = function handleItem() {};
  await subhandlerScope.run(s, () => kopf.execute({ fns: { item1: handleItem, item2: () => {} } }));
  await subhandlerScope.run(s, () => kopf.execute({ fns: [handleItem] }));
  assertEquals(s.executed.map((list) => list.map((h) => h.id)), [
    ["create_fn/item1", "create_fn/item2"],
    ["create_fn/handleItem"],
  ]);
  const sub = fresh();
  kopf.on.create("kex", { registry: sub }, function fromRegistry() {});
  await subhandlerScope.run(s, () => kopf.execute({ registry: sub }));
  assertEquals(s.executed[2].map((h) => h.id), ["create_fn/fromRegistry"]);
});

Deno.test("sub-handlers outside a running handler fail with a clear message", async () => {
  assertThrows(
    () => kopf.subhandler({ id: "x" }, () => {}),
    RegistrationError,
    "kopf.subhandler() works only inside a resource-changing handler of a running operator",
  );
  await assertRejects(
    () => kopf.execute({ fns: { x: () => {} } }),
    RegistrationError,
    "kopf.execute() works only inside a resource-changing handler",
  );
  await assertRejects(() => kopf.execute({}), RegistrationError, "give fns, handlers or registry");
  const s = scope("p");
  await assertRejects(
    () => subhandlerScope.run(s, () => kopf.execute({ fns: [() => {}] })),
    RegistrationError,
    "has no name; pass fns as { id: fn }",
  );
  assertThrows(
    () => subhandlerScope.run(s, () => kopf.subhandler({ interval: 1 } as never, () => {})),
    RegistrationError,
    'option "interval" is not accepted here',
  );
});
