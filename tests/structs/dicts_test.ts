import { hasPath, jsonEqual, parseField, resolve } from "../../src/structs/dicts.ts";
import { assertEquals, assertThrows } from "../assert.ts";

Deno.test("dotted fields and arrays of keys resolve along objects", () => {
  assertEquals(parseField("spec.field"), ["spec", "field"]);
  assertEquals(parseField(["metadata", "labels", "example.com/app"]).length, 3);
  const body = {
    spec: { field: "x", list: [1] },
    metadata: { labels: { "example.com/app": "a" } },
  };
  assertEquals(resolve(body, parseField("spec.field")), "x");
  assertEquals(resolve(body, ["metadata", "labels", "example.com/app"]), "a");
  assertEquals(resolve(body, parseField("spec.list.0")), undefined); // lists are values, not paths
  assertEquals(resolve(body, parseField("spec.none.deeper")), undefined);
  assertEquals([hasPath({ a: null }, ["a"]), hasPath({ a: "" }, ["a"])], [false, true]);
});

Deno.test("bad field paths are refused with the expected form", () => {
  assertThrows(() => parseField("spec..x"), TypeError, 'like "spec.field"');
  assertThrows(() => parseField([]), TypeError, "array of non-empty keys");
});

Deno.test("JSON equality treats null as absent and compares deeply", () => {
  assertEquals(jsonEqual({ a: [1, { b: 2 }], c: null }, { a: [1, { b: 2 }] }), true);
  assertEquals(jsonEqual([1], [1, 2]), false);
  assertEquals(jsonEqual({ a: 1 }, [1]), false);
  assertEquals(jsonEqual(0, null), false);
});
