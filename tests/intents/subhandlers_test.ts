/**
 * Sub-handlers (registration side): ids under their parent's, the sub-registry made by the
 * first registration in a scope that holds only data, and the errors outside a running
 * handler. Running them (`kopf.execute()`) is tested with the handling layer.
 */
import { causeOf } from "./causes.ts";
import { kopf } from "../../mod.ts";
import { RegistrationError } from "../../src/intents/handler_options.ts";
import { matcherOf } from "../../src/intents/registry.ts";
import { type SubhandlerScope, subhandlerScope } from "../../src/intents/subhandlers.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import type { Logger } from "../../src/structs/loggers.ts";
import { assertEquals, assertStringIncludes, assertThrows } from "../assert.ts";
import { kexV1 } from "../fixtures/discovered.ts";

const BODY: RawBody = {
  metadata: { name: "kex-1", namespace: "ns" },
  spec: { items: ["item1", "item2"], somefield: 1 },
};

/** A scope as the handling layer sets one: the parent's id, a logger, no registry yet. */
function scope(parentId: string): SubhandlerScope & { warnings: string[] } {
  const warnings: string[] = [];
  const ignore = () => {};
  const logger: Logger = {
    debug: ignore,
    info: ignore,
    warning: (message) => warnings.push(message),
    error: ignore,
  };
  return { parentId, logger, registry: undefined, warnings };
}

const idsOf = (s: SubhandlerScope) => matcherOf(s.registry!).handlers.map((h) => h.id);

Deno.test("declarative sub-handlers get ids under their parent's", () => {
  const s = scope("create_fn");
  subhandlerScope.run(s, () => {
    for (const item of (BODY.spec as { items: string[] }).items) {
      kopf.subhandler({ id: item }, () => item);
    }
    kopf.register(function fromRegister() {}, { field: "spec.somefield" });
  });
  assertEquals(idsOf(s), [
    "create_fn/item1",
    "create_fn/item2",
    "create_fn/fromRegister/spec.somefield",
  ]);
  const selected = matcherOf(s.registry!).selectChangingHandlers(
    kexV1,
    causeOf({
      reason: "create",
      body: BODY,
      old: null,
      new: BODY,
    }),
  );
  assertEquals(selected.length, 3, "sub-handlers serve their parent's object, any reason");
});

Deno.test("the sub-registry is made by the first sub-handler; its warnings go to the scope's logger", () => {
  const quiet = scope("create_fn");
  subhandlerScope.run(quiet, () => {});
  assertEquals(quiet.registry, undefined, "a handler without sub-handlers costs no registry");
  const s = scope("create_fn");
  subhandlerScope.run(s, () => {
    kopf.subhandler(() => {});
  });
  assertEquals(idsOf(s), ["create_fn/subhandler-sub"]);
  assertEquals(s.warnings.length, 1);
  assertStringIncludes(s.warnings[0], 'the handler function has no name, so its id is "');
  assertEquals(s.registry!.warnings, s.warnings);
});

Deno.test("a sub-handler with its own registry goes there, not into the scope's", () => {
  const s = scope("create_fn");
  const own = new kopf.OperatorRegistry({ onWarning: () => {} });
  subhandlerScope.run(s, () => {
    kopf.subhandler({ id: "elsewhere", registry: own }, () => {});
  });
  assertEquals(s.registry, undefined);
  assertEquals(matcherOf(own).handlers.map((h) => h.id), ["create_fn/elsewhere"]);
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

Deno.test("sub-handlers outside a running handler fail with a clear message", () => {
  assertThrows(
    () => kopf.subhandler({ id: "x" }, () => {}),
    RegistrationError,
    "kopf.subhandler() works only inside a resource-changing handler of a running operator",
  );
  assertThrows(
    () => kopf.register(function x() {}),
    RegistrationError,
    "kopf.register() works only inside a resource-changing handler of a running operator",
  );
  const s = scope("p");
  assertThrows(
    () => subhandlerScope.run(s, () => kopf.subhandler({ interval: 1 } as never, () => {})),
    RegistrationError,
    'option "interval" is not accepted here',
  );
  assertThrows(
    () =>
      subhandlerScope.run(s, () => {
        (kopf.subhandler as (...args: unknown[]) => unknown)("pods", () => {});
      }),
    RegistrationError,
    "sub-handlers serve their parent's object; remove the selector arguments",
  );
});

Deno.test("kopf.on.subhandler and kopf.on.register: Kopf's aliases of the sub-handler registrars", () => {
  const s = scope("create_fn");
  subhandlerScope.run(s, () => {
    kopf.on.subhandler({ id: "viaOn" }, () => {});
    kopf.on.register(function registeredViaOn() {}, { retries: 3 });
  });
  assertEquals(idsOf(s), ["create_fn/viaOn", "create_fn/registeredViaOn"]);
  assertThrows(
    () => kopf.on.subhandler(() => {}),
    RegistrationError,
    "kopf.subhandler() works only inside a resource-changing handler",
  );
});
