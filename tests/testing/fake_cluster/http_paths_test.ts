/**
 * The path of a request, as authorization and routing see it: one parse at the entry, so
 * that no spelling of a path (`//`, empty or encoded segments, dot segments, trailing
 * slashes) is served under rights other than those of the path it names. Raw HTTP under
 * RBAC and TLS, since `fetch()` would clean the paths before they leave.
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import { assert, assertEquals, assertStringIncludes } from "../../assert.ts";
import { rawRequest } from "./helpers.ts";

const RBAC = "rbac.authorization.k8s.io";

/** A cluster where `alice` may do anything in the core group and nothing elsewhere. */
async function coreOnlyCluster(): Promise<{ cluster: FakeCluster; alice: string }> {
  const cluster = await FakeCluster.start({ rbac: true, tls: true });
  cluster.create({
    apiVersion: `${RBAC}/v1`,
    kind: "ClusterRole",
    metadata: { name: "core-only" },
    rules: [{ apiGroups: [""], resources: ["*"], verbs: ["*"] }],
  });
  cluster.create({
    apiVersion: `${RBAC}/v1`,
    kind: "ClusterRoleBinding",
    metadata: { name: "alice-core" },
    roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: "core-only" },
    subjects: [{ kind: "User", apiGroup: RBAC, name: "alice" }],
  });
  cluster.create({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web" },
    spec: {
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: { containers: [{ name: "web", image: "nginx" }] },
      },
    },
  });
  return { cluster, alice: cluster.tokenFor({ user: "alice" }) };
}

/** Spellings of `/apis/apps/v1/namespaces/default/deployments/web` a server may see. */
const DEPLOYMENT_SPELLINGS = [
  "//apis/apps/v1/namespaces/default/deployments/web",
  "///apis/apps/v1/namespaces/default/deployments/web",
  "/apis//apps/v1/namespaces/default/deployments/web",
  "/apis/apps//v1/namespaces/default/deployments/web",
  "/apis/apps/v1/namespaces//default/deployments/web",
  "/apis/apps/v1/namespaces/default/deployments//web",
  "/apis/apps/v1/namespaces/default/deployments/web/",
  "/apis/apps/v1/namespaces/default/deployments/web//",
  "/apis/apps/v1/namespaces/default/./deployments/web",
  "/apis/apps/v1/namespaces/default/x/../deployments/web",
  "/apis/apps/v1/namespaces/default/%2e/deployments/web",
  "/apis/apps/v1/namespaces/default/x/%2e%2e/deployments/web",
  "/api/v1/../../apis/apps/v1/namespaces/default/deployments/web",
  "/apis/apps%2Fv1/namespaces/default/deployments/web",
  "/apis%2Fapps/v1/namespaces/default/deployments/web",
  "/apis/apps/v1/namespaces/default/deployments%2Fweb",
  "/apis/apps/v1/namespaces/default/deployments/web%2F",
  "/apis/apps/v1/namespaces/default/deployments/%2E%2E/deployments/web",
  "/apis/apps/v1/namespaces/default/deployments/web%2F..%2F..%2Fdeployments%2Fweb",
  "/%61pis/apps/v1/namespaces/default/deployments/web",
  "/apis/apps/v1/namespaces/default/deployments/w%65b",
];

Deno.test("rbac: no spelling of a path is served under rights other than its canonical form's", async () => {
  const { cluster, alice } = await coreOnlyCluster();
  await using _ = cluster;
  const auth = { authorization: `Bearer ${alice}` };
  const canonical = await rawRequest(
    cluster,
    "GET",
    "/apis/apps/v1/namespaces/default/deployments/web",
    auth,
  );
  assertEquals(canonical.status, 403, canonical.body);
  // Alice's own group still works through the same entry.
  const own = await rawRequest(cluster, "GET", "/api/v1/namespaces/default/configmaps", auth);
  assertEquals(own.status, 200, own.body);
  for (const spelling of DEPLOYMENT_SPELLINGS) {
    for (const method of ["GET", "DELETE"]) {
      const reply = await rawRequest(cluster, method, spelling, auth);
      assert(
        reply.status === 403 || reply.status === 404 || reply.status === 400,
        `${method} ${spelling}: refused, not ${reply.status}: ${reply.body}`,
      );
      assert(cluster.get("deployments.apps", "web"), `${method} ${spelling} deleted nothing`);
    }
  }
});

Deno.test("rbac: the admin gets the canonical path's answer, or a 404 for a path that is not canonical", async () => {
  const { cluster } = await coreOnlyCluster();
  await using _ = cluster;
  const auth = { authorization: `Bearer ${cluster.token}` };
  const served = [
    "/apis/apps/v1/namespaces/default/deployments/web",
    "/apis/apps/v1/namespaces/default/deployments/web/",
    "/apis/apps/v1/namespaces/default/deployments/web//",
    // Dot segments never reach the server's handler: the URL is resolved as a browser does.
    "/apis/apps/v1/namespaces/default/./deployments/web",
    "/apis/apps/v1/namespaces/default/x/../deployments/web",
    "/apis/apps/v1/namespaces/default/%2e/deployments/web",
    "/apis/apps/v1/namespaces/default/x/%2e%2e/deployments/web",
    "/api/v1/../../apis/apps/v1/namespaces/default/deployments/web",
    "/apis/apps/v1/namespaces/default/deployments/%2E%2E/deployments/web",
    // Percent-encoded letters are the letters.
    "/%61pis/apps/v1/namespaces/default/deployments/web",
    "/apis/apps/v1/namespaces/default/deployments/w%65b",
  ];
  for (const path of served) {
    const reply = await rawRequest(cluster, "GET", path, auth);
    assertEquals(reply.status, 200, `GET ${path}: ${reply.body}`);
  }
  const refused = DEPLOYMENT_SPELLINGS.filter((path) => !served.includes(path));
  for (const path of refused) {
    const reply = await rawRequest(cluster, "GET", path, auth);
    assertEquals(reply.status, 404, `GET ${path}: ${reply.body}`);
    assertStringIncludes(reply.body, "NotFound");
  }
  for (const path of ["//version", "/version//", "//api", "/apis//"]) {
    const reply = await rawRequest(cluster, "GET", path, auth);
    assertEquals(reply.status, path === "/version//" || path === "/apis//" ? 200 : 404, path);
  }
});

Deno.test("a path that is not properly percent-encoded is a 400 before anything else", async () => {
  const { cluster, alice } = await coreOnlyCluster();
  await using _ = cluster;
  for (const token of [alice, cluster.token!]) {
    const reply = await rawRequest(cluster, "GET", "/api/v1/namespaces/%zz/configmaps", {
      authorization: `Bearer ${token}`,
    });
    assertEquals(reply.status, 400, reply.body);
    assertStringIncludes(reply.body, "percent-encoded");
  }
});
