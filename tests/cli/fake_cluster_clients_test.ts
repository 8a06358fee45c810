/**
 * `kopf fake-cluster` with clients nobody here wrote, each using the kubeconfig it writes
 * as it is: the real kubectl, `@kubernetes/client-node`, and Python's `kubernetes` client
 * (from the first `python3` on PATH that has it; the Debian package is python3-kubernetes).
 * Over HTTPS, the default, and over plain HTTP (`--http`).
 */
import * as k8s from "@kubernetes/client-node";
import { assert, assertEquals } from "../assert.ts";
import { holdCreates, postJson, startCli } from "./helpers.ts";
import { available, run } from "../platform/commands.ts";

const hasKubectl = await available("kubectl", ["version", "--client"]);

/** The first python3 on PATH that can import the kubernetes client, if any. */
async function pythonWithKubernetes(): Promise<string | undefined> {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":").filter(Boolean)) {
    const python = `${dir}/python3`;
    const probe = await run(python, ["-c", "import kubernetes"]).catch(() => undefined);
    if (probe?.code === 0) return python;
  }
  return undefined;
}

const python = await pythonWithKubernetes();
if (!python) {
  console.warn(
    "Skipping the Python client test: no python3 on PATH can import kubernetes " +
      "(install it with: apt-get install python3-kubernetes).",
  );
}

/** Run a test body with `kopf fake-cluster` serving https (the default) or http. */
async function withCli(mode: string, body: (kubeconfig: string) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  const kubeconfig = `${dir}/kubeconfig`;
  const cli = await startCli([
    `--kubeconfig=${kubeconfig}`,
    ...(mode === "http" ? ["--http"] : []),
  ]);
  try {
    assert(cli.url?.startsWith(`${mode}://`), `${mode} in the ready line: ${cli.out}`);
    await body(kubeconfig);
  } finally {
    assertEquals(await cli.stop(), 0);
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test({
  name: "kubectl: create a deployment, patch its containers strategically, read it back",
  ignore: !hasKubectl,
  async fn() {
    await withCli("https", async (kubeconfig) => {
      const kubectl = async (...args: string[]) => {
        const result = await run("kubectl", [`--kubeconfig=${kubeconfig}`, ...args]);
        assert(result.code === 0, `kubectl ${args.join(" ")} failed: ${result.stderr}`);
        return result.stdout;
      };
      await kubectl("create", "deployment", "web", "--image=nginx", "--replicas=2");
      // The container is merged by name: its image changes, the list is not replaced.
      await kubectl(
        "patch",
        "deployment",
        "web",
        "--type=strategic",
        "-p",
        '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"}]}}}}',
      );
      await kubectl(
        "patch",
        "deployment",
        "web",
        "--type=strategic",
        "-p",
        '{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox"}]}}}}',
      );
      const web = JSON.parse(await kubectl("get", "deployment", "web", "-o", "json"));
      assertEquals(web.spec.replicas, 2);
      const images = Object.fromEntries(
        web.spec.template.spec.containers.map((c: { name: string; image: string }) => [
          c.name,
          c.image,
        ]),
      );
      assertEquals(images, { nginx: "nginx:1.27", sidecar: "busybox" });
      // As on a real server, a container new to the list comes first.
      assertEquals(Object.keys(images), ["sidecar", "nginx"]);
    });
  },
});

for (const mode of ["https", "http"]) {
  Deno.test(`client-node: lists objects through the kubeconfig kopf fake-cluster wrote (${mode})`, async () => {
    await withCli(mode, async (kubeconfig) => {
      const kc = new k8s.KubeConfig();
      kc.loadFromFile(kubeconfig);
      const core = kc.makeApiClient(k8s.CoreV1Api);
      await core.createNamespacedConfigMap({
        namespace: "default",
        body: { metadata: { name: "from-node" }, data: { a: "1" } },
      });
      const list = await core.listNamespacedConfigMap({ namespace: "default" });
      assertEquals(list.items.map((cm) => cm.metadata?.name), ["from-node"]);
      const namespaces = await core.listNamespace();
      assert(namespaces.items.some((ns) => ns.metadata?.name === "kube-system"));
    });
  });

  Deno.test({
    name:
      `python kubernetes: lists objects through the kubeconfig kopf fake-cluster wrote (${mode})`,
    ignore: !python,
    async fn() {
      await withCli(mode, async (kubeconfig) => {
        const script = [
          "import json, sys",
          "from kubernetes import client, config",
          "config.load_kube_config(sys.argv[1])",
          "core = client.CoreV1Api()",
          'core.create_namespaced_config_map("default", {"metadata": {"name": "from-python"}})',
          'names = [cm.metadata.name for cm in core.list_namespaced_config_map("default").items]',
          "print(json.dumps(names))",
        ].join("\n");
        const result = await run(python!, ["-c", script, kubeconfig]);
        assert(result.code === 0, `python failed: ${result.stderr}`);
        assertEquals(JSON.parse(result.stdout), ["from-python"]);
      });
    },
  });
}

Deno.test({
  name:
    "python kubernetes: a request over --max-inflight gets the 429 of API Priority and Fairness",
  ignore: !python,
  async fn() {
    const dir = await Deno.makeTempDir();
    const kubeconfig = `${dir}/kubeconfig`;
    const cli = await startCli([
      `--kubeconfig=${kubeconfig}`,
      "--http",
      "--max-inflight=1",
      "--max-queued=0",
    ]);
    try {
      await using held = await holdCreates(cli.url!);
      const holding = postJson(cli.url!, "/api/v1/namespaces/default/configmaps", {
        metadata: { name: "a" },
      });
      await held.arrived(1);
      // The client raises what the server said: nothing here retries or rewrites it.
      const script = [
        "import json, sys",
        "from kubernetes import client, config",
        "from kubernetes.client.rest import ApiException",
        "config.load_kube_config(sys.argv[1])",
        "try:",
        '    client.CoreV1Api().list_namespaced_config_map("default")',
        '    print(json.dumps({"status": 200}))',
        "except ApiException as e:",
        "    headers = {k.lower(): v for k, v in e.headers.items()}",
        '    print(json.dumps({"status": e.status, "reason": e.reason, "body": e.body, "headers": headers}))',
      ].join("\n");
      const result = await run(python!, ["-c", script, kubeconfig]);
      assert(result.code === 0, `python failed: ${result.stderr}`);
      const seen = JSON.parse(result.stdout);
      assertEquals([seen.status, seen.reason], [429, "Too Many Requests"]);
      assertEquals(seen.body, "Too many requests, please try again later.\n");
      assertEquals(seen.headers["retry-after"], "1");
      assertEquals(seen.headers["content-type"], "text/plain; charset=utf-8");
      assert(seen.headers["x-kubernetes-pf-flowschema-uid"], JSON.stringify(seen.headers));
      assert(seen.headers["x-kubernetes-pf-prioritylevel-uid"], JSON.stringify(seen.headers));
      held.release();
      const created = await holding;
      assertEquals(created.status, 201);
      await created.body?.cancel();
    } finally {
      assertEquals(await cli.stop(), 0);
      await Deno.remove(dir, { recursive: true });
    }
  },
});
