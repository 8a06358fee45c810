/**
 * The subresources with handlers of their own, over HTTP and with kubectl: the kubelet's
 * streams and the proxies as a cluster without reachable nodes answers them, bindings,
 * evictions (and the budgets that refuse them), and the parts that `finalize`,
 * `ephemeralcontainers` and `approval` write; and the component statuses.
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import { assertEquals, assertStringIncludes } from "../../assert.ts";
import { call } from "./helpers.ts";
import { hasKubectl, Kubectl } from "./kubectl.ts";

const NS = "/api/v1/namespaces/default";
const MERGE = { "content-type": "application/merge-patch+json" };

async function pod(cluster: FakeCluster, name: string, containers = ["c"]) {
  const created = await call(cluster, "POST", `${NS}/pods`, {
    metadata: { name, labels: { app: name } },
    spec: { containers: containers.map((c) => ({ name: c, image: "x:1" })) },
  });
  assertEquals(created.status, 201);
  return created.body;
}

Deno.test("pods/log, exec and attach of a pod on no node; then on a node that is not there", async () => {
  await using cluster = await FakeCluster.start();
  await pod(cluster, "one");
  await pod(cluster, "two", ["a", "b"]);
  const log = await fetch(`${cluster.url}${NS}/pods/one/log`, {
    headers: { authorization: `Bearer ${cluster.token}` },
  });
  assertEquals([log.status, await log.text()], [200, ""]);
  const unnamed = await call(cluster, "GET", `${NS}/pods/two/log`);
  assertEquals(unnamed.status, 400);
  assertEquals(
    unnamed.body.message,
    "a container name must be specified for pod two, choose one of: [a b]",
  );
  const wrong = await call(cluster, "GET", `${NS}/pods/one/log?container=zzz`);
  assertEquals(wrong.body.message, "container zzz is not valid for pod one");
  const exec = await call(cluster, "POST", `${NS}/pods/one/exec?command=ls`);
  assertEquals([exec.status, exec.body.message], [400, "pod one does not have a host assigned"]);
  const bound = await call(cluster, "POST", `${NS}/pods/one/binding`, {
    apiVersion: "v1",
    kind: "Binding",
    metadata: { name: "one" },
    target: { kind: "Node", name: "node-1" },
  });
  assertEquals([bound.status, bound.body.status, bound.body.code], [201, "Success", 201]);
  const placed = await call(cluster, "GET", `${NS}/pods/one`);
  assertEquals(placed.body.spec.nodeName, "node-1");
  assertEquals(placed.body.status.conditions[0].type, "PodScheduled");
  const again = await call(cluster, "POST", `${NS}/bindings`, {
    metadata: { name: "one" },
    target: { name: "node-2" },
  });
  assertEquals(
    [again.status, again.body.message],
    [409, 'pod one is already assigned to node "node-1"'],
  );
  const attach = await call(cluster, "POST", `${NS}/pods/one/attach`);
  assertEquals([attach.status, attach.body.message], [404, 'nodes "node-1" not found']);
  await call(cluster, "POST", "/api/v1/nodes", { metadata: { name: "node-1" } });
  const noAddress = await call(cluster, "GET", `${NS}/pods/one/log`);
  assertEquals(
    [noAddress.status, noAddress.body.message],
    [500, "no preferred addresses found; known addresses: []"],
  );
});

Deno.test("the proxies: a pod without an IP, a service without endpoints, a node", async () => {
  await using cluster = await FakeCluster.start();
  await pod(cluster, "p");
  const toPod = await call(cluster, "GET", `${NS}/pods/p/proxy/`);
  assertEquals([toPod.status, toPod.body.message], [400, "address not allowed"]);
  await call(cluster, "POST", `${NS}/services`, {
    metadata: { name: "s" },
    spec: { ports: [{ port: 80 }] },
  });
  const noEndpoints = await call(cluster, "GET", `${NS}/services/s/proxy/`);
  assertEquals([noEndpoints.status, noEndpoints.body.message], [404, 'endpoints "s" not found']);
  await call(cluster, "POST", `${NS}/endpoints`, { metadata: { name: "s" } });
  const empty = await call(cluster, "GET", `${NS}/services/s/proxy/`);
  assertEquals([empty.status, empty.body.message], [503, 'no endpoints available for service "s"']);
  const missing = await call(cluster, "GET", "/api/v1/nodes/n/proxy/");
  assertEquals(missing.status, 404);
});

Deno.test("pods/eviction: deletes a pod, unless its disruption budget allows no disruption", async () => {
  await using cluster = await FakeCluster.start();
  await pod(cluster, "pending");
  const evicted = await call(cluster, "POST", `${NS}/pods/pending/eviction`, {
    apiVersion: "policy/v1",
    kind: "Eviction",
    metadata: { name: "pending" },
  });
  assertEquals([evicted.status, evicted.body.status], [201, "Success"]);
  assertEquals((await call(cluster, "GET", `${NS}/pods/pending`)).status, 404);
  await pod(cluster, "running");
  await call(
    cluster,
    "PATCH",
    `${NS}/pods/running/status`,
    { status: { phase: "Running" } },
    MERGE,
  );
  const pdbs = "/apis/policy/v1/namespaces/default/poddisruptionbudgets";
  await call(cluster, "POST", pdbs, {
    metadata: { name: "keep" },
    spec: { minAvailable: 1, selector: { matchLabels: { app: "running" } } },
  });
  await call(cluster, "PATCH", `${pdbs}/keep/status`, {
    status: { observedGeneration: 1, disruptionsAllowed: 0, desiredHealthy: 1, currentHealthy: 1 },
  }, MERGE);
  const refused = await call(cluster, "POST", `${NS}/pods/running/eviction`, {
    metadata: { name: "running" },
  });
  assertEquals(refused.status, 429);
  assertEquals(refused.body.reason, "TooManyRequests");
  assertEquals(refused.body.details.causes, [{
    reason: "DisruptionBudget",
    message: "The disruption budget keep needs 1 healthy pods and has 1 currently",
  }]);
  assertEquals((await call(cluster, "GET", `${NS}/pods/running`)).status, 200);
});

Deno.test("finalize, ephemeralcontainers and approval write their part only", async () => {
  await using cluster = await FakeCluster.start();
  await call(cluster, "POST", "/api/v1/namespaces", { metadata: { name: "held" } });
  const ns = (await call(cluster, "GET", "/api/v1/namespaces/held")).body;
  assertEquals(ns.spec.finalizers, ["kubernetes"]);
  const finalized = await call(cluster, "PUT", "/api/v1/namespaces/held/finalize", {
    ...ns,
    metadata: { ...ns.metadata, labels: { ignored: "yes" } },
    spec: { finalizers: [] },
  });
  assertEquals(finalized.status, 200);
  assertEquals(finalized.body.spec.finalizers ?? [], []);
  assertEquals(finalized.body.metadata.labels.ignored, undefined);
  await pod(cluster, "debugged");
  const debug = await call(cluster, "PATCH", `${NS}/pods/debugged/ephemeralcontainers`, {
    spec: { ephemeralContainers: [{ name: "debugger", image: "busybox:1" }] },
    metadata: { labels: { ignored: "yes" } },
  }, { "content-type": "application/strategic-merge-patch+json" });
  assertEquals(debug.status, 200);
  assertEquals(debug.body.spec.ephemeralContainers[0].name, "debugger");
  assertEquals(debug.body.metadata.labels, { app: "debugged" });
  const csrs = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
  await call(cluster, "POST", csrs, {
    metadata: { name: "c" },
    spec: { request: "", signerName: "example.com/s", usages: ["client auth"] },
  });
  const current = (await call(cluster, "GET", `${csrs}/c/approval`)).body;
  const approved = await call(cluster, "PUT", `${csrs}/c/approval`, {
    ...current,
    spec: { ...current.spec, signerName: "changed/ignored" },
    status: { conditions: [{ type: "Approved", status: "True", reason: "Test" }] },
  });
  assertEquals(approved.status, 200);
  assertEquals(approved.body.status.conditions[0].type, "Approved");
  assertEquals(approved.body.spec.signerName, "example.com/s");
});

Deno.test("componentstatuses: the controllers and the store are healthy, no scheduler runs", async () => {
  await using cluster = await FakeCluster.start();
  const list = await call(cluster, "GET", "/api/v1/componentstatuses");
  assertEquals(list.body.kind, "ComponentStatusList");
  // deno-lint-ignore no-explicit-any
  const byName = Object.fromEntries(list.body.items.map((c: any) => [c.metadata.name, c]));
  assertEquals(Object.keys(byName), ["scheduler", "controller-manager", "etcd-0"]);
  assertEquals(byName["etcd-0"].conditions, [{ type: "Healthy", status: "True", message: "ok" }]);
  assertEquals(byName.scheduler.conditions[0].status, "False");
  assertEquals((await call(cluster, "GET", "/api/v1/componentstatuses/nope")).status, 404);
});

Deno.test({
  name: "kubectl: get nodes, get componentstatuses, logs of a pod on no node",
  ignore: !hasKubectl,
  async fn() {
    await using cluster = await FakeCluster.start();
    await using k = await Kubectl.for(cluster);
    await k.run(["create", "-f", "-"], {
      stdin: JSON.stringify({
        apiVersion: "v1",
        kind: "Node",
        metadata: { name: "n1", labels: { "node-role.kubernetes.io/control-plane": "" } },
      }),
    });
    const nodes = (await k.run(["get", "nodes"])).out;
    assertStringIncludes(nodes, "NAME");
    assertStringIncludes(nodes, "n1");
    assertStringIncludes(nodes, "control-plane");
    const cs = (await k.run(["get", "componentstatuses"])).out;
    assertStringIncludes(cs, "etcd-0");
    assertStringIncludes(cs, "Healthy");
    await pod(cluster, "quiet");
    const logs = await k.run(["logs", "quiet"]);
    assertEquals(logs.out, "");
  },
});
