/**
 * Handlers' results on their way to the status: delivered to `status.<id>`, copied once as
 * plain data, refused when the status cannot hold them, and not copied again when already copied.
 */
import { assert, assertEquals, assertThrows } from "../assert.ts";
import { Patch } from "../../src/structs/patches.ts";
import { readOnlyView } from "../../src/structs/views.ts";
import { deliverResults, plainResult } from "../../src/handling/handler_results.ts";

Deno.test("a result is copied as plain data: views unwrapped, nothing shared", () => {
  const body = { spec: { items: [{ a: 1 }] } };
  const spec = readOnlyView(body.spec, "spec");
  const when = new Date(0);
  const result = { spec, list: [spec.items[0], null, "s", 1, true], when, none: undefined };
  type Copy = { spec: typeof body.spec; list: unknown[]; when: Date; none?: 1 };
  const copy = plainResult(result) as Copy;
  assertEquals(copy, {
    spec: { items: [{ a: 1 }] },
    list: [{ a: 1 }, null, "s", 1, true],
    when: new Date(0),
    none: undefined,
  });
  assert(copy.spec.items !== body.spec.items && copy.when !== when);
  assertEquals(plainResult(42), 42);
  assertEquals(plainResult(undefined), undefined);
  const shared = { x: 1 };
  assertEquals(plainResult([shared, shared]), [{ x: 1 }, { x: 1 }], "shared is not circular");
});

Deno.test("what the status cannot hold is refused", () => {
  const circular: Record<string, unknown> = { a: 1 };
  circular.self = circular;
  for (const bad of [() => 1, { f: () => 1 }, [1n], Symbol("s"), circular, { m: new WeakMap() }]) {
    assertThrows(() => plainResult(bad), Error);
  }
});

Deno.test("results already copied are delivered as they are; others are copied", () => {
  const result = { n: 1 };
  const patch = new Patch();
  deliverResults(new Map([["fn", { final: true, result }]]), patch, true);
  const given = { n: 2 };
  const other: Record<string, unknown> = {};
  deliverResults({ fn: { final: true, result: [given] } }, other);
  assertEquals(patch.toMergePatch(), { status: { fn: { n: 1 } } });
  const list = (other.status as Record<string, unknown[]>).fn;
  assertEquals(list, [{ n: 2 }]);
  assert(list[0] !== given, "copied: later changes of the handler's data do not leak in");
});

Deno.test("results go to status.<id>: objects merged, other values replaced, failures skipped", () => {
  const patch = new Patch();
  patch.status.create_fn = { kept: true };
  deliverResults({
    create_fn: { final: true, result: { message: "hello" } },
    scalar_fn: { final: true, result: 42 },
    none_fn: { final: true, result: undefined },
    failed_fn: { final: true, error: new Error("x"), result: { no: 1 } },
  }, patch);
  assertEquals(patch.toMergePatch(), {
    status: { create_fn: { kept: true, message: "hello" }, scalar_fn: 42 },
  });
  const plain: Record<string, unknown> = {};
  deliverResults(new Map([["fn", { final: true, result: ["a"] }]]), plain);
  assertEquals(plain, { status: { fn: ["a"] } });
  assertThrows(
    () => deliverResults({ fn: { final: true, result: { f: () => 1 } } }, {}),
    TypeError,
    'The result of handler "fn" cannot be stored in the status',
  );
});

Deno.test("results that are (or hold) read-only views of the body are delivered as plain data", () => {
  const body = { spec: { field: "value", items: [{ a: 1 }] } };
  const spec = readOnlyView(body.spec, "spec");
  const patch = new Patch();
  deliverResults({
    whole_fn: { final: true, result: spec },
    part_fn: { final: true, result: { x: spec.items, n: 1 } },
    list_fn: { final: true, result: [spec.items[0]] },
  }, patch);
  assertEquals(patch.toMergePatch(), {
    status: {
      whole_fn: { field: "value", items: [{ a: 1 }] },
      part_fn: { x: [{ a: 1 }], n: 1 },
      list_fn: [{ a: 1 }],
    },
  });
  // Plain copies: neither views nor the body's own objects.
  const status = patch.status as Record<string, Record<string, unknown>>;
  status.whole_fn.extra = true;
  (status.part_fn.x as Record<string, unknown>[])[0].a = 2;
  assertEquals(body.spec, { field: "value", items: [{ a: 1 }] });
});
