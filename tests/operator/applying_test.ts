/**
 * `kopf.apply()` in a running operator: handlers apply their child through the operator's
 * own client (no client of their own), under the operator's field manager; a re-apply of
 * the same child stores nothing, a changed one updates it, and a field that another tool
 * took is taken back.
 */
import { assertEquals } from "../assert.ts";
import { kopf } from "../../mod.ts";
import type { ChangingKwargs } from "../../mod.ts";
import { on } from "../../src/intents/registration.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { Calls, clusterRegistry, handled, kex, startCluster, whileRunning } from "./harness.ts";

const OWNER_KIND = "kopf.zalando.org/owner-kind";

Deno.test("a create handler applies a child and update handlers re-apply it: stored only when it changes", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const versions = new Calls<string>();
  async function reconcile({ name, spec }: ChangingKwargs): Promise<void> {
    const applied = await kopf.apply({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `${name}-config` },
      data: { field: String(spec.field) },
    });
    versions.add(String(applied.metadata?.resourceVersion));
  }
  on.create("kopfexamples", { registry }, reconcile);
  on.update("kopfexamples", { registry }, reconcile);
  const configOf = () => cluster.get("configmaps", "p1-config", { namespace: "default" });
  await whileRunning(registry, async () => {
    const parent = cluster.create(kex("p1", { field: "one" }));
    await cluster.waitFor("kopfexamples", "p1", handled);
    await versions.until(1);
    const child = configOf();
    assertEquals(child?.data, { field: "one" });
    assertEquals(child?.metadata?.labels?.[OWNER_KIND], "KopfExample.kopf.dev");
    const owners = child?.metadata?.ownerReferences as { uid: string; controller: boolean }[];
    assertEquals(owners.map((o) => [o.uid, o.controller]), [[parent.metadata?.uid, true]]);
    const managers = child?.metadata?.managedFields as { manager: string; operation: string }[];
    assertEquals(managers.map((m) => `${m.manager} ${m.operation}`), ["kopf Apply"]);

    // A change that the child does not reflect: re-applied, nothing stored.
    const first = String(child?.metadata?.resourceVersion);
    cluster.patch("kopfexamples", "p1", { spec: { other: "x" } }, { namespace: "default" });
    await versions.until(2);
    assertEquals(versions.list[1], first);
    assertEquals(configOf()?.metadata?.resourceVersion, first);

    // Another tool changes the child's field; the next change of the parent takes it back.
    cluster.apply({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "p1-config", namespace: "default" },
      data: { field: "theirs" },
    }, { fieldManager: "gitops", force: true });
    cluster.patch("kopfexamples", "p1", { spec: { field: "two" } }, { namespace: "default" });
    await versions.until(3);
    assertEquals(configOf()?.data, { field: "two" });
    assertEquals(
      (configOf()?.metadata?.managedFields as RawBody[]).map((m) => m.manager),
      ["kopf"],
    );
  });
  // The handlers' applies were the only writes to the child: a create, then patches.
  const writes = cluster.requests.filter((r) => r.path.includes("/configmaps/p1-config"))
    .filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.status} ${r.query}`);
  assertEquals(writes, [
    "PATCH 201 fieldManager=kopf&force=true",
    "PATCH 200 fieldManager=kopf&force=true",
    "PATCH 200 fieldManager=kopf&force=true",
  ]);
});

Deno.test("each operator of a process applies through its own client; cleanup handlers too", async () => {
  await using one = await startCluster();
  await using two = await startCluster();
  const registries = [one, two].map((cluster, index) => {
    const registry = clusterRegistry(cluster);
    on.create("kopfexamples", { registry }, async ({ name }) => {
      await kopf.apply({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: `${name}-config` },
        data: { operator: String(index + 1) },
      });
    });
    kopf.on.cleanup({ registry }, async () => {
      await kopf.apply({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "farewell", namespace: "default" },
        data: { operator: String(index + 1) },
      }, { adopt: false }); // no object is handled: nothing to adopt it
    });
    return registry;
  });
  await whileRunning(registries[0], async () => {
    await whileRunning(registries[1], async () => {
      one.create(kex("p1"));
      two.create(kex("p2"));
      await one.waitFor("kopfexamples", "p1", handled);
      await two.waitFor("kopfexamples", "p2", handled);
    });
    const farewell = two.get("configmaps", "farewell", { namespace: "default" });
    assertEquals(farewell?.data, { operator: "2" });
  });
  assertEquals(one.get("configmaps", "p1-config", { namespace: "default" })?.data, {
    operator: "1",
  });
  assertEquals(two.get("configmaps", "p2-config", { namespace: "default" })?.data, {
    operator: "2",
  });
  assertEquals(one.get("configmaps", "farewell", { namespace: "default" })?.data, {
    operator: "1",
  });
  assertEquals(one.get("configmaps", "p2-config", { namespace: "default" }), undefined);
  assertEquals(two.get("configmaps", "p1-config", { namespace: "default" }), undefined);
});
