/**
 * Escalation prevention: rules compared as the RBAC registry compares them, and writes
 * of roles and bindings over HTTP that grant more than the writer holds refused.
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import {
  compactRules,
  compactString,
  covers,
} from "../../../src/testing/fake_cluster/rbac_escalation.ts";
import type { JsonObject } from "../../../src/structs/bodies.ts";
import { assert, assertEquals } from "../../assert.ts";
import { call } from "./helpers.ts";

Deno.test("escalation: owner rules cover a servant's by verb, group, resource, name and URL", () => {
  const owner = [
    { apiGroups: [""], resources: ["pods", "*/status"], verbs: ["get", "list"] },
    { apiGroups: ["apps"], resources: ["*"], verbs: ["*"] },
    { apiGroups: [""], resources: ["secrets"], resourceNames: ["s1"], verbs: ["get"] },
    { nonResourceURLs: ["/logs/*"], verbs: ["get"] },
  ];
  const ok = (servant: object[]) => covers(owner, servant as never).covered;
  assert(ok([{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }]));
  assert(ok([{ apiGroups: [""], resources: ["pods/status"], verbs: ["list"] }]), "*/status");
  assert(ok([{ apiGroups: ["apps"], resources: ["deployments", "*"], verbs: ["delete"] }]));
  assert(ok([{ apiGroups: [""], resources: ["secrets"], resourceNames: ["s1"], verbs: ["get"] }]));
  assert(!ok([{ apiGroups: [""], resources: ["secrets"], verbs: ["get"] }]), "all secrets");
  assert(ok([{ nonResourceURLs: ["/logs/a"], verbs: ["get"] }]));
  assert(!ok([{ nonResourceURLs: ["/logs"], verbs: ["get"] }]));
  assert(!ok([{ apiGroups: ["*"], resources: ["pods"], verbs: ["get"] }]), "* is not covered");
  const { missing } = covers(owner, [
    { apiGroups: [""], resources: ["pods", "configmaps"], verbs: ["get", "delete"] },
  ]);
  assertEquals(missing.length, 3, "pods/delete, configmaps/get, configmaps/delete");
  assertEquals(
    compactRules(missing).map(compactString).sort(),
    [
      '{APIGroups:[""], Resources:["configmaps"], Verbs:["get" "delete"]}',
      '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}',
    ],
  );
});

const RBAC = "rbac.authorization.k8s.io";

function clusterRole(name: string, rules: JsonObject[]) {
  return { apiVersion: `${RBAC}/v1`, kind: "ClusterRole", metadata: { name }, rules };
}

function clusterBinding(name: string, role: string, user: string) {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: "ClusterRoleBinding",
    metadata: { name },
    roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: role },
    subjects: [{ kind: "User", apiGroup: RBAC, name: user }],
  };
}

function roleBinding(name: string, role: string, user: string, namespace = "default") {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: "RoleBinding",
    metadata: { name, namespace },
    roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: role },
    subjects: [{ kind: "User", apiGroup: RBAC, name: user }],
  };
}

Deno.test("escalation: a user may write roles and bindings only with what it holds", async () => {
  await using cluster = await FakeCluster.start({ rbac: true });
  cluster.create(clusterRole("rbac-writer", [
    { apiGroups: [RBAC], resources: ["roles", "rolebindings"], verbs: ["create", "update"] },
    { apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] },
  ]));
  cluster.create(clusterBinding("alice-writes", "rbac-writer", "alice"));
  cluster.create(
    clusterRole("pod-reader", [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }]),
  );
  const alice = { authorization: `Bearer ${cluster.tokenFor({ user: "alice" })}` };
  const roles = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles";
  const held = {
    metadata: { name: "held" },
    rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }],
  };
  assertEquals((await call(cluster, "POST", roles, held, alice)).status, 201);
  const more = {
    metadata: { name: "more" },
    rules: [{ apiGroups: [""], resources: ["configmaps", "secrets"], verbs: ["get", "delete"] }],
  };
  const refused = await call(cluster, "POST", roles, more, alice);
  assertEquals(refused.status, 403);
  assertEquals(refused.body.reason, "Forbidden");
  assertEquals(
    refused.body.message,
    'roles.rbac.authorization.k8s.io "more" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
      '{APIGroups:[""], Resources:["configmaps"], Verbs:["delete"]}\n' +
      '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}',
  );
  assertEquals(refused.body.details, { name: "more", group: RBAC, kind: "roles" });
  assertEquals(cluster.get("roles.rbac.authorization.k8s.io", "more"), undefined);
  // Widening a held role by an update is refused too.
  const widened = { ...held, metadata: { name: "held" }, rules: more.rules };
  assertEquals((await call(cluster, "PUT", `${roles}/held`, widened, alice)).status, 403);

  // Binding a role whose rules alice lacks needs `bind` on it.
  const bindings = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings";
  const bindPods = roleBinding("pods", "pod-reader", "bob");
  const noBind = await call(cluster, "POST", bindings, bindPods, alice);
  assertEquals(noBind.status, 403);
  assertEquals(
    noBind.body.message,
    'rolebindings.rbac.authorization.k8s.io "pods" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
      '{APIGroups:[""], Resources:["pods"], Verbs:["get"]}',
  );
  cluster.create(clusterRole("binder", [{
    apiGroups: [RBAC],
    resources: ["clusterroles"],
    resourceNames: ["pod-reader"],
    verbs: ["bind"],
  }]));
  cluster.create(clusterBinding("alice-binds", "binder", "alice"));
  assertEquals((await call(cluster, "POST", bindings, bindPods, alice)).status, 201);
  const missing = await call(cluster, "POST", bindings, roleBinding("x", "nope", "bob"), alice);
  assertEquals(missing.status, 404);
  assertEquals(missing.body.message, 'clusterroles.rbac.authorization.k8s.io "nope" not found');

  // `escalate` lets a user write any rules into roles.
  cluster.create(clusterRole("escalator", [
    { apiGroups: [RBAC], resources: ["roles"], verbs: ["escalate"] },
  ]));
  cluster.create(clusterBinding("alice-escalates", "escalator", "alice"));
  assertEquals((await call(cluster, "POST", roles, more, alice)).status, 201);
  // The admin (system:masters) is never checked.
  const admin = await call(cluster, "POST", roles, { ...more, metadata: { name: "admin's" } });
  assertEquals(admin.status, 201);
});
