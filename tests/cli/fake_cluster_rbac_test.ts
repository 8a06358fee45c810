/**
 * `kopf fake-cluster --rbac` in a subprocess: the kubeconfig is the admin's, others are
 * refused as RBAC says, and kubectl makes a service account's token that works under the
 * role bound to it.
 */
import { serveFakeCluster } from "../../src/cli/fake_cluster.ts";
import { assertEquals, assertStringIncludes } from "../assert.ts";
import { startCli } from "./helpers.ts";
import { available, run } from "../platform/commands.ts";

const hasKubectl = await available("kubectl", ["version", "--client"]);

const POLICY = `
apiVersion: v1
kind: ServiceAccount
metadata: {name: op, namespace: default}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: op-views, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cm-viewer}
subjects:
- {kind: ServiceAccount, name: op, namespace: default}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: cm-viewer}
rules:
- {apiGroups: [""], resources: [configmaps], verbs: [get, list]}
`;

Deno.test("kopf fake-cluster --rbac: anonymous requests are refused in Kubernetes' words", async () => {
  const http = await startCli(["--rbac", "--http"]);
  try {
    assertStringIncludes(http.out, "RBAC is on");
    const pods = await fetch(`${http.url}/api/v1/namespaces/default/pods`);
    assertEquals(pods.status, 403);
    assertEquals(
      (await pods.json()).message,
      'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" in the namespace "default"',
    );
    const version = await fetch(`${http.url}/version`);
    assertEquals(version.status, 200);
    await version.body?.cancel();
  } finally {
    assertEquals(await http.stop(), 0);
  }
});

Deno.test({
  name: "kopf fake-cluster --rbac: kubectl as the admin, then as a service account with a token",
  ignore: !hasKubectl,
  async fn() {
    const dir = await Deno.makeTempDir();
    const cli = await startCli(["--rbac", `--kubeconfig=${dir}/admin`]);
    try {
      const admin = [`--kubeconfig=${dir}/admin`, `--cache-dir=${dir}/cache`];
      const applied = await run("kubectl", [...admin, "apply", "-f", "-"], { stdin: POLICY });
      assertEquals(applied.code === 0, true, applied.stderr);
      const token = await run("kubectl", [...admin, "create", "token", "op"]);
      assertEquals(token.code === 0, true, token.stderr);
      const config = (await Deno.readTextFile(`${dir}/admin`)).replace(
        /token: \S+/,
        `token: ${token.stdout.trim()}`,
      );
      await Deno.writeTextFile(`${dir}/op`, config);
      const op = [`--kubeconfig=${dir}/op`, `--cache-dir=${dir}/cache-op`];
      const yes = await run("kubectl", [...op, "auth", "can-i", "list", "configmaps"]);
      assertEquals(yes.stdout.trim(), "yes");
      const no = await run("kubectl", [...op, "auth", "can-i", "create", "configmaps"]);
      assertEquals([no.code === 0, no.stdout.trim()], [false, "no"]);
      const created = await run("kubectl", [...op, "create", "configmap", "x"]);
      assertEquals(created.code === 0, false);
      assertStringIncludes(
        created.stderr,
        'configmaps is forbidden: User "system:serviceaccount:default:op" cannot create resource "configmaps" in API group "" in the namespace "default"',
      );
    } finally {
      assertEquals(await cli.stop(), 0);
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("serveFakeCluster warns that kubectl is anonymous with --rbac over --http", async () => {
  const warnings: string[] = [];
  const controller = new AbortController();
  const dir = await Deno.makeTempDir();
  try {
    await serveFakeCluster({ tls: false, rbac: true, kubeconfig: `${dir}/kc` }, {
      print: () => controller.abort(),
      warn: (line) => warnings.push(line),
      signal: controller.signal,
    });
    assertEquals(warnings.length, 1);
    assertStringIncludes(warnings[0], "anonymous");
    assertStringIncludes(await Deno.readTextFile(`${dir}/kc`), "token:");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
