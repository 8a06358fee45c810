/**
 * `kopf manifests` against a fake cluster with RBAC, driven by clients nobody here wrote:
 * kubectl applies the output (a server-side dry run first), makes the ServiceAccount's
 * token, and `kopf run` with the Deployment's arguments handles an object under the
 * generated RBAC alone. And the RBAC is minimal: without any one of its rules, the
 * operator of example 01 and that of the admission example are refused a request.
 */
import { parseAllDocuments } from "yaml";
import { assert, assertEquals, assertEventually, assertStringIncludes } from "../assert.ts";
import type { RawBody } from "../../mod.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { KopfRunner } from "../../src/testing/runner.ts";
import { available, run } from "../platform/commands.ts";
import {
  deployExample,
  exampleFile,
  exampleManifests,
  forbiddenRequests,
  KIND,
  manifest,
  NAME,
  settled,
} from "../examples/helpers.ts";

const ROOT = new URL("../../", import.meta.url);
const MAIN = new URL("src/cli/main.ts", ROOT).pathname;
const CRD = new URL("examples/crd.yaml", ROOT).pathname;
const hasKubectl = await available("kubectl", ["version", "--client"]);

/** `kopf …` in a process of its own; its output and exit code. */
async function kopf(args: string[], env: Record<string, string> = {}) {
  const result = await run(Deno.execPath(), ["run", "-A", MAIN, ...args], { env });
  return result;
}

Deno.test({
  name:
    "kubectl applies the manifests to a cluster with RBAC; kopf run as their ServiceAccount handles an object",
  ignore: !hasKubectl,
  fn: async () => {
    await using cluster = await FakeCluster.start({ rbac: true, tls: true });
    const kubeconfig = await cluster.writeKubeconfig();
    const cache = `--cache-dir=${kubeconfig}-cache`;
    const kubectl = async (args: string[], stdin?: string) => {
      const result = await run("kubectl", ["--kubeconfig", kubeconfig, cache, ...args], { stdin });
      assertEquals(result.code, 0, `kubectl ${args.join(" ")}: ${result.stderr}`);
      return result.stdout;
    };
    await kubectl(["apply", "-f", CRD]);
    await kubectl(["create", "namespace", "operators"]);
    const printed = await kopf([
      "manifests",
      "-n",
      "default",
      "--crd",
      CRD,
      "--image",
      "example:1",
      "--name",
      "example-operator",
      "--deploy-namespace",
      "operators",
      exampleFile("01-minimal"),
    ]);
    assertEquals(printed.code, 0, printed.stderr);
    const yaml = printed.stdout;

    // A server-side dry run changes nothing; the real apply creates everything.
    const dry = await kubectl(["apply", "--dry-run=server", "-f", "-"], yaml);
    assertStringIncludes(dry, "deployment.apps/example-operator created (server dry run)");
    assertEquals(
      cluster.get("serviceaccounts", "example-operator", { namespace: "operators" }),
      undefined,
    );
    const applied = await kubectl(["apply", "-f", "-"], yaml);
    for (
      const line of [
        "serviceaccount/example-operator created",
        "clusterrole.rbac.authorization.k8s.io/example-operator created",
        "clusterrolebinding.rbac.authorization.k8s.io/example-operator created",
        "role.rbac.authorization.k8s.io/example-operator created",
        "rolebinding.rbac.authorization.k8s.io/example-operator created",
        "deployment.apps/example-operator created",
      ]
    ) assertStringIncludes(applied, line);
    // kubectl sends some built-ins as protobuf: a Deployment made by kubectl itself.
    assertStringIncludes(
      await kubectl(["create", "deployment", "web", "--image=nginx"]),
      "deployment.apps/web created",
    );

    // The ServiceAccount's token, from a TokenRequest, and what kubectl says it may do.
    const token = (await kubectl(["create", "token", "example-operator", "-n", "operators"]))
      .trim();
    const asOperator = await cluster.writeKubeconfig(`${kubeconfig}-operator`, { token });
    const canI = (args: string[]) =>
      run("kubectl", ["--kubeconfig", asOperator, cache, "auth", "can-i", ...args]);
    assertEquals((await canI(["patch", "kopfexamples/status", "-n", "default"])).stdout, "yes\n");
    assertEquals((await canI(["delete", "kopfexamples", "-n", "default"])).stdout, "no\n");
    assertEquals((await canI(["list", "kopfexamples", "-n", "kube-system"])).stdout, "no\n");

    // The operator with the Deployment's arguments (the probes on a free port here).
    const deployment = parseAllDocuments(yaml).map((d) => d.toJS() as RawBody)
      .find((o) => o.kind === "Deployment")!;
    // deno-lint-ignore no-explicit-any
    const container = (deployment.spec as any).template.spec.containers[0];
    const args = (container.args as string[]).map((arg) =>
      arg.replace("http://0.0.0.0:8080/healthz", "http://127.0.0.1:0/healthz")
    );
    const operator = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        MAIN,
        "run",
        ...args,
        "--kubeconfig",
        asOperator,
        "--verbose",
        exampleFile("01-minimal"),
      ],
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const stderr = new Response(operator.stderr).text();
    try {
      await kubectl(["apply", "-f", new URL("examples/obj.yaml", ROOT).pathname]);
      await cluster.waitFor(KIND, NAME, settled, { timeout: 30 });
      await kubectl(["delete", "kex", NAME]);
      await cluster.waitFor(KIND, NAME, (o) => o === undefined, { timeout: 30 });
    } finally {
      operator.kill("SIGTERM");
    }
    const { code } = await operator.status;
    const output = await stderr;
    assertEquals(code, 0, output);
    assertEquals(forbiddenRequests(cluster), [], output);
    // A word of its own: a port number like 40315 is not a refusal.
    assert(!/forbidden|\b403\b/i.test(output), output);
  },
});

/**
 * Run the example's scenario with one rule of its generated RBAC removed, on a cluster of
 * its own, until the cluster refuses a request; returns the refused requests.
 */
async function withoutRule(
  folder: string,
  index: number,
  scenario: (cluster: FakeCluster) => Promise<void>,
): Promise<string[]> {
  await using cluster = await FakeCluster.start({ rbac: true });
  cluster.create(await manifest("crd.yaml"));
  const { source } = await deployExample(folder, cluster, { omitRule: index });
  const runner = await KopfRunner.start(
    ["run", "--standalone", "-A", "--verbose", exampleFile(folder)],
    { cluster: source, reraise: false },
  );
  try {
    const done = scenario(cluster).catch(() => {}); // a refusal may stall it: only 403s count
    await assertEventually(
      `a refusal without rule ${index} of ${folder}`,
      () => forbiddenRequests(cluster).length > 0,
      15,
    );
    void done;
  } finally {
    await runner.stop();
  }
  return forbiddenRequests(cluster);
}

async function everyRuleIsNeeded(
  folder: string,
  scenario: (cluster: FakeCluster) => Promise<void>,
): Promise<void> {
  const rules = (await exampleManifests(folder)).find((o) => o.kind === "ClusterRole")!
    .rules as { resources: string[]; verbs: string[] }[];
  assert(rules.length > 0);
  const refused = await Promise.all(rules.map((_, i) => withoutRule(folder, i, scenario)));
  rules.forEach((rule, i) => {
    // The refused requests are about a resource of the rule removed.
    const resources = rule.resources.map((r) => r.replace("/", "/[^/]+/"));
    assert(
      refused[i].some((request) => resources.some((r) => new RegExp(`/${r}($|/)`).test(request))),
      `without ${JSON.stringify(rule)}: ${refused[i].join("; ")}`,
    );
  });
}

Deno.test("01-minimal: without any one rule of its generated RBAC, the operator is refused", async () => {
  await everyRuleIsNeeded("01-minimal", async (cluster) => {
    cluster.create(await manifest("obj.yaml"));
    await cluster.waitFor(KIND, NAME, settled, { timeout: 15 });
    cluster.delete(KIND, NAME);
    await cluster.waitFor(KIND, NAME, (o) => o === undefined, { timeout: 15 });
  });
});

Deno.test("17-admission: without any one rule of its generated RBAC, the operator is refused", async () => {
  await everyRuleIsNeeded("17-admission", async (cluster) => {
    cluster.create(await manifest("obj.yaml"));
  });
});
