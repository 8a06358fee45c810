/**
 * Reading what a field manager owns: the owned part of an object (maps, keyed lists, sets,
 * indices, fields owned whole), how much of a path an entry covers, and keyed lists.
 */
import { assertEquals } from "../assert.ts";
import {
  coverage,
  isAppliedBy,
  isKeyedList,
  managedEntries,
  ownedPart,
  ownsAllOf,
} from "../../src/structs/owned_fields.ts";
import type { RawBody } from "../../src/structs/bodies.ts";

const body: RawBody = {
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: {
    name: "x",
    annotations: { "a/progress": "1", "b/other": "2" },
    finalizers: ["a/f", "b/f"],
    labels: { app: "x" },
  },
  spec: { field: "value", items: [1, 2, 3] },
  status: {
    create_fn: { message: "hi", nested: { deep: true } },
    conditions: [
      { type: "Ready", status: "True", reason: "Done" },
      { type: "BReady", status: "False", reason: "Waiting" },
    ],
  },
};

Deno.test("owned part: only the owned keys of maps, items of keyed lists and sets, whole leaves", () => {
  const fields = {
    "f:metadata": {
      "f:annotations": { "f:a/progress": {} },
      "f:finalizers": { 'v:"a/f"': {} },
    },
    "f:status": {
      "f:create_fn": {}, // owned whole: comes whole
      "f:conditions": { 'k:{"type":"Ready"}': { ".": {}, "f:status": {}, "f:reason": {} } },
    },
  };
  assertEquals(ownedPart(body, fields), {
    metadata: { annotations: { "a/progress": "1" }, finalizers: ["a/f"] },
    status: {
      create_fn: { message: "hi", nested: { deep: true } },
      // The key of a keyed item is always stated, even where the entry does not list it.
      conditions: [{ type: "Ready", status: "True", reason: "Done" }],
    },
  });
});

Deno.test("owned part: nothing owned is undefined; an empty root owns nothing; '.' keeps an emptied map", () => {
  assertEquals(ownedPart(body, {}), undefined);
  assertEquals(ownedPart(body, { "f:metadata": { "f:annotations": { "f:gone": {} } } }), undefined);
  assertEquals(ownedPart(body, { "f:spec": { ".": {}, "f:missing": {} } }), { spec: {} });
  assertEquals(ownedPart(body, { "f:spec": { "f:items": { "i:1": {} } } }), {
    spec: { items: [2] },
  });
});

Deno.test("coverage: whole, in part, not at all; an ancestor owned whole covers its children", () => {
  const fields = {
    "f:metadata": { "f:finalizers": { 'v:"a/f"': {} }, "f:labels": {} },
    "f:status": { ".": {}, "f:create_fn": { ".": {}, "f:message": {} } },
  };
  assertEquals(coverage(fields, ["f:metadata", "f:finalizers", 'v:"a/f"']), "all");
  assertEquals(coverage(fields, ["f:metadata", "f:finalizers", 'v:"b/f"']), "none");
  assertEquals(coverage(fields, ["f:metadata", "f:labels", "f:app"]), "all");
  assertEquals(coverage(fields, ["f:status", "f:create_fn"]), "some");
  assertEquals(coverage(fields, ["f:status", "f:create_fn", "f:message"]), "all");
  assertEquals(coverage(fields, ["f:spec"]), "none");
  assertEquals(coverage({}, ["f:spec"]), "none");
});

Deno.test("ownsAllOf: the path or an ancestor whole, or each part of the value there now", () => {
  const fields = {
    "f:metadata": { "f:labels": {} },
    "f:status": { "f:create_fn": { ".": {}, "f:message": {} } },
  };
  assertEquals(ownsAllOf(fields, ["f:metadata", "f:labels"], { app: "x" }), true);
  assertEquals(ownsAllOf(fields, ["f:metadata", "f:labels", "f:app"], "x"), true, "ancestor");
  const path = ["f:status", "f:create_fn"];
  assertEquals(ownsAllOf(fields, path, { message: "m" }), true, "each part there now");
  assertEquals(ownsAllOf(fields, path, { message: "m", retries: 1 }), false, "a part not ours");
  assertEquals(ownsAllOf(fields, ["f:spec"], { a: 1 }), false);
  assertEquals(ownsAllOf({}, ["f:spec"], { a: 1 }), false, "the root is never owned itself");
});

Deno.test("managed entries: parsed as the API server writes them; applies told apart by manager and subresource", () => {
  const entries = managedEntries({
    metadata: {
      managedFields: [
        { manager: "a", operation: "Apply", fieldsType: "FieldsV1", fieldsV1: { "f:spec": {} } },
        {
          manager: "a",
          operation: "Apply",
          subresource: "status",
          fieldsType: "FieldsV1",
          fieldsV1: { "f:status": {} },
        },
        { manager: "a", operation: "Update", fieldsType: "FieldsV1", fieldsV1: { "f:x": {} } },
        { manager: "b", operation: "Apply", fieldsType: "Other", fieldsV1: {} },
        "junk",
      ],
    },
  } as unknown as RawBody);
  assertEquals(entries.length, 3);
  assertEquals(entries.filter((e) => isAppliedBy(e, "a")).map((e) => e.fields), [{ "f:spec": {} }]);
  assertEquals(entries.filter((e) => isAppliedBy(e, "a", "status")).length, 1);
  assertEquals(managedEntries({}), []);
});

Deno.test("keyed lists: known from any entry's k: elements", () => {
  const path = ["f:status", "f:conditions"];
  const keyed = [{
    manager: "b",
    operation: "Update",
    fields: { "f:status": { "f:conditions": { 'k:{"type":"B"}': {} } } },
  }];
  const atomic = [{
    manager: "b",
    operation: "Update",
    fields: { "f:status": { "f:conditions": {} } },
  }];
  assertEquals(isKeyedList(keyed, path), true);
  assertEquals(isKeyedList(atomic, path), false);
  assertEquals(isKeyedList([], path), false);
});
