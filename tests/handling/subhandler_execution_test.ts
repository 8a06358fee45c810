/**
 * `kopf.execute()` inside a real handling cycle (no API): which sub-handlers it runs and
 * under which ids, the run once of the registered ones, the cause it changes, and the
 * errors for wrong options or outside a handler.
 */
import { kopf } from "../../mod.ts";
import type { ChangingKwargs } from "../../mod.ts";
import {
  type CycleResult,
  type CycleTarget,
  runChangingCycle,
} from "../../src/handling/changing.ts";
import type { Cause } from "../../src/intents/causes.ts";
import { createObjectScope } from "../../src/handling/object_loggers.ts";
import { RegistrationError } from "../../src/intents/handler_options.ts";
import { matcherOf } from "../../src/intents/registry.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { diff } from "../../src/structs/diffs.ts";
import { ConfigurationError } from "../../src/structs/errors.ts";
import { Patch } from "../../src/structs/patches.ts";
import { OperatorSettings } from "../../src/settings/operator_settings.ts";
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { kexV1 } from "../fixtures/discovered.ts";

const BODY: RawBody = {
  metadata: { name: "kex-1", namespace: "ns", uid: "u1" },
  spec: { items: ["item1", "item2"] },
};

/** A creation of {@link BODY}, and the object it is of, for all the handlers of one cycle. */
function creation(): CycleTarget & Cause {
  return {
    ...createObjectScope(BODY),
    body: BODY,
    resource: kexV1,
    patch: new Patch(),
    memory: { memo: new kopf.Memo() },
    reason: "create",
    initial: false,
    deleted: false,
    old: null,
    new: BODY,
    diff: diff(null, BODY),
  };
}

/** Run one handling cycle of a creation with `parent` as the only handler, `create_fn`. */
async function runParent(
  parent: (kwargs: ChangingKwargs) => unknown,
): Promise<{ result: CycleResult; status: Record<string, unknown> }> {
  const registry = new kopf.OperatorRegistry();
  kopf.on.create("kopfexamples", { registry, id: "create_fn" }, parent);
  const handlers = matcherOf(registry).handlersFor(kexV1).changing;
  const cause = creation();
  const result = await runChangingCycle(cause, cause, handlers, handlers, {
    settings: new OperatorSettings(),
    lifecycle: kopf.lifecycles.allAtOnce,
  });
  const status = (cause.patch.toMergePatch().status ?? {}) as Record<string, unknown>;
  return { result, status };
}

Deno.test("kopf.execute() runs functions by id or by name, and a registry's handlers, under the parent's id", async () => {
  const sub = new kopf.OperatorRegistry();
  kopf.on.create("kex", { registry: sub }, function fromRegistry() {
    return "registry";
  });
  function handleItem() {
    return "by name";
  }
  const { result, status } = await runParent(async () => {
    await kopf.execute({ fns: { item1: () => "one", item2: () => "two" } });
    await kopf.execute({ fns: [handleItem] });
    await kopf.execute({ registry: sub });
    return "parent";
  });
  assert(result.done);
  assertEquals(status, {
    "create_fn/item1": "one",
    "create_fn/item2": "two",
    "create_fn/handleItem": "by name",
    "create_fn/fromRegistry": "registry",
    create_fn: "parent",
  });
});

Deno.test("kopf.execute() without arguments runs the registered sub-handlers once, for the cause given", async () => {
  const runs: string[] = [];
  const { result, status } = await runParent(async () => {
    kopf.subhandler({ id: "one" }, ({ reason, old }) => {
      runs.push(`${reason} from ${JSON.stringify(old)}`);
      return 1;
    });
    await kopf.execute({ cause: { reason: "update", old: {}, new: BODY } });
    await kopf.execute(); // done already: not again
  });
  assert(result.done);
  assertEquals(runs, ["update from {}"], "run once, not again after the parent either");
  assertEquals(status["create_fn/one"], 1);
});

Deno.test("sub-handlers registered but not executed run right after their parent", async () => {
  const order: string[] = [];
  const { result, status } = await runParent(() => {
    kopf.subhandler({ id: "later" }, () => {
      order.push("sub-handler");
      return "later";
    });
    order.push("parent");
  });
  assert(result.done);
  assertEquals(order, ["parent", "sub-handler"]);
  assertEquals(status["create_fn/later"], "later");
});

Deno.test("kopf.execute() explains a function without a name or a wrong cause inside a handler", async () => {
  const errors: string[] = [];
  await runParent(async () => {
    for (
      const options of [
        { fns: [() => {}] },
        { cause: { body: {} } as never },
        { cause: { reason: "gone" as never } },
        { fns: { x: "not a function" as never } },
      ]
    ) {
      await kopf.execute(options).catch((e) => errors.push(`${e.name}: ${e.message}`));
    }
  });
  assertEquals(errors, [
    "RegistrationError: kopf.execute(): a function in the fns list has no name; pass fns as { id: fn } instead.",
    "RegistrationError: kopf.execute(): cause.body is not accepted; give reason, old, new or diff (the object, patch, logger and memo stay the parent's).",
    'RegistrationError: kopf.execute(): cause.reason must be "create", "update", "delete" or "resume", not "gone".',
    'RegistrationError: kopf.execute(): fns["x"] must be a function.',
  ]);
});

Deno.test("kopf.execute() outside a running handler, or with a wrong lifecycle, fails with a clear message", async () => {
  await assertRejects(
    () => kopf.execute({ fns: { x: () => {} } }),
    RegistrationError,
    "kopf.execute() works only inside a resource-changing handler of a running operator",
  );
  await assertRejects(
    () => kopf.execute(),
    RegistrationError,
    "kopf.execute() works only inside a resource-changing handler",
  );
  await assertRejects(
    () => kopf.execute({ lifecycle: "asap" as never }),
    ConfigurationError,
    "kopf.execute()'s lifecycle must be a lifecycle function such as kopf.lifecycles.asap",
  );
  await assertRejects(
    () => kopf.execute(null as never),
    RegistrationError,
    "kopf.execute() takes an object of options",
  );
});
