/**
 * Structural schemas of custom resources: pruning, defaults and validation.
 */
import { applyDefaults, prune, validate } from "../../../src/testing/fake_cluster/schema.ts";
import type { JsonObject } from "../../../src/structs/bodies.ts";
import { assertEquals } from "../../assert.ts";

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
