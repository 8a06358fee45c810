/**
 * Object references: empty fields left out; only core v1 Events count as events.
 */
import { assertEquals } from "../assert.ts";
import { buildObjectReference, isEventReference } from "../../src/structs/object_refs.ts";

Deno.test("object references leave out empty fields", () => {
  assertEquals(buildObjectReference({ kind: "Job", metadata: { name: "" } }), { kind: "Job" });
  assertEquals(buildObjectReference({}), {});
});

Deno.test("only core v1 Events count as events", () => {
  assertEquals(isEventReference({ apiVersion: "v1", kind: "Event" }), true);
  assertEquals(isEventReference({ apiVersion: "events.k8s.io/v1", kind: "Event" }), false);
  assertEquals(isEventReference({ apiVersion: "v1", kind: "Pod" }), false);
});
