/**
 * Sub-handlers (registration side): ids under their parent's, the handlers passed to the
 * handling layer to run, and the errors outside a running handler.
 */
import { kopf } from "../../mod.ts";
import type { ChangingHandler } from "../../src/intents/handlers.ts";
import { RegistrationError } from "../../src/intents/handler_options.ts";
import { type SubhandlerScope, subhandlerScope } from "../../src/intents/subhandlers.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { assertEquals, assertRejects, assertStringIncludes, assertThrows } from "../assert.ts";
import { kexV1 } from "../fixtures/discovered.ts";

function fresh(): kopf.OperatorRegistry {
  return new kopf.OperatorRegistry({ onWarning: () => {} });
}

const BODY: RawBody = {
  metadata: { name: "kex-1", namespace: "ns" },
  spec: { items: ["item1", "item2"], somefield: 1 },
};

/** A scope like the handling layer's: collects sub-handlers and what execute() runs. */
function scope(parentId: string): SubhandlerScope & { executed: ChangingHandler[][] } {
  const executed: ChangingHandler[][] = [];
  return {
    parentId,
    registry: fresh(),
    subexecuted: false,
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

Deno.test("sub-handlers take no rbac option: their parent declares what they need", () => {
  const s = scope("create_fn");
  const error = assertThrows(() =>
    subhandlerScope.run(s, () => {
      kopf.subhandler({ id: "item", rbac: ["pods:get"] } as never, () => {});
    })
  );
  assertStringIncludes(
    (error as Error).message,
    'option "rbac" is not accepted for sub-handlers, which run inside their parent: declare ' +
      "the rules on the parent handler",
  );
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
  await assertRejects(
    () => kopf.execute(),
    RegistrationError,
    "kopf.execute() works only inside a resource-changing handler",
  );
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

Deno.test("kopf.execute() refuses a wrong lifecycle or cause with a clear message", async () => {
  const s = scope("p");
  await assertRejects(
    () => subhandlerScope.run(s, () => kopf.execute({ lifecycle: "asap" as never })),
    Error,
    "kopf.execute()'s lifecycle must be a lifecycle function such as kopf.lifecycles.asap",
  );
  await assertRejects(
    () => subhandlerScope.run(s, () => kopf.execute({ cause: { body: {} } as never })),
    RegistrationError,
    "cause.body is not accepted; give reason, old, new or diff",
  );
  await assertRejects(
    () => subhandlerScope.run(s, () => kopf.execute({ cause: { reason: "gone" as never } })),
    RegistrationError,
    'cause.reason must be "create", "update", "delete" or "resume", not "gone"',
  );
});

Deno.test("kopf.execute() without arguments: the registered sub-handlers, once", async () => {
  const s = scope("create_fn");
  await subhandlerScope.run(s, async () => {
    kopf.subhandler({ id: "one" }, () => {});
    await kopf.execute({ cause: { reason: "update", old: null, new: BODY } });
    await kopf.execute();
  });
  assertEquals(s.executed.map((list) => list.map((h) => h.id)), [["create_fn/one"]]);
  assertEquals(s.subexecuted, true);
});

Deno.test("kopf.on.subhandler and kopf.on.register: Kopf's aliases of the sub-handler registrars", () => {
  const s = scope("create_fn");
  subhandlerScope.run(s, () => {
    kopf.on.subhandler({ id: "viaOn" }, () => {});
    kopf.on.register(function registeredViaOn() {}, { retries: 3 });
  });
  assertEquals(s.registry.handlers.map((h) => h.id), [
    "create_fn/viaOn",
    "create_fn/registeredViaOn",
  ]);
  assertThrows(
    () => kopf.on.subhandler(() => {}),
    RegistrationError,
    "kopf.subhandler() works only inside a resource-changing handler",
  );
});
