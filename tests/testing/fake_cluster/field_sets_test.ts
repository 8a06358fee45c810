/**
 * Field sets: FieldsV1 in and out (the `.` of members with children, the server's order
 * of elements), set operations, and paths as conflicts print them.
 */
import {
  difference,
  emptySet,
  fromFieldsV1,
  hasPath,
  insertPath,
  intersection,
  isEmptySet,
  memberPaths,
  pathText,
  toFieldsV1,
  union,
} from "../../../src/testing/fake_cluster/field_sets.ts";
import { fieldElement, keyElement, valueElement } from "../../../src/structs/owned_fields.ts";
import { assert, assertEquals } from "../../assert.ts";

const f = fieldElement;

function setOf(...paths: string[][]) {
  const set = emptySet();
  for (const path of paths) insertPath(set, path);
  return set;
}

Deno.test("field sets: FieldsV1 marks members with children by `.`, leaves by {}", () => {
  const set = setOf(
    [f("metadata"), f("labels")],
    [f("metadata"), f("labels"), f("app")],
    [f("spec"), f("replicas")],
  );
  assertEquals(toFieldsV1(set), {
    "f:metadata": { "f:labels": { ".": {}, "f:app": {} } },
    "f:spec": { "f:replicas": {} },
  });
});

Deno.test("field sets: FieldsV1 is read back to the same set, the order of elements as the server's", () => {
  const fields = {
    "f:spec": {
      "f:ports": {
        'k:{"port":80,"protocol":"TCP"}': { ".": {}, "f:port": {} },
        'k:{"port":443,"protocol":"TCP"}': {},
      },
      "f:finalizers": { 'v:"b"': {}, 'v:"a"': {}, "v:3": {} },
      "f:args": {},
    },
    "f:metadata": { "f:name": {} },
  };
  const set = fromFieldsV1(fields)!;
  assert(hasPath(set, [f("spec"), f("ports"), 'k:{"port":80,"protocol":"TCP"}']));
  assert(!hasPath(set, [f("spec"), f("ports")]));
  assertEquals(
    JSON.stringify(toFieldsV1(set)),
    JSON.stringify({
      "f:metadata": { "f:name": {} },
      "f:spec": {
        "f:args": {},
        "f:finalizers": { "v:3": {}, 'v:"a"': {}, 'v:"b"': {} },
        "f:ports": {
          'k:{"port":80,"protocol":"TCP"}': { ".": {}, "f:port": {} },
          'k:{"port":443,"protocol":"TCP"}': {},
        },
      },
    }),
  );
  assertEquals(fromFieldsV1("nonsense"), undefined);
  assertEquals(fromFieldsV1({ "x:y": {} }), undefined);
});

Deno.test("field sets: union, difference and intersection work on members, keeping parents", () => {
  const a = setOf([f("a")], [f("a"), f("b")], [f("c")]);
  const b = setOf([f("a")], [f("d")]);
  assertEquals(toFieldsV1(union(a, b)), { "f:a": { ".": {}, "f:b": {} }, "f:c": {}, "f:d": {} });
  // Removing the member `a` keeps its child `a.b`.
  assertEquals(toFieldsV1(difference(a, b)), { "f:a": { "f:b": {} }, "f:c": {} });
  assertEquals(toFieldsV1(intersection(a, b)), { "f:a": {} });
  assert(isEmptySet(difference(b, b)));
  assert(isEmptySet(emptySet()));
});

Deno.test("field sets: keys are sorted by name; paths print as the API server prints them", () => {
  assertEquals(
    keyElement([["protocol", "TCP"], ["containerPort", 80]]),
    'k:{"containerPort":80,"protocol":"TCP"}',
  );
  const set = setOf(
    [f("spec"), f("containers"), keyElement([["name", "app"]]), f("image")],
    [f("metadata"), f("finalizers"), valueElement("x")],
    [f("spec"), f("ports"), keyElement([["port", 80], ["protocol", "TCP"]])],
  );
  assertEquals(memberPaths(set).map(pathText), [
    '.metadata.finalizers[="x"]',
    '.spec.containers[name="app"].image',
    '.spec.ports[port=80,protocol="TCP"]',
  ]);
});
