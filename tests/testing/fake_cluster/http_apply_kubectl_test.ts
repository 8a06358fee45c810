/**
 * Server-side apply end to end with the real kubectl: `kubectl apply --server-side`
 * (create, update, a conflict with another field manager, `--force-conflicts`),
 * `kubectl diff --server-side` (a dry-run apply) and `--show-managed-fields`. Skipped
 * when kubectl is not installed.
 */
import { available } from "../../platform/commands.ts";
import { FakeCluster } from "../../../src/testing/mod.ts";
import { assert, assertEquals, assertStringIncludes } from "../../assert.ts";

const hasKubectl = await available("kubectl", ["version", "--client"]);

// deno-lint-ignore no-explicit-any
function deploymentIn(cluster: FakeCluster): any {
  return cluster.get("deployments.apps", "web");
}

interface Run {
  code: number;
  out: string;
  err: string;
}

/** kubectl with a kubeconfig and cache of its own, stdin from `input`. */
async function kubectl(dir: string, args: string[], input?: string): Promise<Run> {
  const child = new Deno.Command("kubectl", {
    args: [`--kubeconfig=${dir}/kubeconfig`, `--cache-dir=${dir}/cache`, ...args],
    stdin: input === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (input !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(input));
    await writer.close();
  }
  // A safety net only: a kubectl stuck on a request must not hang the suite.
  const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const output = await child.output().finally(() => clearTimeout(guard));
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, out: text(output.stdout), err: text(output.stderr) };
}

function deployment(replicas: number, image: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: ${image}
        ports:
        - containerPort: 80
`;
}

/** A test with kubectl against a fresh fake cluster, its kubeconfig in a directory of its own. */
function kubectlTest(
  name: string,
  body: (cluster: FakeCluster, dir: string) => Promise<void>,
): void {
  Deno.test({
    name,
    ignore: !hasKubectl,
    async fn() {
      await using cluster = await FakeCluster.start();
      const dir = await Deno.makeTempDir({ prefix: "kubectl-ssa-" });
      try {
        await cluster.writeKubeconfig(`${dir}/kubeconfig`);
        await body(cluster, dir);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}

kubectlTest(
  "kubectl: apply --server-side creates, updates, conflicts with another manager, and forces",
  async (cluster, dir) => {
    const created = await kubectl(
      dir,
      ["apply", "--server-side", "-f", "-"],
      deployment(2, "nginx:1"),
    );
    assertEquals(created.code, 0, created.err);
    assertStringIncludes(created.out, "deployment.apps/web serverside-applied");
    const rv = cluster.get("deployments.apps", "web")?.metadata?.resourceVersion;
    const again = await kubectl(
      dir,
      ["apply", "--server-side", "-f", "-"],
      deployment(2, "nginx:1"),
    );
    assertEquals(again.code, 0, again.err);
    assertEquals(cluster.get("deployments.apps", "web")?.metadata?.resourceVersion, rv);

    const updated = await kubectl(
      dir,
      ["apply", "--server-side", "-f", "-"],
      deployment(2, "nginx:2"),
    );
    assertEquals(updated.code, 0, updated.err);
    const stored = deploymentIn(cluster);
    assertEquals(stored.spec.template.spec.containers[0].image, "nginx:2");

    const args = ["apply", "--server-side", "--field-manager=scaler", "-f", "-"];
    const refused = await kubectl(dir, args, deployment(5, "nginx:2"));
    assert(refused.code !== 0, "a conflicting apply must fail");
    assertStringIncludes(
      refused.err,
      'Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas',
    );
    assertEquals(deploymentIn(cluster).spec.replicas, 2);

    const forced = await kubectl(dir, [...args, "--force-conflicts"], deployment(5, "nginx:2"));
    assertEquals(forced.code, 0, forced.err);
    const after = deploymentIn(cluster);
    assertEquals(after.spec.replicas, 5);
    // deno-lint-ignore no-explicit-any
    const managers = after.metadata.managedFields.map((e: any) => `${e.manager}/${e.operation}`);
    assertEquals(managers.sort(), ["kubectl/Apply", "scaler/Apply"]);
  },
);

kubectlTest(
  "kubectl: diff --server-side shows the change of a dry-run apply; --show-managed-fields shows the entries",
  async (cluster, dir) => {
    const created = await kubectl(
      dir,
      ["apply", "--server-side", "-f", "-"],
      deployment(1, "nginx:1"),
    );
    assertEquals(created.code, 0, created.err);
    const rv = cluster.resourceVersion;
    const diff = await kubectl(
      dir,
      ["diff", "--server-side", "-f", "-"],
      deployment(1, "nginx:9"),
    );
    // kubectl diff exits 1 when there are differences.
    assertEquals(diff.code, 1, diff.err);
    assertStringIncludes(diff.out, "-      - image: nginx:1");
    assertStringIncludes(diff.out, "+      - image: nginx:9");
    assertEquals(cluster.resourceVersion, rv);
    const same = await kubectl(
      dir,
      ["diff", "--server-side", "-f", "-"],
      deployment(1, "nginx:1"),
    );
    assertEquals([same.code, same.out], [0, ""], same.err);

    const shown = await kubectl(dir, [
      "get",
      "deployment",
      "web",
      "-o",
      "yaml",
      "--show-managed-fields",
    ]);
    assertEquals(shown.code, 0, shown.err);
    assertStringIncludes(shown.out, "managedFields:");
    assertStringIncludes(shown.out, "manager: kubectl");
    assertStringIncludes(shown.out, "operation: Apply");
    assertStringIncludes(shown.out, "fieldsType: FieldsV1");
    assertStringIncludes(shown.out, 'k:{"containerPort":80,"protocol":"TCP"}');
    const hidden = await kubectl(dir, ["get", "deployment", "web", "-o", "yaml"]);
    assert(!hidden.out.includes("managedFields"), "kubectl hides them by default");
  },
);

kubectlTest(
  "kubectl: apply --server-side of a manifest with a uid creates nothing: the 409 uid mismatch",
  async (cluster, dir) => {
    const manifest = deployment(1, "nginx:1").replace(
      "  namespace: default\n",
      "  namespace: default\n  uid: 0b5c3e0e-gone\n",
    );
    const refused = await kubectl(dir, ["apply", "--server-side", "-f", "-"], manifest);
    assert(refused.code !== 0, "an apply with the uid of a missing object must fail");
    assertStringIncludes(
      refused.err,
      'Operation cannot be fulfilled on deployments.apps "web": uid mismatch: the provided object specified uid 0b5c3e0e-gone, and no existing object was found',
    );
    assertEquals(deploymentIn(cluster), undefined);
  },
);
