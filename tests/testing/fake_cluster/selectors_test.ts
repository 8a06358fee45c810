/**
 * Label and field selectors of the fake API server: what they match, what they refuse,
 * and the name and namespace that field selectors pin.
 */
import {
  parseFieldSelector,
  parseLabelSelector,
  pinnedBy,
  withName,
} from "../../../src/testing/fake_cluster/selectors.ts";
import { ApiError } from "../../../src/testing/fake_cluster/errors.ts";
import type { JsonObject } from "../../../src/structs/bodies.ts";
import { assertEquals, assertMatch, assertThrows } from "../../assert.ts";
import { patternOf, quote } from "../../doc_quotes.ts";

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

/** A built-in namespaced kind, or a custom resource, as the field selectors see it. */
const POD = { kind: "Pod", builtin: true, namespaced: true };
const builtin = (kind: string) => ({ kind, builtin: true, namespaced: true });

Deno.test("field selectors: supported fields only, = and !=", async () => {
  const sel = parseFieldSelector("metadata.name=x,status.phase!=Running", ["status.phase"], POD);
  assertEquals(sel({ metadata: { name: "x" }, status: { phase: "Pending" } }), true);
  assertEquals(sel({ metadata: { name: "x" }, status: { phase: "Running" } }), false);
  assertEquals(sel({ metadata: { name: "x" } }), true, "an absent field is the empty string");
  const deep = parseFieldSelector(
    "spec.n=3,spec.list.a=",
    ["spec.n", "spec.list.a"],
    builtin("Kind"),
  );
  assertEquals(deep({ spec: { n: 3, list: [{ a: "1" }] } }), true, "numbers as text; no arrays");
  assertEquals(deep({ spec: { n: 4 } }), false);
  const error = assertThrows(
    () => parseFieldSelector("spec.x=1", [], builtin("ConfigMap")),
    ApiError,
  );
  assertEquals(error.code, 400);
  // As docs/fidelity.md quotes it (of a field X of a Kind).
  const words = await quote("fidelity.md", "field label not supported: X (");
  assertMatch(error.message, patternOf(words.replace("X", "spec.x").replace("Kind", "ConfigMap")));
});

Deno.test("a cluster-scoped custom resource is not selected by its namespace, as there", () => {
  // crConverter.ConvertFieldLabel: metadata.namespace only where the resource is namespaced.
  const clustered = { kind: "Cluster", builtin: false, namespaced: false };
  const error = assertThrows(
    () => parseFieldSelector("metadata.namespace=x", [], clustered),
    ApiError,
  );
  assertEquals(error.code, 400);
  assertMatch(
    error.message,
    /^field label not supported: metadata\.namespace \(Cluster supports metadata\.name\)/,
  );
  assertEquals(
    parseFieldSelector("metadata.name=x", [], clustered)({ metadata: { name: "x" } }),
    true,
  );
  const namespaced = { kind: "KopfExample", builtin: false, namespaced: true };
  assertEquals(
    parseFieldSelector("metadata.namespace=x", [], namespaced)({ metadata: { namespace: "x" } }),
    true,
  );
});

Deno.test("field selectors tell the name and namespace they require, and only those", () => {
  const fields = (text: string) => parseFieldSelector(text, ["status.phase"], POD);
  assertEquals(pinnedBy(fields("metadata.name=a,status.phase!=Running")), { name: "a" });
  assertEquals(pinnedBy(fields("metadata.name==a,metadata.namespace=ns")), {
    name: "a",
    namespace: "ns",
  });
  assertEquals(pinnedBy(fields("metadata.name!=a")), {});
  assertEquals(pinnedBy(fields("status.phase=Running")), {});
  assertEquals(pinnedBy(fields("")), {});
  const named = withName(fields("metadata.namespace=ns"), "b");
  assertEquals(pinnedBy(named), { name: "b", namespace: "ns" });
  assertEquals(named({ metadata: { name: "b", namespace: "ns" } }), true);
  assertEquals(named({ metadata: { name: "a", namespace: "ns" } }), false);
  assertEquals(named({ metadata: { name: "b", namespace: "other" } }), false);
});
