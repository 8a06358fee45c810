/**
 * Server-side apply end to end with `@kubernetes/client-node`: `KubernetesObjectApi.patch`
 * with `PatchStrategy.ServerSideApply` creates, updates and fails on another manager's
 * fields with a 409 unless forced.
 */
import * as k8s from "@kubernetes/client-node";
import { FakeCluster } from "../../../src/testing/mod.ts";
import { assertEquals, assertRejects, assertStringIncludes } from "../../assert.ts";

function configMap(data: Record<string, string>): k8s.KubernetesObject & { data: object } {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cm", namespace: "default" },
    data,
  };
}

Deno.test("client-node: server-side apply creates, updates, conflicts and forces", async () => {
  await using cluster = await FakeCluster.start({ tls: true });
  const kc = new k8s.KubeConfig();
  kc.loadFromString(cluster.kubeconfig);
  const api = k8s.KubernetesObjectApi.makeApiClient(kc);
  const ssa = k8s.PatchStrategy.ServerSideApply;
  const created = await api.patch(configMap({ a: "1" }), undefined, undefined, "alice", false, ssa);
  assertEquals(created.metadata?.managedFields?.map((e) => [e.manager, e.operation]), [
    ["alice", "Apply"],
  ]);
  await api.patch(configMap({ a: "1", b: "2" }), undefined, undefined, "alice", false, ssa);
  assertEquals(cluster.get("configmaps", "cm")?.data, { a: "1", b: "2" });
  const error = await assertRejects(() =>
    api.patch(configMap({ a: "9" }), undefined, undefined, "bob", false, ssa)
  );
  assertEquals((error as { code?: number }).code, 409);
  assertStringIncludes(
    String((error as { body?: unknown }).body),
    'Apply failed with 1 conflict: conflict with \\"alice\\": .data.a',
  );
  const forced = await api.patch(configMap({ a: "9" }), undefined, undefined, "bob", true, ssa);
  assertEquals((forced as { data?: object }).data, { a: "9", b: "2" });
  const dry = await api.patch(configMap({ a: "0" }), undefined, "All", "bob", false, ssa);
  assertEquals((dry as { data?: object }).data, { a: "0", b: "2" });
  assertEquals(cluster.get("configmaps", "cm")?.data, { a: "9", b: "2" });
});
