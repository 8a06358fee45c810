/**
 * Deletion over HTTP as kube-apiserver's registry does it: an explicit propagation policy
 * replaces the `orphan` and `foregroundDeletion` finalizers an object already has.
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import { assertEquals } from "../../assert.ts";
import { call, configMap } from "./helpers.ts";

const CMS = "/api/v1/namespaces/default/configmaps";

/** An owner with these finalizers, and a dependent of it. */
async function ownerAndDependent(cluster: FakeCluster, finalizers: string[]): Promise<void> {
  const owner = await call(cluster, "POST", CMS, configMap("owner", {}, { finalizers }));
  assertEquals(owner.status, 201, JSON.stringify(owner.body));
  const ref = { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.body.metadata.uid };
  const dependent = configMap("dependent", {}, { ownerReferences: [ref] });
  assertEquals((await call(cluster, "POST", CMS, dependent)).status, 201);
}

Deno.test("deletion: an explicit propagation policy replaces the orphan and foregroundDeletion finalizers", async (t) => {
  await t.step(
    "Background drops orphan: the owner goes at once, its dependent is collected",
    async () => {
      await using cluster = await FakeCluster.start();
      await ownerAndDependent(cluster, ["orphan"]);
      const deleted = await call(cluster, "DELETE", `${CMS}/owner`, {
        propagationPolicy: "Background",
      });
      assertEquals(
        [deleted.status, deleted.body.kind],
        [200, "Status"],
        JSON.stringify(deleted.body),
      );
      await cluster.waitFor("configmaps", "dependent", (o) => o === undefined, { timeout: 5 });
      assertEquals((await call(cluster, "GET", `${CMS}/owner`)).status, 404);
    },
  );

  await t.step(
    "Orphan replaces foregroundDeletion: the dependent stays, without the reference",
    async () => {
      await using cluster = await FakeCluster.start();
      await ownerAndDependent(cluster, ["foregroundDeletion", "example.com/hold"]);
      const deleted = await call(cluster, "DELETE", `${CMS}/owner`, {
        propagationPolicy: "Orphan",
      });
      assertEquals(deleted.status, 200, JSON.stringify(deleted.body));
      const dependent = await cluster.waitFor(
        "configmaps",
        "dependent",
        (o) => !o?.metadata?.ownerReferences,
        { timeout: 5 },
      );
      assertEquals(dependent?.metadata?.name, "dependent");
      const owner = await call(cluster, "GET", `${CMS}/owner`);
      assertEquals(owner.body.metadata.finalizers, ["example.com/hold"]);
    },
  );

  await t.step("without a policy, the finalizers stay as they are", async () => {
    await using cluster = await FakeCluster.start();
    await ownerAndDependent(cluster, ["example.com/hold", "orphan"]);
    assertEquals((await call(cluster, "DELETE", `${CMS}/owner`)).status, 200);
    const dependent = await call(cluster, "GET", `${CMS}/dependent`);
    assertEquals([dependent.status, dependent.body.metadata.ownerReferences], [200, undefined]);
  });
});
