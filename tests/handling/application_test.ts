/**
 * The finalizer's JSON Patch operations.
 */
import { assertEquals } from "../assert.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { finalizerOperations } from "../../src/handling/application.ts";

const F = "kopf.zalando.org/KopfFinalizerMarker";

Deno.test("finalizer operations keep other finalizers and guard the index", () => {
  const none: RawBody = { metadata: {} };
  const some: RawBody = { metadata: { finalizers: ["a/b"] } };
  const ours: RawBody = { metadata: { finalizers: ["a/b", F, "c/d"] } };
  assertEquals(finalizerOperations(none, F, "add"), [
    { op: "add", path: "/metadata/finalizers", value: [F] },
  ]);
  assertEquals(finalizerOperations(some, F, "add"), [
    { op: "add", path: "/metadata/finalizers/-", value: F },
  ]);
  assertEquals(finalizerOperations(ours, F, "add"), []);
  assertEquals(finalizerOperations(ours, F, "remove"), [
    { op: "test", path: "/metadata/finalizers/1", value: F },
    { op: "remove", path: "/metadata/finalizers/1" },
  ]);
  assertEquals(finalizerOperations(some, F, "remove"), []);
});
