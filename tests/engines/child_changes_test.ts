/** Which owner references of a child name a parent. */
import {
  knownOwners,
  ownerReferencesOf,
  parentKindKey,
  parentsOf,
} from "../../src/engines/child_changes.ts";
import type { JsonObject, RawBody } from "../../src/structs/bodies.ts";
import { Resource } from "../../src/structs/resources.ts";
import { assertEquals } from "../assert.ts";

const KEX = new Resource({
  group: "kopf.dev",
  version: "v1",
  plural: "kopfexamples",
  kind: "KopfExample",
  namespaced: true,
});
const NODES = new Resource({
  group: "",
  version: "v1",
  plural: "nodes",
  kind: "Node",
  namespaced: false,
});

Deno.test("parentsOf: the owner references of the parent kinds, with whole names and uids", () => {
  const parents = new Map([
    [parentKindKey("kopf.dev", "KopfExample"), KEX],
    [parentKindKey("", "Node"), NODES],
  ]);
  const child: RawBody = {
    metadata: {
      namespace: "ns",
      ownerReferences: [
        { apiVersion: "kopf.dev/v1", kind: "KopfExample", name: "kex", uid: "u1" },
        { apiVersion: "v1", kind: "Node", name: "node", uid: "u2" },
        { apiVersion: "apps/v1", kind: "ReplicaSet", name: "rs", uid: "u3" },
        { apiVersion: "kopf.dev/v1", kind: "KopfExample", name: "", uid: "u4" },
        { apiVersion: "kopf.dev/v1", kind: "KopfExample", name: "nouid" },
      ],
    },
  };
  assertEquals(parentsOf(child, parents), [
    { resource: KEX, namespace: "ns", name: "kex", uid: "u1" },
    { resource: NODES, namespace: undefined, name: "node", uid: "u2" },
  ]);
  assertEquals(parentsOf({ metadata: {} }, parents), []);
});

Deno.test("knownOwners: references that the parents make again are kept as flags only", () => {
  const parents = new Map([[parentKindKey("kopf.dev", "KopfExample"), KEX]]);
  const adopted: RawBody = {
    metadata: {
      namespace: "ns",
      ownerReferences: [
        {
          apiVersion: "kopf.dev/v1",
          kind: "KopfExample",
          name: "kex",
          uid: "u1",
          controller: true,
          blockOwnerDeletion: true,
        },
        { apiVersion: "kopf.dev/v1", kind: "KopfExample", name: "other", uid: "u2" },
      ],
    },
  };
  const known = knownOwners(adopted, parentsOf(adopted, parents));
  assertEquals(known.references, undefined);
  assertEquals(ownerReferencesOf(known), adopted.metadata!.ownerReferences);
  // Anything they would not make again is kept as it was seen.
  const extra = { apiVersion: "apps/v1", kind: "ReplicaSet", name: "rs", uid: "u3" };
  const foreign = { metadata: { ...adopted.metadata, ownerReferences: [extra] } };
  assertEquals(ownerReferencesOf(knownOwners(foreign, parentsOf(foreign, parents))), [extra]);
  const odds: JsonObject[] = [
    { apiVersion: "kopf.dev/v2", kind: "KopfExample", name: "kex", uid: "u1" }, // another version
    { apiVersion: "kopf.dev/v1", kind: "KopfExample", name: "kex", uid: "u1", controller: false },
    { apiVersion: "kopf.dev/v1", kind: "KopfExample", name: "kex", uid: "u1", x: 1 },
  ];
  for (const odd of odds) {
    const child: RawBody = { metadata: { namespace: "ns", ownerReferences: [odd] } };
    const kept = knownOwners(child, parentsOf(child, parents));
    assertEquals(kept.references, [odd]);
    assertEquals(ownerReferencesOf(kept), [odd]);
  }
});
