/**
 * The direct API addresses typed resources (`kopf.resource<T>(…)`) as the operator's
 * watches resolve them: by name, group and version, the core group winning, an ambiguous
 * or unserved one refused with the selector named.
 */
import { kopf } from "../../../mod.ts";
import { FakeApiError, FakeCluster } from "../../../src/testing/mod.ts";
import { assertEquals, assertThrows } from "../../assert.ts";
import { configMap, exampleCrd } from "./helpers.ts";

interface KopfExample {
  apiVersion: "kopf.dev/v1";
  kind: "KopfExample";
  metadata?: { name?: string; namespace?: string; [key: string]: unknown };
  spec?: { field?: string; replicas?: number };
  status?: { [key: string]: unknown };
}

Deno.test("typed resources address objects in every direct call, typed as their T", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(exampleCrd());
  cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "ns" } });
  const kex = kopf.resource<KopfExample>("kopf.dev", "v1", "kopfexamples");
  const ready = cluster.waitFor(kex, "e", (o) => o?.spec?.field === "ready", { namespace: "ns" });
  cluster.create({
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name: "e", namespace: "ns" },
    spec: { field: "new" },
  });
  assertEquals(cluster.get(kex, "e"), undefined, "the default namespace has none");
  assertEquals(cluster.get(kex, "e", { namespace: "ns" })?.spec?.replicas, 1);
  assertEquals(cluster.list(kex, { allNamespaces: true }).map((o) => o.metadata?.name), ["e"]);
  cluster.patch(kex, "e", { spec: { field: "ready" } }, { namespace: "ns" });
  assertEquals((await ready)?.spec?.field, "ready");
  assertEquals(cluster.delete(kex, "e", { namespace: "ns" }), undefined);
  assertEquals(cluster.list(kex, { allNamespaces: true }), []);
});

Deno.test("typed resources resolve by plural, short name, group/version and the core group", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(exampleCrd());
  cluster.create({ apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: { name: "e" } });
  cluster.create(configMap("c", { engine: "v8" }));
  for (
    const resource of [
      kopf.resource("kopfexamples"),
      kopf.resource("kex"),
      kopf.resource("kopf.dev", "KopfExample"),
      kopf.resource("kopf.dev/v1", "kopfexample"),
      kopf.resource("kopfexamples.v1.kopf.dev"),
    ]
  ) {
    assertEquals(cluster.get(resource, "e")?.metadata?.name, "e", String(resource));
  }
  for (const resource of [kopf.resource("configmaps"), kopf.resource("v1", "cm")]) {
    assertEquals(cluster.get(resource, "c")?.data, { engine: "v8" }, String(resource));
  }
});

Deno.test("a typed resource the cluster does not serve, or serves twice, is refused by name", async () => {
  await using cluster = await FakeCluster.start();
  assertThrows(
    () => cluster.get(kopf.resource("kopf.dev", "v1", "kopfexamples"), "e"),
    FakeApiError,
    'the cluster serves no resource that kopf.resource("kopf.dev", "v1", "kopfexamples") selects',
  );
  cluster.create(exampleCrd());
  const other = exampleCrd();
  other.metadata.name = "kopfexamples.example.com";
  other.spec.group = "example.com";
  cluster.create(other);
  assertThrows(
    () => cluster.list(kopf.resource("kopfexamples")),
    FakeApiError,
    "The selector kopfexamples is ambiguous",
  );
  assertEquals(cluster.list(kopf.resource("example.com", "kopfexamples")), []);
});
