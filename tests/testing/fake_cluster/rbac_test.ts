/**
 * The RBAC authorizer against Kubernetes' documented semantics: deny by default, rules
 * that add up, bindings' reach, subjects, groups, resources, subresources,
 * resourceNames, verbs, `*`, nonResourceURLs; and the API server's 403 wording.
 */
import type { JsonObject } from "../../../src/structs/bodies.ts";
import {
  type Attributes,
  forbidden,
  type PolicySource,
  RbacAuthorizer,
  type UserInfo,
} from "../../../src/testing/fake_cluster/rbac.ts";
import { assert, assertEquals } from "../../assert.ts";
import { patternOf, quote } from "../../doc_quotes.ts";

const RBAC = "rbac.authorization.k8s.io";

/** A policy source over fixed lists of RBAC objects. */
function policies(objects: JsonObject[]): PolicySource {
  const of = (kind: string) => objects.filter((o) => o.kind === kind);
  const meta = (o: JsonObject) => o.metadata as JsonObject;
  return {
    clusterRoleBindings: () => of("ClusterRoleBinding"),
    roleBindings: (ns) => of("RoleBinding").filter((b) => meta(b).namespace === ns),
    role: (ns, name) => of("Role").find((r) => meta(r).namespace === ns && meta(r).name === name),
    clusterRole: (name) => of("ClusterRole").find((r) => meta(r).name === name),
  };
}

function role(name: string, rules: JsonObject[], namespace?: string): JsonObject {
  return {
    kind: namespace ? "Role" : "ClusterRole",
    metadata: namespace ? { name, namespace } : { name },
    rules,
  };
}

type Ref = { kind: "Role" | "ClusterRole"; name: string };

function binding(
  name: string,
  ref: Ref,
  subjects: JsonObject[],
  namespace?: string,
): JsonObject {
  return {
    kind: namespace ? "RoleBinding" : "ClusterRoleBinding",
    metadata: namespace ? { name, namespace } : { name },
    roleRef: { apiGroup: RBAC, ...ref },
    subjects,
  };
}

const userSubject = (name: string) => ({ kind: "User", apiGroup: RBAC, name });
const groupSubject = (name: string) => ({ kind: "Group", apiGroup: RBAC, name });
const saSubject = (name: string, namespace?: string) => ({
  kind: "ServiceAccount",
  name,
  ...(namespace ? { namespace } : {}),
});

const alice: UserInfo = { username: "alice", groups: ["system:authenticated"] };
const op: UserInfo = {
  username: "system:serviceaccount:default:op",
  groups: ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"],
};

function can(
  authorizer: RbacAuthorizer,
  user: UserInfo,
  verb: string,
  resource: string,
  where: Partial<Attributes> = {},
): boolean {
  const [plural, subresource = ""] = resource.split("/");
  return authorizer.authorize({
    user,
    verb,
    resourceRequest: true,
    apiGroup: "",
    resource: plural,
    subresource,
    namespace: "default",
    name: "",
    ...where,
  }).allowed;
}

function canPath(authorizer: RbacAuthorizer, user: UserInfo, verb: string, path: string) {
  return authorizer.authorize({ user, verb, resourceRequest: false, path }).allowed;
}

Deno.test("rbac: nothing is allowed without a binding; system:masters may do anything", () => {
  const authorizer = new RbacAuthorizer(policies([
    role("reader", [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }]),
  ]));
  assert(!can(authorizer, alice, "get", "pods"), "a role alone grants nothing");
  assert(!canPath(authorizer, alice, "get", "/version"));
  const admin = { username: "x", groups: ["system:masters"] };
  assert(can(authorizer, admin, "delete", "anything", { apiGroup: "any.group" }));
  assert(canPath(authorizer, admin, "post", "/whatever"));
});

Deno.test("rbac: verbs, groups and resources must all match; `*` matches any", () => {
  const authorizer = new RbacAuthorizer(policies([
    role("r", [
      { apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] },
      { apiGroups: ["apps"], resources: ["deployments"], verbs: ["*"] },
      { apiGroups: ["*"], resources: ["leases"], verbs: ["watch"] },
      { apiGroups: ["kopf.dev"], resources: ["*"], verbs: ["patch"] },
    ]),
    binding("b", { kind: "ClusterRole", name: "r" }, [userSubject("alice")]),
  ]));
  assert(can(authorizer, alice, "get", "configmaps"));
  assert(can(authorizer, alice, "list", "configmaps"));
  assert(!can(authorizer, alice, "watch", "configmaps"), "watch is a verb of its own");
  assert(!can(authorizer, alice, "get", "configmaps", { apiGroup: "apps" }), "group matters");
  assert(can(authorizer, alice, "deletecollection", "deployments", { apiGroup: "apps" }));
  assert(!can(authorizer, alice, "get", "deployments"), "deployments of the core group: no");
  assert(can(authorizer, alice, "watch", "leases", { apiGroup: "coordination.k8s.io" }));
  assert(can(authorizer, alice, "patch", "kopfexamples", { apiGroup: "kopf.dev" }));
  assert(!can(authorizer, alice, "get", "kopfexamples", { apiGroup: "kopf.dev" }));
  assert(!can(authorizer, { username: "bob", groups: [] }, "get", "configmaps"));
});

Deno.test("rbac: subresources are named as plural/sub; * and */sub cover them, plain plurals do not", () => {
  const authorizer = new RbacAuthorizer(policies([
    role("r", [
      { apiGroups: ["kopf.dev"], resources: ["kopfexamples"], verbs: ["get", "patch"] },
      { apiGroups: ["kopf.dev"], resources: ["kopfexamples/status"], verbs: ["patch"] },
      { apiGroups: ["apps"], resources: ["*/scale"], verbs: ["update"] },
      { apiGroups: [""], resources: ["*"], verbs: ["get"] },
    ]),
    binding("b", { kind: "ClusterRole", name: "r" }, [userSubject("alice")]),
  ]));
  const kopf = { apiGroup: "kopf.dev", name: "e1" };
  assert(can(authorizer, alice, "patch", "kopfexamples/status", kopf));
  assert(!can(authorizer, alice, "get", "kopfexamples/status", kopf), "only patch on status");
  assert(can(authorizer, alice, "update", "deployments/scale", { apiGroup: "apps" }));
  assert(can(authorizer, alice, "update", "statefulsets/scale", { apiGroup: "apps" }));
  assert(!can(authorizer, alice, "update", "deployments", { apiGroup: "apps" }));
  assert(can(authorizer, alice, "get", "pods/log"), "* covers subresources");
});

Deno.test("rbac: resourceNames limit named requests; collections pass only by a pinned name", () => {
  const authorizer = new RbacAuthorizer(policies([
    role("r", [{
      apiGroups: [""],
      resources: ["configmaps"],
      resourceNames: ["mine"],
      verbs: ["get", "list", "watch", "update", "create", "delete", "deletecollection"],
    }]),
    binding("b", { kind: "ClusterRole", name: "r" }, [userSubject("alice")]),
  ]));
  assert(can(authorizer, alice, "get", "configmaps", { name: "mine" }));
  assert(can(authorizer, alice, "update", "configmaps", { name: "mine" }));
  assert(!can(authorizer, alice, "get", "configmaps", { name: "theirs" }));
  // Requests without a name are not allowed by a rule with names, whatever its verbs.
  assert(!can(authorizer, alice, "list", "configmaps"));
  assert(!can(authorizer, alice, "watch", "configmaps"));
  assert(!can(authorizer, alice, "create", "configmaps"));
  assert(!can(authorizer, alice, "deletecollection", "configmaps"));
  // A list or watch of one object by metadata.name carries its name.
  assert(can(authorizer, alice, "list", "configmaps", { name: "mine" }));
  assert(can(authorizer, alice, "watch", "configmaps", { name: "mine" }));
});

Deno.test("rbac: several bindings add up; a RoleBinding grants only in its own namespace", async () => {
  const authorizer = new RbacAuthorizer(policies([
    role("pods-reader", [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }]),
    role("cm-writer", [{ apiGroups: [""], resources: ["configmaps"], verbs: ["create"] }], "dev"),
    binding("b1", { kind: "ClusterRole", name: "pods-reader" }, [userSubject("alice")], "dev"),
    binding("b2", { kind: "Role", name: "cm-writer" }, [userSubject("alice")], "dev"),
    binding("b3", { kind: "Role", name: "cm-writer" }, [userSubject("alice")], "prod"),
  ]));
  assert(can(authorizer, alice, "get", "pods", { namespace: "dev" }));
  assert(can(authorizer, alice, "create", "configmaps", { namespace: "dev" }));
  assert(!can(authorizer, alice, "get", "pods", { namespace: "prod" }), "bound in dev only");
  assert(!can(authorizer, alice, "get", "pods", { namespace: "" }), "not at the cluster scope");
  // A Role is looked up in the binding's namespace: there is none named so in prod.
  assert(!can(authorizer, alice, "create", "configmaps", { namespace: "prod" }));
  const attributes: Attributes = {
    user: alice,
    verb: "create",
    resourceRequest: true,
    apiGroup: "",
    resource: "configmaps",
    namespace: "prod",
  };
  const decision = authorizer.authorize(attributes);
  assertEquals(decision.reason, 'RBAC: role.rbac.authorization.k8s.io "cm-writer" not found');
  // The 403 adds the reason as docs/testing.md quotes it (of a role "r").
  const added = (await quote("testing.md", ": RBAC: role.")).replace('"r"', '"cm-writer"');
  const message = forbidden(attributes, decision.reason).toStatus().message;
  assert(message?.endsWith(added), message);
});

Deno.test("rbac: a ClusterRoleBinding grants everywhere, cluster-scoped resources included", () => {
  const authorizer = new RbacAuthorizer(policies([
    role("ns-reader", [{ apiGroups: [""], resources: ["namespaces", "pods"], verbs: ["list"] }]),
    binding("b", { kind: "ClusterRole", name: "ns-reader" }, [groupSubject("readers")]),
  ]));
  const reader = { username: "carol", groups: ["readers", "system:authenticated"] };
  assert(can(authorizer, reader, "list", "namespaces", { namespace: "" }));
  assert(can(authorizer, reader, "list", "pods", { namespace: "" }), "all namespaces");
  assert(can(authorizer, reader, "list", "pods", { namespace: "any" }));
  assert(!can(authorizer, alice, "list", "pods"), "alice is not in the group");
});

Deno.test("rbac: ServiceAccount subjects: their namespace, or the binding's when omitted", () => {
  const authorizer = new RbacAuthorizer(policies([
    role("r", [{ apiGroups: [""], resources: ["pods"], verbs: ["list"] }]),
    role("s", [{ apiGroups: [""], resources: ["secrets"], verbs: ["get"] }]),
    binding("local", { kind: "ClusterRole", name: "r" }, [saSubject("op")], "default"),
    binding("cluster", { kind: "ClusterRole", name: "s" }, [saSubject("op", "default")]),
    // Without a namespace, a ClusterRoleBinding's ServiceAccount subject matches nobody.
    binding("nobody", { kind: "ClusterRole", name: "r" }, [saSubject("op")]),
  ]));
  assert(can(authorizer, op, "list", "pods"));
  assert(!can(authorizer, op, "list", "pods", { namespace: "other" }));
  assert(can(authorizer, op, "get", "secrets", { namespace: "other" }));
  const otherOp = { ...op, username: "system:serviceaccount:other:op" };
  assert(!can(authorizer, otherOp, "list", "pods", { namespace: "default" }));
  const sa = authorizer.authorize({
    user: op,
    verb: "list",
    resourceRequest: true,
    apiGroup: "",
    resource: "pods",
    namespace: "default",
  });
  assertEquals(
    sa.reason,
    'RBAC: allowed by RoleBinding "local/default" of ClusterRole "r" to ServiceAccount "op/default"',
  );
  const group = new RbacAuthorizer(policies([
    role("r", [{ apiGroups: [""], resources: ["pods"], verbs: ["list"] }]),
    binding("all-sas", { kind: "ClusterRole", name: "r" }, [
      groupSubject("system:serviceaccounts:default"),
    ]),
  ]));
  assert(can(group, op, "list", "pods"));
  assertEquals(
    group.authorize({
      user: op,
      verb: "list",
      resourceRequest: true,
      apiGroup: "",
      resource: "pods",
      namespace: "x",
    }).reason,
    'RBAC: allowed by ClusterRoleBinding "all-sas" of ClusterRole "r" to Group "system:serviceaccounts:default"',
  );
});

Deno.test("rbac: nonResourceURLs match exactly, by `*`, or by a prefix ending in `*`", () => {
  const authorizer = new RbacAuthorizer(policies([
    role("r", [
      { nonResourceURLs: ["/version", "/apis/*"], verbs: ["get"] },
      { nonResourceURLs: ["/logs*"], verbs: ["*"] },
    ]),
    binding("b", { kind: "ClusterRole", name: "r" }, [userSubject("alice")]),
    role("all", [{ nonResourceURLs: ["*"], verbs: ["get"] }]),
    binding("b2", { kind: "ClusterRole", name: "all" }, [userSubject("bob")]),
  ]));
  assert(canPath(authorizer, alice, "get", "/version"));
  assert(!canPath(authorizer, alice, "get", "/version/x"), "exact without *");
  assert(!canPath(authorizer, alice, "post", "/version"), "verb matters");
  assert(canPath(authorizer, alice, "get", "/apis/kopf.dev/v1"));
  assert(!canPath(authorizer, alice, "get", "/apis"), "/apis/* is not /apis");
  assert(canPath(authorizer, alice, "delete", "/logs/kube.log"));
  assert(canPath(authorizer, alice, "get", "/logsx"), "a prefix, not a path segment");
  const bob = { username: "bob", groups: [] };
  assert(canPath(authorizer, bob, "get", "/anything/at/all"));
  // nonResourceURLs grant nothing on resources, and resource rules nothing on paths.
  assert(!can(authorizer, bob, "get", "pods"));
});

Deno.test("rbac: the 403 says what was refused as kube-apiserver does, as docs/testing.md quotes it", async () => {
  const user = op;
  const list = forbidden({
    user,
    verb: "list",
    resourceRequest: true,
    apiGroup: "",
    resource: "pods",
    namespace: "default",
  });
  assertEquals(list.code, 403);
  assertEquals(list.toStatus(), {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: await quote("testing.md", "pods is forbidden: "),
    reason: "Forbidden",
    details: { kind: "pods" },
    code: 403,
  });
  const status = forbidden({
    user,
    verb: "patch",
    resourceRequest: true,
    apiGroup: "kopf.dev",
    resource: "kopfexamples",
    subresource: "status",
    namespace: "default",
    name: "e1",
  }).toStatus();
  assertEquals(
    status.message,
    'kopfexamples.kopf.dev "e1" is forbidden: User "system:serviceaccount:default:op" cannot patch resource "kopfexamples/status" in API group "kopf.dev" in the namespace "default"',
  );
  assert(patternOf(await quote("testing.md", "cannot patch resource ")).test(status.message ?? ""));
  assertEquals(status.details, { name: "e1", group: "kopf.dev", kind: "kopfexamples" });
  const cluster = forbidden({
    user: alice,
    verb: "watch",
    resourceRequest: true,
    apiGroup: "apiextensions.k8s.io",
    resource: "customresourcedefinitions",
  }, 'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found').toStatus();
  assertEquals(
    cluster.message,
    'customresourcedefinitions.apiextensions.k8s.io is forbidden: User "alice" cannot watch resource "customresourcedefinitions" in API group "apiextensions.k8s.io" at the cluster scope: RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found',
  );
  assert(
    patternOf(await quote("testing.md", "… at the cluster scope")).test(cluster.message ?? ""),
  );
  const path = forbidden({ user: alice, verb: "get", resourceRequest: false, path: "/metrics" })
    .toStatus();
  const pathWords = await quote("testing.md", "forbidden: User ");
  assertEquals(path.message, pathWords.replace('"x"', '"alice"'));
  assertEquals(path.details, {});
});

Deno.test("rbac: rulesFor lists the cluster-wide and the namespace's rules, and the errors", () => {
  const authorizer = new RbacAuthorizer(policies([
    role("a", [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }]),
    role("b", [{ nonResourceURLs: ["/healthz"], verbs: ["get"] }], "dev"),
    binding("x", { kind: "ClusterRole", name: "a" }, [userSubject("alice")]),
    binding("y", { kind: "Role", name: "b" }, [userSubject("alice")], "dev"),
    binding("z", { kind: "Role", name: "missing" }, [userSubject("alice")], "dev"),
  ]));
  assertEquals(authorizer.rulesFor(alice, "prod").rules.length, 1);
  const dev = authorizer.rulesFor(alice, "dev");
  assertEquals(dev.rules.map((r) => r.verbs), [["get"], ["get"]]);
  assertEquals(dev.errors, ['role.rbac.authorization.k8s.io "missing" not found']);
});
