import { diff, reduceDiff } from "../../src/structs/diffs.ts";
import { parseField } from "../../src/structs/dicts.ts";
import { assertEquals } from "../assert.ts";

Deno.test("a diff lists removed, added and changed keys with their paths", () => {
  const old = {
    metadata: { labels: { label2: "old-value", label3: "old-value" } },
    spec: { size: "1G" },
  };
  const neu = {
    metadata: { labels: { label1: "new-value", label2: "new-value" } },
    spec: { size: "2G" },
  };
  assertEquals(diff(old, neu), [
    ["remove", ["metadata", "labels", "label3"], "old-value", null],
    ["add", ["metadata", "labels", "label1"], null, "new-value"],
    ["change", ["metadata", "labels", "label2"], "old-value", "new-value"],
    ["change", ["spec", "size"], "1G", "2G"],
  ]);
});

Deno.test("null means absent: null and missing keys do not differ", () => {
  assertEquals(diff({ a: null }, {}), []);
  assertEquals(diff({}, { a: null }), []);
  assertEquals(diff(null, undefined), []);
  assertEquals(diff({ a: 1 }, { a: 1 }), []);
});

Deno.test("a missing side makes one add or remove of the whole value", () => {
  assertEquals(diff(null, { a: 1 }), [["add", [], null, { a: 1 }]]);
  assertEquals(diff({ a: 1 }, null), [["remove", [], { a: 1 }, null]]);
});

Deno.test("lists are compared whole, and type changes are changes", () => {
  assertEquals(diff({ l: [1, 2] }, { l: [1, 3] }), [["change", ["l"], [1, 2], [1, 3]]]);
  assertEquals(diff({ l: [1, 2] }, { l: [1, 2] }), []);
  assertEquals(diff({ x: "1" }, { x: { y: 1 } }), [["change", ["x"], "1", { y: 1 }]]);
});

Deno.test("a diff reduced to a field has paths relative to it, unrelated items dropped", () => {
  const d = diff(
    { metadata: { labels: { label2: "o", label3: "o" } }, spec: { size: 1 } },
    { metadata: { labels: { label1: "n", label2: "n" } }, spec: { size: 2 } },
  );
  assertEquals(reduceDiff(d, parseField("metadata.labels")), [
    ["remove", ["label3"], "o", null],
    ["add", ["label1"], null, "n"],
    ["change", ["label2"], "o", "n"],
  ]);
});

Deno.test("a reduced diff narrows a change of a whole parent down to the field", () => {
  const d = diff({}, { spec: { field: "x", other: 1 } });
  assertEquals(reduceDiff(d, parseField("spec.field")), [["add", [], null, "x"]]);
  assertEquals(reduceDiff(d, parseField("spec.none")), []);
  assertEquals(reduceDiff(d, []), d);
});
