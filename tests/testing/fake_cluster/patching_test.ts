/**
 * The generic patch formats of the fake API server: merge and JSON patches.
 */
import { jsonPatch, mergePatch } from "../../../src/testing/fake_cluster/patching.ts";
import { ApiError } from "../../../src/testing/fake_cluster/errors.ts";
import { assertEquals, assertThrows } from "../../assert.ts";

Deno.test("merge patch: objects merge, null deletes, arrays replace, inputs stay untouched", () => {
  const target = { a: { b: 1, c: 2 }, list: [1, 2], keep: true };
  const result = mergePatch(target, { a: { b: null, d: 4 }, list: [3] });
  assertEquals(result, { a: { c: 2, d: 4 }, list: [3], keep: true });
  assertEquals(target, { a: { b: 1, c: 2 }, list: [1, 2], keep: true });
});

Deno.test("JSON patch: add (also at -), remove, replace, move, copy, test; escaped pointers", () => {
  const doc = { a: [1, 2], "x/y": { "m~n": 1 } };
  const result = jsonPatch(doc, [
    { op: "add", path: "/a/-", value: 3 },
    { op: "add", path: "/a/0", value: 0 },
    { op: "remove", path: "/a/1" },
    { op: "replace", path: "/x~1y/m~0n", value: 2 },
    { op: "copy", from: "/a", path: "/b" },
    { op: "move", from: "/b", path: "/c" },
    { op: "test", path: "/c/0", value: 0 },
  ]);
  assertEquals(result, { a: [0, 2, 3], "x/y": { "m~n": 2 }, c: [0, 2, 3] });
  assertEquals(doc.a, [1, 2], "the input is not changed");
  const failed = assertThrows(
    () => jsonPatch(doc, [{ op: "test", path: "/a/0", value: 9 }]),
    ApiError,
  );
  assertEquals(failed.code, 422);
  assertEquals(
    assertThrows(() => jsonPatch(doc, [{ op: "remove", path: "/nope" }]), ApiError).code,
    422,
  );
  assertEquals(
    assertThrows(() => jsonPatch(doc, [{ op: "jump", path: "/a" }]), ApiError).code,
    400,
  );
  assertEquals(assertThrows(() => jsonPatch(doc, { op: "add" }), ApiError).code, 400);
});
