/**
 * RBAC through the real kubectl over TLS: `kubectl auth can-i` (as the admin with
 * `--as`, and with a service account's token), `can-i --list`, `whoami`, `create token`,
 * legacy token Secrets, and Kubernetes' wording of a 403. Skipped without kubectl.
 */
import { available } from "../../platform/commands.ts";
import { FakeCluster } from "../../../src/testing/mod.ts";
import { assertEquals, assertStringIncludes } from "../../assert.ts";

const hasKubectl = await available("kubectl", ["version", "--client"]);

interface Result {
  ok: boolean;
  code: number;
  out: string;
  err: string;
}

/** Runs kubectl with a kubeconfig and a discovery cache of its own. */
async function kubectl(dir: string, kubeconfig: string, args: string[], stdin?: string) {
  const child = new Deno.Command("kubectl", {
    args: [
      `--kubeconfig=${kubeconfig}`,
      `--cache-dir=${dir}/cache-${btoa(kubeconfig).slice(-12)}`,
      ...args,
    ],
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(stdin));
    await writer.close();
  }
  // A safety net only: a kubectl stuck on a request must not hang the suite.
  const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const output = await child.output().finally(() => clearTimeout(guard));
  const result: Result = {
    ok: output.success,
    code: output.code,
    out: new TextDecoder().decode(output.stdout),
    err: new TextDecoder().decode(output.stderr),
  };
  return result;
}

const POLICY = `
apiVersion: v1
kind: ServiceAccount
metadata: {name: op, namespace: default}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: cm-reader, namespace: default}
rules:
- {apiGroups: [""], resources: [configmaps], verbs: [get, list, watch]}
- {apiGroups: [apps], resources: [deployments], resourceNames: [web], verbs: [get]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: op-reads, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: cm-reader}
subjects:
- {kind: ServiceAccount, name: op, namespace: default}
`;

async function withCluster(
  fn: (cluster: FakeCluster, dir: string, admin: string) => Promise<void>,
) {
  await using cluster = await FakeCluster.start({ rbac: true, tls: true });
  const dir = await Deno.makeTempDir({ prefix: "kubectl-rbac-" });
  try {
    const admin = await cluster.writeKubeconfig(`${dir}/admin`);
    const applied = await kubectl(dir, admin, ["apply", "-f", "-"], POLICY);
    assertEquals(applied.err, "");
    await fn(cluster, dir, admin);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test({
  name: "kubectl auth can-i as the admin with --as answers as the roles say",
  ignore: !hasKubectl,
  async fn() {
    await withCluster(async (_cluster, dir, admin) => {
      const canI = (...args: string[]) =>
        kubectl(dir, admin, ["auth", "can-i", ...args, "--as=system:serviceaccount:default:op"]);
      const yes = await canI("list", "configmaps");
      assertEquals([yes.code, yes.out.trim()], [0, "yes"]);
      const no = await canI("delete", "configmaps");
      assertEquals([no.code, no.out.trim()], [1, "no"]);
      assertEquals((await canI("list", "configmaps", "-n", "kube-system")).out.trim(), "no");
      assertEquals((await canI("get", "deployments/web")).out.trim(), "yes");
      assertEquals((await canI("get", "deployments/api")).out.trim(), "no");
      assertEquals((await canI("create", "deployments")).out.trim(), "no");
      assertEquals((await canI("get", "/version")).out.trim(), "yes");
      assertEquals((await canI("get", "/metrics")).out.trim(), "no");
      const admins = await kubectl(dir, admin, ["auth", "can-i", "create", "deployments"]);
      assertEquals(admins.out.trim(), "yes");
      const list = await canI("--list");
      assertEquals(list.code, 0, list.err);
      const row = list.out.split("\n").find((line) => line.startsWith("configmaps "));
      assertStringIncludes(row ?? list.out, "[get list watch]");
    });
  },
});

Deno.test({
  name: "kubectl with a service account's token: can-i, whoami, and Kubernetes' 403 wording",
  ignore: !hasKubectl,
  async fn() {
    await withCluster(async (cluster, dir, admin) => {
      const created = await kubectl(dir, admin, ["create", "token", "op", "--duration=15m"]);
      assertEquals(created.code, 0, created.err);
      const op = await cluster.writeKubeconfig(`${dir}/op`, { token: created.out.trim() });
      const whoami = await kubectl(dir, op, ["auth", "whoami"]);
      assertStringIncludes(whoami.out, "system:serviceaccount:default:op");
      assertEquals(
        (await kubectl(dir, op, ["auth", "can-i", "watch", "configmaps"])).out.trim(),
        "yes",
      );
      assertEquals(
        (await kubectl(dir, op, ["auth", "can-i", "create", "deployments"])).out.trim(),
        "no",
      );
      assertEquals((await kubectl(dir, op, ["get", "configmaps"])).code, 0);
      const pods = await kubectl(dir, op, ["get", "pods"]);
      assertEquals(pods.code, 1);
      assertEquals(
        pods.err.trim(),
        'Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:default:op" cannot list resource "pods" in API group "" in the namespace "default"',
      );
      const ns = await kubectl(dir, op, ["get", "namespace", "default"]);
      assertEquals(
        ns.err.trim(),
        'Error from server (Forbidden): namespaces "default" is forbidden: User "system:serviceaccount:default:op" cannot get resource "namespaces" in API group "" in the namespace "default"',
      );
    });
  },
});

Deno.test({
  name: "kubectl: a service-account token Secret gets its token, which kubectl can use",
  ignore: !hasKubectl,
  async fn() {
    await withCluster(async (cluster, dir, admin) => {
      const secret = `
apiVersion: v1
kind: Secret
type: kubernetes.io/service-account-token
metadata:
  name: op-token
  annotations: {kubernetes.io/service-account.name: op}
`;
      assertEquals((await kubectl(dir, admin, ["apply", "-f", "-"], secret)).code, 0);
      const read = (field: string) =>
        kubectl(dir, admin, ["get", "secret", "op-token", "-o", `jsonpath={.data.${field}}`]);
      const token = atob((await read("token")).out);
      assertEquals(atob((await read("ca\\.crt")).out), cluster.caCertificate);
      const op = await cluster.writeKubeconfig(`${dir}/legacy`, { token });
      assertStringIncludes(
        (await kubectl(dir, op, ["auth", "whoami"])).out,
        "system:serviceaccount:default:op",
      );
    });
  },
});
