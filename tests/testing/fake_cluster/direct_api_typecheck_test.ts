/**
 * The direct API types what it returns: by a typed resource (with the types `kopf types`
 * generates), by a type argument (a `@kubernetes/client-node` model for built-ins), and
 * as `RawBody` otherwise — so that a test's misspelt field does not compile.
 */
import { assert, assertEquals, assertStringIncludes } from "../../assert.ts";
import { checkSnippets, MOD, TESTING } from "../../typecheck.ts";
import { generateTypesFromYaml } from "../../../src/commands/types.ts";

const WIDGETS = new URL("../../fixtures/crds/widgets.yaml", import.meta.url);

const HEAD = `
import { kopf, type RawBody } from "${MOD}";
import { FakeCluster, type FakeResource } from "${TESTING}";
import type { V1ConfigMap } from "@kubernetes/client-node";
import type { WidgetV1 } from "./widgets.ts";

await using cluster = await FakeCluster.start();
const widgets = kopf.resource<WidgetV1>("example.com", "v1", "widgets");
`;

const RIGHT = `${HEAD}
const size: "small" | "medium" | "large" | undefined = cluster.get(widgets, "w")?.spec.size;
const engine: string | undefined = cluster.get<V1ConfigMap>("configmaps", "x")?.data?.engine;
const sizes: string[] = cluster.list(widgets, { allNamespaces: true }).map((w) => w.spec.size);
const ready = await cluster.waitFor(widgets, "w", (w) => w?.status?.phase === "Running");
const phase: string | undefined = ready?.status?.phase;
const maps: V1ConfigMap[] = cluster.list<V1ConfigMap>("configmaps");
const seen = await cluster.waitFor("configmaps", "x", (cm: V1ConfigMap | undefined) => !!cm?.data);
const data: Record<string, string> | undefined = seen?.data;

// Untyped, as before: RawBody.
const raw: RawBody | undefined = cluster.get("configmaps", "x");
const byKind: RawBody[] = cluster.list({ apiVersion: "v1", kind: "ConfigMap" });
const some: FakeResource = "configmaps";
const viaVariable: RawBody | undefined = cluster.get(some, "x");
const untyped: RawBody | undefined = cluster.get(kopf.resource("configmaps"), "x");
const labelled: RawBody | undefined = await cluster.waitFor(
  "configmaps",
  "x",
  (cm) => cm?.metadata?.labels?.seen === "yes",
);
export { byKind, data, engine, labelled, maps, phase, raw, size, sizes, untyped, viaVariable };
`;

const WRONG = {
  misspelt: `${HEAD}\nexport const x = cluster.get(widgets, "w")?.spec.sise;\n`,
  builtin:
    `${HEAD}\nexport const n: number | undefined = cluster.get<V1ConfigMap>("configmaps", "x")?.data?.engine;\n`,
  waited: `${HEAD}\nawait cluster.waitFor(widgets, "w", (w) => w?.spec.size === "huge");\n`,
  listed: `${HEAD}\nexport const r = cluster.list(widgets).map((w) => w.spec.replica);\n`,
};

Deno.test("get, list and waitFor are typed by typed resources and type arguments; RawBody otherwise", async () => {
  const widgets = generateTypesFromYaml(await Deno.readTextFile(WIDGETS), "widgets.yaml");
  const result = await checkSnippets({ right: RIGHT, ...WRONG }, { "widgets.ts": widgets });
  assertEquals(result.errors.get("right"), undefined, result.output);
  assert(!result.ok);
  const first = (name: string) => {
    const errors = result.errors.get(name) ?? [];
    assertEquals(errors.length, 1, `${name}: ${result.output}`);
    return errors[0].first;
  };
  assertStringIncludes(first("misspelt"), "Property 'sise' does not exist on type 'WidgetV1Spec'");
  assertStringIncludes(
    first("builtin"),
    "Type 'string | undefined' is not assignable to type 'number | undefined'",
  );
  assertStringIncludes(first("waited"), `"large" | undefined' and '"huge"' have no overlap`);
  assertStringIncludes(first("listed"), "Property 'replica' does not exist on type 'WidgetV1Spec'");
  assertEquals([...result.errors.keys()].sort(), Object.keys(WRONG).sort(), result.output);
});
