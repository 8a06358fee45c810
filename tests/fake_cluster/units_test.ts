/**
 * The pure pieces of the fake API server: patches, selectors, schemas, history, tables.
 */
import {
  jsonPatch,
  mergePatch,
  strategicMergePatch,
} from "../../src/testing/fake_cluster/patching.ts";
import {
  parseFieldSelector,
  parseLabelSelector,
} from "../../src/testing/fake_cluster/selectors.ts";
import { applyDefaults, prune, validate } from "../../src/testing/fake_cluster/schema.ts";
import { History } from "../../src/testing/fake_cluster/history.ts";
import { humanDuration, jsonPath } from "../../src/testing/fake_cluster/tables.ts";
import { ApiError } from "../../src/testing/fake_cluster/errors.ts";
import type { JsonObject } from "../../src/structs/bodies.ts";
import { assertEquals, assertThrows } from "../assert.ts";

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

Deno.test("strategic merge: merge keys, $patch delete/replace, $retainKeys, $deleteFromPrimitiveList, $setElementOrder", () => {
  const pod: JsonObject = {
    metadata: { finalizers: ["a", "b"], labels: { x: "1", y: "2" } },
    spec: {
      containers: [
        { name: "a", image: "a:1", ports: [{ containerPort: 80, name: "http" }] },
        { name: "b", image: "b:1" },
      ],
      tolerations: [{ key: "t1" }],
    },
  };
  const result = strategicMergePatch(pod, {
    metadata: {
      "$deleteFromPrimitiveList/finalizers": ["a"],
      labels: { $patch: "replace", z: "3" },
    },
    spec: {
      "$setElementOrder/containers": [{ name: "c" }, { name: "b" }, { name: "a" }],
      containers: [
        { name: "a", ports: [{ containerPort: 443, name: "https" }] },
        { name: "c", image: "c:1" },
      ],
      tolerations: [{ key: "t2" }],
    },
  }) as JsonObject;
  assertEquals(result.metadata, { finalizers: ["b"], labels: { z: "3" } });
  const spec = result.spec as JsonObject;
  assertEquals((spec.containers as JsonObject[]).map((c) => c.name), ["c", "b", "a"]);
  assertEquals((spec.containers as JsonObject[])[2].ports, [
    { containerPort: 80, name: "http" },
    { containerPort: 443, name: "https" },
  ]);
  assertEquals(spec.tolerations, [{ key: "t2" }], "lists without a merge key are replaced");
  const retained = strategicMergePatch({ spec: { a: 1, b: 2, c: 3 } }, {
    spec: { $retainKeys: ["a", "c"], c: 4 },
  });
  assertEquals(retained, { spec: { a: 1, c: 4 } });
  const replacedList = strategicMergePatch(pod, {
    spec: { containers: [{ $patch: "replace" }, { name: "only" }] },
  }) as JsonObject;
  assertEquals((replacedList.spec as JsonObject).containers, [{ name: "only" }]);
});

Deno.test("label selectors: equality, sets, existence; bad ones are 400", () => {
  const obj = (labels: Record<string, string>): JsonObject => ({ metadata: { labels } });
  const sel = parseLabelSelector("app in (web, api),tier!=db,!legacy,env");
  assertEquals(sel(obj({ app: "web", env: "prod" })), true);
  assertEquals(sel(obj({ app: "web", env: "prod", tier: "db" })), false);
  assertEquals(sel(obj({ app: "web", env: "prod", legacy: "" })), false);
  assertEquals(sel(obj({ app: "web" })), false);
  assertEquals(parseLabelSelector("")(obj({})), true);
  assertEquals(parseLabelSelector("a==b")(obj({ a: "b" })), true);
  assertEquals(assertThrows(() => parseLabelSelector("a=b=c"), ApiError).code, 400);
});

Deno.test("field selectors: supported fields only, = and !=", () => {
  const sel = parseFieldSelector("metadata.name=x,status.phase!=Running", ["status.phase"], "Pod");
  assertEquals(sel({ metadata: { name: "x" }, status: { phase: "Pending" } }), true);
  assertEquals(sel({ metadata: { name: "x" }, status: { phase: "Running" } }), false);
  assertEquals(sel({ metadata: { name: "x" } }), true, "an absent field is the empty string");
  const deep = parseFieldSelector("spec.n=3,spec.list.a=", ["spec.n", "spec.list.a"], "Kind");
  assertEquals(deep({ spec: { n: 3, list: [{ a: "1" }] } }), true, "numbers as text; no arrays");
  assertEquals(deep({ spec: { n: 4 } }), false);
  const error = assertThrows(() => parseFieldSelector("spec.x=1", [], "ConfigMap"), ApiError);
  assertEquals(error.code, 400);
});

Deno.test("structural schemas: pruning, preserve-unknown-fields, maps, defaults, validation", () => {
  const schema: JsonObject = {
    type: "object",
    required: ["spec"],
    properties: {
      spec: {
        type: "object",
        properties: {
          size: { type: "integer", minimum: 1, default: 3 },
          mode: { type: "string", enum: ["a", "b"] },
          tags: { type: "object", additionalProperties: { type: "string" } },
          raw: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
          items: {
            type: "array",
            items: { type: "object", properties: { n: { type: "string" } } },
          },
        },
      },
    },
  };
  const pruned = prune(
    {
      apiVersion: "v1",
      kind: "K",
      metadata: { name: "x" },
      spec: {
        size: 2,
        junk: 1,
        tags: { a: "b" },
        raw: { any: { deep: 1 } },
        items: [{ n: "1", m: 2 }],
      },
      top: 1,
    },
    schema,
    true,
  );
  assertEquals(pruned, {
    apiVersion: "v1",
    kind: "K",
    metadata: { name: "x" },
    spec: { size: 2, tags: { a: "b" }, raw: { any: { deep: 1 } }, items: [{ n: "1" }] },
  });
  assertEquals(applyDefaults({ spec: {} }, schema), { spec: { size: 3 } });
  const causes = validate({ spec: { size: 0, mode: "c", tags: { a: 1 } } }, schema);
  assertEquals(causes.map((c) => c.field), ["spec.size", "spec.mode", "spec.tags.a"]);
  assertEquals(validate({}, schema).map((c) => c.reason), ["FieldValueRequired"]);
});

Deno.test("the history ring replays changes after a version and reports forgotten ones", () => {
  const history = new History(3);
  const change = (rv: number) => ({
    rv,
    type: "ADDED" as const,
    typeKey: "/cm",
    namespace: "",
    object: {},
  });
  for (let rv = 1; rv <= 5; rv++) history.push(change(rv));
  assertEquals(history.since(3)?.map((c) => c.rv), [4, 5]);
  assertEquals(history.since(2)?.map((c) => c.rv), [3, 4, 5]);
  assertEquals(history.since(1), undefined, "version 2 is forgotten");
  history.compact(4);
  assertEquals(history.since(3), undefined);
  assertEquals(history.since(4)?.map((c) => c.rv), [5]);
});

Deno.test("ages and JSONPath cells render like kubectl's", () => {
  assertEquals([
    humanDuration(5),
    humanDuration(150),
    humanDuration(3600 * 5),
    humanDuration(86400 * 3),
  ], ["5s", "2m30s", "5h", "3d"]);
  const obj = {
    status: { conditions: [{ type: "A", status: "False" }, { type: "Ready", status: "True" }] },
  };
  assertEquals(jsonPath(obj, '.status.conditions[?(@.type=="Ready")].status'), ["True"]);
  assertEquals(jsonPath(obj, ".status.conditions[0].type"), ["A"]);
  assertEquals(jsonPath(obj, ".status.conditions[*].type"), ["A", "Ready"]);
  assertEquals(jsonPath(obj, ".missing.field"), []);
});
