import {
  formatFieldSelector,
  formatLabelSelector,
  type LabelRequirement,
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
  SelectorSyntaxError,
} from "../../src/structs/label_selectors.ts";
import { assert, assertEquals, assertThrows } from "../assert.ts";

Deno.test("label selectors: every form parses, and formats back as the API server reads it", () => {
  const text = "app=web,tier in (a,b),!legacy,owner,env!=prod,zone notin (x,y)";
  const parsed = parseLabelSelector(text);
  assertEquals(parsed, [
    { key: "app", op: "in", values: ["web"] },
    { key: "tier", op: "in", values: ["a", "b"] },
    { key: "legacy", op: "absent" },
    { key: "owner", op: "exists" },
    { key: "env", op: "notin", values: ["prod"] },
    { key: "zone", op: "notin", values: ["x", "y"] },
  ]);
  assertEquals(formatLabelSelector(parsed), text);
  assertEquals(parseLabelSelector("app==web, example.com/team = a"), [
    { key: "app", op: "in", values: ["web"] },
    { key: "example.com/team", op: "in", values: ["a"] },
  ]);
  assertEquals(parseLabelSelector(""), []);
  assertEquals(parseLabelSelector("empty="), [{ key: "empty", op: "in", values: [""] }]);
});

Deno.test("label selectors: a term that does not parse is named, with what is expected", () => {
  for (const bad of ["app=web server", "in (a", "a,,b", "Bad Key=x", "-x=y", "x in (a b)"]) {
    const error = assertThrows(() => parseLabelSelector(bad), SelectorSyntaxError);
    assert(error.message.includes("expected") || error.message.includes("empty term"), bad);
  }
  const error = assertThrows(() => parseLabelSelector("app=ok,tier=a b"), SelectorSyntaxError);
  assert(error.message.includes('"tier=a b"'), error.message);
});

Deno.test("label selectors match as the API server does: != and notin match a missing label", () => {
  const requirements: LabelRequirement[] = parseLabelSelector(
    "app in (web,api),!legacy,owner,env!=prod",
  );
  assert(matchesLabels(requirements, { app: "web", owner: "me" }));
  assert(matchesLabels(requirements, { app: "api", owner: "", env: "dev" }));
  assert(!matchesLabels(requirements, { app: "db", owner: "me" }));
  assert(!matchesLabels(requirements, { app: "web", owner: "me", legacy: "yes" }));
  assert(!matchesLabels(requirements, { app: "web" }));
  assert(!matchesLabels(requirements, { app: "web", owner: "me", env: "prod" }));
  assert(!matchesLabels(requirements, undefined));
  assert(matchesLabels([], undefined));
});

Deno.test("field selectors: parsed, escaped, and compared as text (a missing field is empty)", () => {
  const parsed = parseFieldSelector("status.phase=Running,spec.nodeName!=,metadata.name==a\\,b");
  assertEquals(parsed, [
    { field: "status.phase", op: "=", value: "Running" },
    { field: "spec.nodeName", op: "!=", value: "" },
    { field: "metadata.name", op: "=", value: "a,b" },
  ]);
  assertEquals(
    formatFieldSelector(parsed),
    "status.phase=Running,spec.nodeName!=,metadata.name=a\\,b",
  );
  const pod = { metadata: { name: "a,b" }, spec: { nodeName: "n1" }, status: { phase: "Running" } };
  assert(matchesFields(parsed, pod));
  assert(!matchesFields(parsed, { ...pod, spec: {} }));
  assert(matchesFields(parseFieldSelector("spec.replicas=3,spec.paused=false"), {
    spec: { replicas: 3, paused: false },
  }));
  assertThrows(() => parseFieldSelector("status.phase"), SelectorSyntaxError);
  assertThrows(() => parseFieldSelector("a b=c"), SelectorSyntaxError);
});
