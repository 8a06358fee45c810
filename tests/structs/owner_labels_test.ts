import { groupOf, ownerKindLabel } from "../../src/structs/owner_labels.ts";
import { assertEquals } from "../assert.ts";

Deno.test("ownerKindLabel: Kind.group, the kind alone for the core group", () => {
  assertEquals(ownerKindLabel("KopfExample", "kopf.dev"), "KopfExample.kopf.dev");
  assertEquals(ownerKindLabel("Service", ""), "Service");
});

Deno.test("ownerKindLabel: none where the value is no valid label value", () => {
  const group = `${"g".repeat(50)}.example.com`;
  assertEquals(ownerKindLabel("Kind", group.slice(0, 58)), `Kind.${group.slice(0, 58)}`);
  assertEquals(ownerKindLabel("Kind", group.slice(0, 59)), undefined, "64 characters");
  assertEquals(ownerKindLabel("", ""), undefined);
});

Deno.test("groupOf: the group of an apiVersion, the core group's empty", () => {
  assertEquals(groupOf("kopf.dev/v1"), "kopf.dev");
  assertEquals(groupOf("v1"), "");
});
