/**
 * Leases over HTTP as kube-apiserver validates them: the coordinated-leader-election
 * `strategy` and the `preferredHolder` that needs one.
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import { assertEquals, assertStringIncludes } from "../../assert.ts";
import { call } from "./helpers.ts";

const LEASES = "/apis/coordination.k8s.io/v1/namespaces/default/leases";

function lease(name: string, spec: Record<string, unknown>) {
  return { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name }, spec };
}

Deno.test("leases: a strategy must be known or a qualified name; a preferredHolder needs a strategy", async () => {
  await using cluster = await FakeCluster.start();
  const refused = async (spec: Record<string, unknown>, text: string) => {
    const reply = await call(cluster, "POST", LEASES, lease("l", spec));
    assertEquals([reply.status, reply.body.reason], [422, "Invalid"], JSON.stringify(reply.body));
    assertStringIncludes(reply.body.message, text);
  };
  await refused(
    { strategy: "Newest" },
    `spec.strategy.strategy: Unsupported value: "Newest": supported values: "OldestEmulationVersion"`,
  );
  await refused(
    { strategy: "example.com/not a name" },
    `spec.strategy.strategy: Invalid value: "example.com/not a name": name part must consist of`,
  );
  await refused(
    { holderIdentity: "a", preferredHolder: "b" },
    "spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined",
  );
  for (
    const [name, strategy] of [["known", "OldestEmulationVersion"], ["own", "example.com/mine"]]
  ) {
    const spec = { holderIdentity: "a", strategy, preferredHolder: "b" };
    const created = await call(cluster, "POST", LEASES, lease(name, spec));
    assertEquals(created.status, 201, JSON.stringify(created.body));
  }
});
