/**
 * The review APIs over HTTP with RBAC on: access reviews (self, subject, local), the
 * self rules review, the self subject review and token reviews; what discovery lists.
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import { assert, assertEquals } from "../../assert.ts";
import { call } from "./helpers.ts";

const RBAC = "rbac.authorization.k8s.io";
const AUTHZ = "/apis/authorization.k8s.io/v1";

async function clusterWithReader(): Promise<FakeCluster> {
  const cluster = await FakeCluster.start({ rbac: true });
  cluster.create({
    apiVersion: `${RBAC}/v1`,
    kind: "Role",
    metadata: { name: "reader", namespace: "default" },
    rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] }],
  });
  cluster.create({
    apiVersion: `${RBAC}/v1`,
    kind: "RoleBinding",
    metadata: { name: "alice-reads", namespace: "default" },
    roleRef: { apiGroup: RBAC, kind: "Role", name: "reader" },
    subjects: [{ kind: "User", apiGroup: RBAC, name: "alice" }],
  });
  return cluster;
}

const access = (verb: string, resource: string, namespace = "default") => ({
  apiVersion: "authorization.k8s.io/v1",
  kind: "SelfSubjectAccessReview",
  spec: { resourceAttributes: { verb, resource, namespace } },
});

Deno.test("reviews: a SelfSubjectAccessReview answers for the caller, with the reason", async () => {
  await using cluster = await clusterWithReader();
  const alice = { authorization: `Bearer ${cluster.tokenFor({ user: "alice" })}` };
  const yes = await call(
    cluster,
    "POST",
    `${AUTHZ}/selfsubjectaccessreviews`,
    access("list", "configmaps"),
    alice,
  );
  assertEquals(yes.status, 201);
  assertEquals(yes.body.kind, "SelfSubjectAccessReview");
  assertEquals(yes.body.spec, access("list", "configmaps").spec);
  assertEquals(yes.body.status, {
    allowed: true,
    reason: 'RBAC: allowed by RoleBinding "alice-reads/default" of Role "reader" to User "alice"',
  });
  const no = await call(
    cluster,
    "POST",
    `${AUTHZ}/selfsubjectaccessreviews`,
    access("delete", "configmaps"),
    alice,
  );
  assertEquals(no.body.status, { allowed: false });
  const path = await call(cluster, "POST", `${AUTHZ}/selfsubjectaccessreviews`, {
    spec: { nonResourceAttributes: { verb: "get", path: "/version" } },
  }, alice);
  assertEquals(path.body.status.allowed, true, "system:public-info-viewer");
  const neither = await call(cluster, "POST", `${AUTHZ}/selfsubjectaccessreviews`, {
    spec: {},
  }, alice);
  assertEquals(neither.status, 422);
  assertEquals(
    neither.body.message,
    'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified',
  );
  const listed = await call(cluster, "GET", `${AUTHZ}/selfsubjectaccessreviews`);
  assertEquals(listed.status, 405, "reviews are create-only");
});

Deno.test("reviews: SubjectAccessReview and LocalSubjectAccessReview ask about another user", async () => {
  await using cluster = await clusterWithReader();
  const review = (spec: object) => call(cluster, "POST", `${AUTHZ}/subjectaccessreviews`, { spec });
  const attrs = { verb: "get", resource: "configmaps", namespace: "default" };
  assertEquals(
    (await review({ user: "alice", resourceAttributes: attrs })).body.status.allowed,
    true,
  );
  assertEquals(
    (await review({ user: "bob", resourceAttributes: attrs })).body.status.allowed,
    false,
  );
  const nobody = await review({ resourceAttributes: attrs });
  assertEquals(nobody.status, 422);
  assertEquals(
    nobody.body.message,
    'SubjectAccessReview.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified',
  );
  const local = `${AUTHZ}/namespaces/default/localsubjectaccessreviews`;
  const ok = await call(cluster, "POST", local, {
    spec: { user: "alice", resourceAttributes: attrs },
  });
  assertEquals([ok.status, ok.body.status.allowed, ok.body.metadata.namespace], [
    201,
    true,
    "default",
  ]);
  const elsewhere = await call(cluster, "POST", local, {
    spec: { user: "alice", resourceAttributes: { ...attrs, namespace: "kube-system" } },
  });
  assertEquals(elsewhere.status, 422);
  const defaulted = await call(cluster, "POST", local, {
    spec: { user: "alice", resourceAttributes: { ...attrs, namespace: "" } },
  });
  assertEquals(defaulted.body.status.allowed, true, "an empty namespace is the review's own");
  // Only those allowed to create SubjectAccessReviews may ask about others.
  const alice = { authorization: `Bearer ${cluster.tokenFor({ user: "alice" })}` };
  const denied = await call(cluster, "POST", `${AUTHZ}/subjectaccessreviews`, {
    spec: { user: "bob", resourceAttributes: attrs },
  }, alice);
  assertEquals(denied.status, 403);
});

Deno.test("reviews: SelfSubjectRulesReview lists the caller's rules in a namespace", async () => {
  await using cluster = await clusterWithReader();
  const alice = { authorization: `Bearer ${cluster.tokenFor({ user: "alice" })}` };
  const rules = async (namespace: string) =>
    (await call(
      cluster,
      "POST",
      `${AUTHZ}/selfsubjectrulesreviews`,
      { spec: { namespace } },
      alice,
    ))
      .body.status;
  const here = await rules("default");
  assert(
    here.resourceRules.some((r: { resources: string[]; verbs: string[] }) =>
      r.resources[0] === "configmaps" && r.verbs.join() === "get,list"
    ),
    JSON.stringify(here.resourceRules),
  );
  assert(here.nonResourceRules.length > 0, "discovery and public info");
  assertEquals(here.incomplete, false);
  const elsewhere = await rules("kube-system");
  assert(
    !elsewhere.resourceRules.some((r: { resources: string[] }) =>
      r.resources.includes("configmaps")
    ),
  );
});

Deno.test("reviews: SelfSubjectReview says who the caller is; TokenReview whose a token is", async () => {
  await using cluster = await clusterWithReader();
  const token = cluster.tokenFor({ user: "alice", groups: ["devs"] });
  const whoami = await call(
    cluster,
    "POST",
    "/apis/authentication.k8s.io/v1/selfsubjectreviews",
    { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
    { authorization: `Bearer ${token}` },
  );
  assertEquals(whoami.status, 201);
  assertEquals(whoami.body.status.userInfo, {
    username: "alice",
    groups: ["devs", "system:authenticated"],
  });
  const review = await call(cluster, "POST", "/apis/authentication.k8s.io/v1/tokenreviews", {
    spec: { token },
  });
  assertEquals(review.body.status.authenticated, true);
  assertEquals(review.body.status.user.username, "alice");
  const bad = await call(cluster, "POST", "/apis/authentication.k8s.io/v1/tokenreviews", {
    spec: { token: "nonsense" },
  });
  assertEquals(bad.body.status, { user: {}, error: "invalid bearer token" });
});

Deno.test("reviews: discovery lists them with RBAC only; without it they are not served", async () => {
  await using cluster = await FakeCluster.start({ rbac: true });
  const list = await call(cluster, "GET", AUTHZ);
  const names = list.body.resources.map((r: { name: string }) => r.name).sort();
  assertEquals(names, [
    "localsubjectaccessreviews",
    "selfsubjectaccessreviews",
    "selfsubjectrulesreviews",
    "subjectaccessreviews",
  ]);
  assert(list.body.resources.every((r: { verbs: string[] }) => r.verbs.join() === "create"));
  const core = await call(cluster, "GET", "/api/v1");
  const token = core.body.resources.find((r: { name: string }) =>
    r.name === "serviceaccounts/token"
  );
  assertEquals(token, {
    name: "serviceaccounts/token",
    singularName: "",
    namespaced: true,
    group: "authentication.k8s.io",
    version: "v1",
    kind: "TokenRequest",
    verbs: ["create"],
  });
  await using plain = await FakeCluster.start();
  assertEquals((await call(plain, "GET", AUTHZ)).status, 404);
  const before = await call(
    plain,
    "POST",
    `${AUTHZ}/selfsubjectaccessreviews`,
    access("get", "pods"),
  );
  assertEquals(before.status, 404);
});
