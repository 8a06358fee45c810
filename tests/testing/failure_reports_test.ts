/** The bounded parts of failed waits' messages: the output's tail, the object's state. */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import {
  addWitness,
  objectState,
  outputTail,
  removeWitness,
  TAIL_CHARS,
  TAIL_LINES,
  witnessReports,
} from "../../src/testing/failure_reports.ts";

Deno.test("the tail: the last 20 lines of records, stacks split, the rest counted", () => {
  const records = Array.from({ length: 30 }, (_, i) => `line ${i}`);
  records.push("Error: boom\n    at a (x.ts:1:1)\n    at b (x.ts:2:2)");
  const tail = outputTail(records).split("\n");
  assertEquals(tail.length, TAIL_LINES + 1);
  assertEquals(tail[0], "  … 13 earlier line(s) left out");
  assertEquals(tail[1], "  | line 13");
  assertEquals(tail.slice(-3), [
    "  | Error: boom",
    "  |     at a (x.ts:1:1)",
    "  |     at b (x.ts:2:2)",
  ]);
  assertEquals(outputTail(["only"]), "  | only");
});

Deno.test("the tail: at most 4 KB, long lines cut", () => {
  const long = "x".repeat(3000);
  const tail = outputTail([...Array(12).fill(long), "last"]);
  assert(tail.length <= TAIL_CHARS + 200, String(tail.length));
  assertStringIncludes(tail, "  | last");
  assertStringIncludes(tail, `${"x".repeat(500)}…`);
  assert(!tail.includes("x".repeat(501)));
  assertStringIncludes(tail, "earlier line(s) left out");
});

Deno.test("the object's state: what conditions look at, long values cut, bounded", () => {
  assertEquals(objectState(undefined), "it does not exist");
  const state = objectState({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: "x",
      namespace: "default",
      resourceVersion: "12",
      finalizers: ["kopf.zalando.org/KopfFinalizerMarker"],
      annotations: { big: "a".repeat(1000) },
      managedFields: [{ manager: "kubectl" }],
    },
    data: { secret: "not shown" },
    status: { phase: "Ready" },
  });
  assertStringIncludes(state, '"name":"x","namespace":"default","resourceVersion":"12"');
  assertStringIncludes(state, '"finalizers":["kopf.zalando.org/KopfFinalizerMarker"]');
  assertStringIncludes(state, `"big":"${"a".repeat(200)}…(800 more chars)"`);
  assertStringIncludes(state, '"status":{"phase":"Ready"}');
  assert(!state.includes("managedFields") && !state.includes("not shown"), state);
  const huge = objectState({
    metadata: { name: "y" },
    status: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, "v".repeat(100)])),
  });
  assert(huge.length < 2200, String(huge.length));
  assertStringIncludes(huge, "(cut;");
});

Deno.test("witnesses report on a cluster's waits until removed", () => {
  const cluster = "http://127.0.0.1:1";
  assertEquals(witnessReports(cluster), "");
  const witness = { report: () => "The operator is still running." };
  addWitness(cluster, witness);
  assertEquals(witnessReports(cluster), "\nThe operator is still running.");
  removeWitness(cluster, witness);
  assertEquals(witnessReports(cluster), "");
});
