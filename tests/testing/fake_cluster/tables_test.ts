/**
 * Table cells rendered like kubectl's: ages and JSONPath.
 */
import { humanDuration, jsonPath } from "../../../src/testing/fake_cluster/tables.ts";
import { assertEquals } from "../../assert.ts";

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
