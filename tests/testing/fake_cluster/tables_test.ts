/**
 * Table cells rendered like kubectl's: ages and JSONPath; the default table of
 * kube-apiserver (CRDs, roles) with its creation time; creation times of what the cluster
 * makes at its start.
 */
import { humanDuration, jsonPath } from "../../../src/testing/fake_cluster/tables.ts";
import { FakeCluster } from "../../../src/testing/mod.ts";
import { assert, assertEquals, assertMatch } from "../../assert.ts";
import { call, exampleCrd } from "./helpers.ts";

const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

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

Deno.test("CRDs and roles are tabled as kube-apiserver's default: Created At as RFC 3339, no Age", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(exampleCrd());
  cluster.create({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: "reader" },
    rules: [],
  });
  const tableOf = async (path: string) =>
    (await call(cluster, "GET", path, undefined, { accept: TABLE })).body;
  for (
    const [path, name] of [
      ["/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "kopfexamples.kopf.dev"],
      ["/apis/rbac.authorization.k8s.io/v1/clusterroles", "reader"],
    ]
  ) {
    const table = await tableOf(path);
    assertEquals(
      table.columnDefinitions.map((c: { name: string; type: string }) => [c.name, c.type]),
      [["Name", "string"], ["Created At", "date"]],
      path,
    );
    const row = table.rows.find((r: { cells: string[] }) => r.cells[0] === name);
    assertEquals(row.cells[1], row.object.metadata.creationTimestamp);
    assertMatch(row.cells[1], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  }
  // Kinds with printers of their own still show the age.
  const namespaces = await tableOf("/api/v1/namespaces");
  assertEquals(namespaces.columnDefinitions.at(-1).name, "Age");
});

Deno.test("what the cluster makes at its start has a creation time, kept across a restart", async () => {
  const dir = await Deno.makeTempDir();
  const state = `${dir}/state.json`;
  const before = Date.now() - 1000;
  try {
    let first: string | undefined;
    {
      await using cluster = await FakeCluster.start({ rbac: true, state });
      for (
        const [resource, name] of [
          ["namespaces", "default"],
          ["namespaces", "kube-system"],
          ["clusterroles", "cluster-admin"],
          ["clusterrolebindings", "system:discovery"],
        ]
      ) {
        const created = cluster.get(resource, name)?.metadata?.creationTimestamp;
        assert(typeof created === "string", `${resource}/${name}`);
        const time = Date.parse(created);
        assert(time >= before && time <= Date.now(), `${resource}/${name}: ${created}`);
      }
      first = cluster.get("namespaces", "default")?.metadata?.creationTimestamp;
    }
    await using again = await FakeCluster.start({ rbac: true, state });
    assertEquals(again.get("namespaces", "default")?.metadata?.creationTimestamp, first);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
