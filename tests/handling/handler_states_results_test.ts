/**
 * Handlers' results on their way to the status: copied once as plain data, refused when
 * the status cannot hold them, and not copied again when already copied.
 */
import { assert, assertEquals, assertThrows } from "../assert.ts";
import { Patch } from "../../src/structs/patches.ts";
import { readOnlyView } from "../../src/structs/views.ts";
import { deliverResults, plainResult } from "../../src/handling/handler_states.ts";

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
