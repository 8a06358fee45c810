/**
 * Authentication with RBAC on: the admin token, other users' tokens, anonymous requests,
 * bad tokens, and impersonation headers (allowed only to those who may `impersonate`).
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import { assertEquals } from "../../assert.ts";
import { call } from "./helpers.ts";

const RBAC = "rbac.authorization.k8s.io";
const WHOAMI = "/apis/authentication.k8s.io/v1/selfsubjectreviews";

async function whoami(cluster: FakeCluster, headers: Record<string, string> = {}) {
  const reply = await call(cluster, "POST", WHOAMI, { spec: {} }, headers);
  return reply.status === 201 ? reply.body.status.userInfo : reply.body;
}

Deno.test("authentication: the admin token is system:masters; no credentials is anonymous", async () => {
  await using cluster = await FakeCluster.start({ rbac: true });
  assertEquals(typeof cluster.token, "string", "RBAC makes an admin token up, even over HTTP");
  assertEquals(await whoami(cluster), {
    username: "admin",
    groups: ["system:masters", "system:authenticated"],
  });
  const anonymous = await fetch(`${cluster.url}/api/v1/namespaces/default/pods`);
  assertEquals(anonymous.status, 403);
  assertEquals(
    (await anonymous.json()).message,
    'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" in the namespace "default"',
  );
  const version = await fetch(`${cluster.url}/version`);
  assertEquals(version.status, 200, "system:public-info-viewer is bound to the unauthenticated");
  await version.body?.cancel();
  const apis = await fetch(`${cluster.url}/apis`);
  assertEquals(apis.status, 403, "discovery is for authenticated users");
  assertEquals(
    (await apis.json()).message,
    'forbidden: User "system:anonymous" cannot get path "/apis"',
  );
  const bad = await fetch(`${cluster.url}/version`, { headers: { authorization: "Bearer nope" } });
  assertEquals(bad.status, 401, "a bad token is refused, not taken for anonymous");
  await bad.body?.cancel();
});

Deno.test("authentication: the admin may impersonate users, groups and service accounts", async () => {
  await using cluster = await FakeCluster.start({ rbac: true });
  assertEquals(await whoami(cluster, { "impersonate-user": "bob" }), {
    username: "bob",
    groups: ["system:authenticated"],
  });
  // Named groups are all the groups: system:authenticated is not added then.
  const headers = new Headers({ "impersonate-user": "bob" });
  headers.append("impersonate-group", "devs");
  headers.append("impersonate-group", "system:authenticated");
  assertEquals(await whoami(cluster, Object.fromEntries(headers)), {
    username: "bob",
    groups: ["devs", "system:authenticated"],
  });
  const devsOnly = await whoami(cluster, {
    "impersonate-user": "bob",
    "impersonate-group": "devs",
  });
  assertEquals(devsOnly.code, 403, "bob in devs only is not even a basic user");
  assertEquals(await whoami(cluster, { "impersonate-user": "system:serviceaccount:ns1:op" }), {
    username: "system:serviceaccount:ns1:op",
    groups: ["system:serviceaccounts", "system:serviceaccounts:ns1", "system:authenticated"],
  });
  // What the impersonated user may do is what counts.
  const pods = await call(cluster, "GET", "/api/v1/namespaces/default/pods", undefined, {
    "impersonate-user": "bob",
  });
  assertEquals(pods.status, 403);
  assertEquals(
    pods.body.message,
    'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"',
  );
  const groupsOnly = await call(cluster, "GET", "/version", undefined, {
    "impersonate-group": "devs",
  });
  assertEquals(groupsOnly.status, 400);
});

Deno.test("authentication: impersonating needs the impersonate verb on the user, group or account", async () => {
  await using cluster = await FakeCluster.start({ rbac: true });
  const alice = { authorization: `Bearer ${cluster.tokenFor({ user: "alice" })}` };
  const refused = await call(cluster, "POST", WHOAMI, { spec: {} }, {
    ...alice,
    "impersonate-user": "bob",
  });
  assertEquals(refused.status, 403);
  assertEquals(
    refused.body.message,
    'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
  );
  cluster.create({
    apiVersion: `${RBAC}/v1`,
    kind: "ClusterRole",
    metadata: { name: "impersonator" },
    rules: [
      { apiGroups: [""], resources: ["users"], resourceNames: ["bob"], verbs: ["impersonate"] },
    ],
  });
  cluster.create({
    apiVersion: `${RBAC}/v1`,
    kind: "ClusterRoleBinding",
    metadata: { name: "alice-impersonates" },
    roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "impersonator" },
    subjects: [{ kind: "User", apiGroup: RBAC, name: "alice" }],
  });
  assertEquals((await whoami(cluster, { ...alice, "impersonate-user": "bob" })).username, "bob");
  const asSa = await call(cluster, "POST", WHOAMI, { spec: {} }, {
    ...alice,
    "impersonate-user": "system:serviceaccount:default:op",
  });
  assertEquals(
    asSa.body.message,
    'serviceaccounts "op" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "default"',
  );
});
