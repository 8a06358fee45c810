/**
 * The walks of server-side apply over values of known shapes: the fields a value sets,
 * how two values differ, merging a configuration into a live object, removing fields.
 */
import type { JsonObject } from "../../../src/structs/bodies.ts";
import { builtinTypes } from "../../../src/catalog/builtin_types.ts";
import { toFieldsV1 } from "../../../src/testing/fake_cluster/field_sets.ts";
import { objectShape, schemaShape } from "../../../src/testing/fake_cluster/field_shapes.ts";
import {
  compareValues,
  fieldSetOf,
  mergeApplied,
  removeFields,
} from "../../../src/testing/fake_cluster/field_walks.ts";
import { fromFieldsV1 } from "../../../src/testing/fake_cluster/field_sets.ts";
import { assertEquals, assertThrows } from "../../assert.ts";

function builtinShape(plural: string, group = "") {
  const type = builtinTypes().find((t) => t.plural === plural && t.group === group)!;
  return objectShape(type, type.versions[0]);
}

const deployment = builtinShape("deployments", "apps");
const service = builtinShape("services");

const crSchema = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        tags: { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "set" },
        args: { type: "array", items: { type: "string" } },
        servers: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name", "port"],
          items: {
            type: "object",
            properties: {
              name: { type: "string" },
              port: { type: "integer", default: 80 },
              host: { type: "string" },
            },
          },
        },
        limits: { type: "object", additionalProperties: { type: "string" } },
        selector: {
          type: "object",
          "x-kubernetes-map-type": "atomic",
          additionalProperties: { type: "string" },
        },
        free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
      },
    },
  },
};
const cr = schemaShape(crSchema);

Deno.test("fields of a Deployment: keyed containers and ports (with the default protocol), atomic selector", () => {
  const set = fieldSetOf({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", labels: { app: "web" }, finalizers: ["a"] },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: "web" } },
      template: {
        spec: {
          containers: [{
            name: "app",
            image: "nginx",
            args: ["-v"],
            env: [{ name: "A", value: "1" }],
            ports: [{ containerPort: 80 }],
          }],
        },
      },
    },
  }, deployment);
  assertEquals(toFieldsV1(set), {
    "f:apiVersion": {},
    "f:kind": {},
    "f:metadata": {
      "f:finalizers": { 'v:"a"': {} },
      "f:labels": { "f:app": {} },
      "f:name": {},
    },
    "f:spec": {
      "f:replicas": {},
      "f:selector": {},
      "f:template": {
        "f:spec": {
          "f:containers": {
            'k:{"name":"app"}': {
              ".": {},
              "f:args": {},
              "f:env": { 'k:{"name":"A"}': { ".": {}, "f:name": {}, "f:value": {} } },
              "f:image": {},
              "f:name": {},
              "f:ports": {
                'k:{"containerPort":80,"protocol":"TCP"}': { ".": {}, "f:containerPort": {} },
              },
            },
          },
        },
      },
    },
  });
});

Deno.test("fields of a Service: ports keyed by port and protocol, an atomic selector", () => {
  const set = fieldSetOf({
    spec: { selector: { app: "web" }, ports: [{ port: 443, protocol: "UDP", name: "q" }] },
  }, service);
  assertEquals(toFieldsV1(set), {
    "f:spec": {
      "f:ports": {
        'k:{"port":443,"protocol":"UDP"}': {
          ".": {},
          "f:name": {},
          "f:port": {},
          "f:protocol": {},
        },
      },
      "f:selector": {},
    },
  });
});

Deno.test("fields of a custom resource: the CRD's list and map types; untyped maps own their entries", () => {
  const set = fieldSetOf({
    spec: {
      tags: ["x", "y"],
      args: ["a"],
      servers: [{ name: "s", host: "h" }],
      limits: { cpu: "1" },
      selector: { a: "b" },
      free: { nested: { deep: 1 }, list: [1] },
    },
  }, cr);
  assertEquals(toFieldsV1(set), {
    "f:spec": {
      "f:args": {},
      "f:free": { "f:list": {}, "f:nested": { ".": {}, "f:deep": {} } },
      "f:limits": { "f:cpu": {} },
      "f:selector": {},
      "f:servers": { 'k:{"name":"s","port":80}': { ".": {}, "f:host": {}, "f:name": {} } },
      "f:tags": { 'v:"x"': {}, 'v:"y"': {} },
    },
  });
});

Deno.test("fields: an item of a keyed list without any key is refused", () => {
  assertThrows(() =>
    fieldSetOf(
      { spec: { servers: [{ host: "h" }] } },
      schemaShape({
        type: "object",
        properties: {
          spec: {
            type: "object",
            properties: {
              servers: {
                type: "array",
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name"],
                items: { type: "object", properties: { name: { type: "string" } } },
              },
            },
          },
        },
      }),
    )
  );
});

Deno.test("compare: added maps and items are members of their own; changed leaves are modified", () => {
  const before = { spec: { tags: ["x"], limits: { cpu: "1" }, args: ["a"] } };
  const after = {
    spec: { tags: ["x", "y"], limits: { cpu: "2" }, args: ["a"], servers: [{ name: "s" }] },
    metadata: { labels: { a: "b" } },
  };
  const cmp = compareValues(before, after, cr);
  assertEquals(toFieldsV1(cmp.added), {
    "f:metadata": { ".": {}, "f:labels": { ".": {}, "f:a": {} } },
    "f:spec": {
      "f:servers": { ".": {}, 'k:{"name":"s","port":80}': { ".": {}, "f:name": {} } },
      "f:tags": { 'v:"y"': {} },
    },
  });
  assertEquals(toFieldsV1(cmp.modified), { "f:spec": { "f:limits": { "f:cpu": {} } } });
  assertEquals(toFieldsV1(compareValues(after, before, cr).removed), toFieldsV1(cmp.added));
});

Deno.test("merge: the configuration wins, keyed items merge in place, sets are unions", () => {
  const live = {
    spec: {
      servers: [{ name: "a", host: "1" }, { name: "b", host: "2" }, { name: "c", host: "3" }],
      args: ["x", "y"],
      limits: { cpu: "1", memory: "2" },
      tags: ["t1", "t2"],
    },
  };
  const merged = mergeApplied(live, {
    spec: {
      servers: [{ name: "b", host: "B" }, { name: "d", host: "4" }],
      args: ["z"],
      limits: { cpu: "9" },
      tags: ["t3"],
    },
  }, cr) as JsonObject;
  assertEquals(merged, {
    spec: {
      // As the API server merges: live-only items keep their places, new ones come after.
      servers: [
        { name: "a", host: "1" },
        { name: "b", host: "B" },
        { name: "c", host: "3" },
        { name: "d", host: "4" },
      ],
      args: ["z"],
      limits: { cpu: "9", memory: "2" },
      tags: ["t1", "t2", "t3"],
    },
  });
});

Deno.test("remove: members go with their subtree; maps emptied by the removal go too", () => {
  const value: JsonObject = {
    spec: { servers: [{ name: "a", host: "1" }, { name: "b" }], limits: { cpu: "1" }, tags: ["x"] },
  };
  const set = fromFieldsV1({
    "f:spec": {
      "f:servers": { 'k:{"name":"a","port":80}': {} },
      "f:limits": { "f:cpu": {} },
      "f:tags": { 'v:"y"': {} },
    },
  })!;
  assertEquals(removeFields(value, set, cr), {
    spec: { servers: [{ name: "b" }], tags: ["x"] },
  });
});
