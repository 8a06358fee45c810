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

Deno.test("leases: a PUT must name the resourceVersion; a ConfigMap's may leave it out", async () => {
  await using cluster = await FakeCluster.start();
  const created = await call(cluster, "POST", LEASES, lease("l", { holderIdentity: "a" }));
  assertEquals(created.status, 201);
  const blind = await call(cluster, "PUT", `${LEASES}/l`, lease("l", { holderIdentity: "b" }));
  assertEquals([blind.status, blind.body.reason], [422, "Invalid"], JSON.stringify(blind.body));
  assertEquals(
    blind.body.message,
    'leases.coordination.k8s.io "l" is invalid: metadata.resourceVersion: Invalid value: 0x0: ' +
      "must be specified for an update",
  );
  assertEquals([blind.body.details.kind, blind.body.details.group], [
    "leases",
    "coordination.k8s.io",
  ]);
  const named = lease("l", { holderIdentity: "b" });
  const rv = created.body.metadata.resourceVersion;
  const renewed = await call(cluster, "PUT", `${LEASES}/l`, {
    ...named,
    metadata: { name: "l", resourceVersion: rv },
  });
  assertEquals([renewed.status, renewed.body.spec.holderIdentity], [200, "b"]);
  const cms = "/api/v1/namespaces/default/configmaps";
  const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { a: "1" } };
  assertEquals((await call(cluster, "POST", cms, cm)).status, 201);
  const unconditional = await call(cluster, "PUT", `${cms}/c`, { ...cm, data: { a: "2" } });
  assertEquals([unconditional.status, unconditional.body.data], [200, { a: "2" }]);
});
