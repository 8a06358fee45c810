/**
 * FakeCluster with `rbac: true` end to end over HTTP: requests decided by the roles as
 * they change, 403s in Kubernetes' words, the default roles, and the test API's
 * connection info and kubeconfig for other users' tokens.
 */
import { parse as parseYaml } from "yaml";
import { ConfigurationError } from "../../../src/structs/errors.ts";
import { FakeCluster } from "../../../src/testing/mod.ts";
import { assert, assertEquals, assertRejects } from "../../assert.ts";
import { call, exampleCrd } from "./helpers.ts";

const RBAC = "rbac.authorization.k8s.io";

Deno.test("rbac cluster: a user is refused until a role is bound, then allowed as it says", async () => {
  await using cluster = await FakeCluster.start({ rbac: true });
  assert(cluster.rbac);
  cluster.create(exampleCrd());
  cluster.create({ apiVersion: "kopf.dev/v1", kind: "KopfExample", metadata: { name: "e1" } });
  const op = { authorization: `Bearer ${cluster.tokenFor({ user: "op" })}` };
  const kex = "/apis/kopf.dev/v1/namespaces/default/kopfexamples";
  const before = await call(cluster, "GET", kex, undefined, op);
  assertEquals(before.status, 403);
  assertEquals(before.body, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message:
      'kopfexamples.kopf.dev is forbidden: User "op" cannot list resource "kopfexamples" in API group "kopf.dev" in the namespace "default"',
    reason: "Forbidden",
    details: { group: "kopf.dev", kind: "kopfexamples" },
    code: 403,
  });
  assertEquals(cluster.requests.at(-1)?.verb, "list", "the request log names the refused verb");
  cluster.create({
    apiVersion: `${RBAC}/v1`,
    kind: "Role",
    metadata: { name: "kex", namespace: "default" },
    rules: [{ apiGroups: ["kopf.dev"], resources: ["kopfexamples"], verbs: ["list", "patch"] }],
  });
  cluster.create({
    apiVersion: `${RBAC}/v1`,
    kind: "RoleBinding",
    metadata: { name: "op-kex", namespace: "default" },
    roleRef: { apiGroup: RBAC, kind: "Role", name: "kex" },
    subjects: [{ kind: "User", apiGroup: RBAC, name: "op" }],
  });
  assertEquals((await call(cluster, "GET", kex, undefined, op)).status, 200);
  const patched = await call(cluster, "PATCH", `${kex}/e1`, { metadata: { labels: { a: "b" } } }, {
    ...op,
    "content-type": "application/merge-patch+json",
  });
  assertEquals(patched.status, 200);
  const status = await call(cluster, "PATCH", `${kex}/e1/status`, { status: { x: 1 } }, {
    ...op,
    "content-type": "application/merge-patch+json",
  });
  assertEquals(status.status, 403);
  assertEquals(
    status.body.message,
    'kopfexamples.kopf.dev "e1" is forbidden: User "op" cannot patch resource "kopfexamples/status" in API group "kopf.dev" in the namespace "default"',
  );
  const elsewhere = await call(cluster, "GET", "/apis/kopf.dev/v1/kopfexamples", undefined, op);
  assertEquals(
    elsewhere.body.message,
    'kopfexamples.kopf.dev is forbidden: User "op" cannot list resource "kopfexamples" in API group "kopf.dev" at the cluster scope',
  );
  // Discovery works for every authenticated user (system:discovery).
  assertEquals((await call(cluster, "GET", "/apis/kopf.dev/v1", undefined, op)).status, 200);
  // Removing the binding takes the rights away at once.
  cluster.delete("rolebindings.rbac.authorization.k8s.io", "op-kex");
  assertEquals((await call(cluster, "GET", kex, undefined, op)).status, 403);
});

Deno.test("rbac cluster: a watch by name passes a rule with that resourceName; others do not", async () => {
  await using cluster = await FakeCluster.start({ rbac: true });
  cluster.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "mine" }, data: {} });
  cluster.create({
    apiVersion: `${RBAC}/v1`,
    kind: "ClusterRole",
    metadata: { name: "one-cm" },
    rules: [{
      apiGroups: [""],
      resources: ["configmaps"],
      resourceNames: ["mine"],
      verbs: ["get", "list", "watch"],
    }],
  });
  cluster.create({
    apiVersion: `${RBAC}/v1`,
    kind: "RoleBinding",
    metadata: { name: "alice-one-cm", namespace: "default" },
    roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "one-cm" },
    subjects: [{ kind: "User", apiGroup: RBAC, name: "alice" }],
  });
  const alice = { authorization: `Bearer ${cluster.tokenFor({ user: "alice" })}` };
  const cms = "/api/v1/namespaces/default/configmaps";
  assertEquals((await call(cluster, "GET", `${cms}/mine`, undefined, alice)).status, 200);
  const all = await call(cluster, "GET", cms, undefined, alice);
  assertEquals(all.status, 403);
  const one = await call(
    cluster,
    "GET",
    `${cms}?fieldSelector=metadata.name%3Dmine`,
    undefined,
    alice,
  );
  assertEquals([one.status, one.body.items.length], [200, 1]);
  const other = await call(
    cluster,
    "GET",
    `${cms}?watch=true&fieldSelector=metadata.name%3Dtheirs`,
    undefined,
    alice,
  );
  assertEquals(other.status, 403);
  assertEquals(
    other.body.message,
    'configmaps "theirs" is forbidden: User "alice" cannot watch resource "configmaps" in API group "" in the namespace "default"',
  );
});

Deno.test("rbac cluster: the default roles exist, and come back after a restart from state", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const state = `${dir}/state.json`;
    {
      await using cluster = await FakeCluster.start({ rbac: true, state });
      for (
        const name of [
          "cluster-admin",
          "system:discovery",
          "system:basic-user",
          "system:public-info-viewer",
        ]
      ) {
        assert(cluster.get("clusterroles.rbac.authorization.k8s.io", name), name);
        assert(cluster.get("clusterrolebindings.rbac.authorization.k8s.io", name), name);
      }
      cluster.delete("clusterroles.rbac.authorization.k8s.io", "system:discovery");
    }
    await using again = await FakeCluster.start({ rbac: true, state });
    assert(again.get("clusterroles.rbac.authorization.k8s.io", "system:discovery"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  await using plain = await FakeCluster.start();
  assertEquals(plain.list("clusterroles.rbac.authorization.k8s.io"), [], "none without rbac");
  assertEquals(plain.rbac, false);
});

Deno.test("rbac cluster: connection info and kubeconfigs for another user's token", async () => {
  await using cluster = await FakeCluster.start({ rbac: true, tls: true });
  const token = cluster.tokenFor({ user: "alice" });
  const info = cluster.connectionInfoFor(token);
  assertEquals([info.server, info.token, info.caData], [cluster.url, token, cluster.caCertificate]);
  assertEquals(info.certificateData, undefined);
  // deno-lint-ignore no-explicit-any
  const config = parseYaml(cluster.kubeconfigFor(token)) as any;
  assertEquals(config.users[0].user, { token });
  assertEquals(config.clusters[0].cluster.server, cluster.url);
  const path = await cluster.writeKubeconfig(undefined, { token });
  assertEquals(await Deno.readTextFile(path), cluster.kubeconfigFor(token));
});

Deno.test("rbac cluster: rbac needs a way to tell the admin from others", async () => {
  await assertRejects(
    () => FakeCluster.start({ rbac: true, token: false }),
    ConfigurationError,
    "keep a token",
  );
});
