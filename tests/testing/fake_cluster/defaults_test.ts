/**
 * Built-ins come back defaulted as kube-apiserver defaults them: the scheme's defaults
 * (owned by the writer's managed fields), and what the registries add after them
 * (allocations, admission, a new object's status: owned by no one).
 */
import { FakeCluster } from "../../../src/testing/mod.ts";
import { assert, assertEquals, assertStringIncludes } from "../../assert.ts";
import { call } from "./helpers.ts";
import { hasKubectl, Kubectl } from "./kubectl.ts";

const NS = "/api/v1/namespaces/default";
const CONTAINER_DEFAULTS = {
  terminationMessagePath: "/dev/termination-log",
  terminationMessagePolicy: "File",
  resources: {},
};
const POD_SPEC_DEFAULTS = {
  restartPolicy: "Always",
  terminationGracePeriodSeconds: 30,
  dnsPolicy: "ClusterFirst",
  schedulerName: "default-scheduler",
  securityContext: {},
};

/** Whether an address lies in 10.96.0.0/12 and past the band kept for static addresses. */
function inServiceRange(ip: string): boolean {
  const [a, b, c] = ip.split(".").map(Number);
  return a === 10 && b >= 96 && b <= 111 && !(b === 96 && c === 0);
}

// deno-lint-ignore no-explicit-any
function owned(object: any): string {
  return JSON.stringify(
    object.metadata.managedFields.map((f: { fieldsV1: unknown }) => f.fieldsV1),
  );
}

Deno.test("defaults: a Service gets its type, ports, policies, a cluster IP and a status", async () => {
  await using cluster = await FakeCluster.start();
  const created = await call(cluster, "POST", `${NS}/services`, {
    metadata: { name: "web" },
    spec: { selector: { app: "web" }, ports: [{ port: 80 }] },
  });
  assertEquals(created.status, 201);
  const { spec, status } = created.body;
  assertEquals(spec.type, "ClusterIP");
  assertEquals(spec.sessionAffinity, "None");
  assertEquals(spec.internalTrafficPolicy, "Cluster");
  assertEquals(spec.ipFamilies, ["IPv4"]);
  assertEquals(spec.ipFamilyPolicy, "SingleStack");
  assertEquals(spec.ports, [{ port: 80, protocol: "TCP", targetPort: 80 }]);
  assert(inServiceRange(spec.clusterIP), spec.clusterIP);
  assertEquals(spec.clusterIPs, [spec.clusterIP]);
  assertEquals(status, { loadBalancer: {} });
  // The registry's allocations belong to no manager; the scheme's defaults to the writer.
  assertStringIncludes(owned(created.body), `"f:sessionAffinity"`);
  assert(!owned(created.body).includes("clusterIP"), owned(created.body));
  // A replacement that leaves the allocations out keeps them.
  const replaced = await call(cluster, "PUT", `${NS}/services/web`, {
    metadata: { name: "web" },
    spec: { selector: { app: "web" }, ports: [{ port: 80 }] },
  });
  assertEquals(replaced.status, 200);
  assertEquals(replaced.body.spec.clusterIP, spec.clusterIP);
  assertEquals(replaced.body.spec.clusterIPs, [spec.clusterIP]);
});

Deno.test("defaults: headless, NodePort and ExternalName Services", async () => {
  await using cluster = await FakeCluster.start();
  const post = async (name: string, spec: Record<string, unknown>) =>
    (await call(cluster, "POST", `${NS}/services`, { metadata: { name }, spec })).body.spec;
  const headless = await post("headless", { clusterIP: "None", ports: [{ port: 80 }] });
  assertEquals(headless.clusterIPs, ["None"]);
  assertEquals(headless.ipFamilyPolicy, "RequireDualStack");
  assertEquals(headless.ipFamilies, ["IPv4", "IPv6"]);
  const selected = await post("selected", { clusterIP: "None", selector: { a: "b" } });
  assertEquals([selected.ipFamilyPolicy, selected.ipFamilies], ["SingleStack", ["IPv4"]]);
  const nodePort = await post("np", {
    type: "NodePort",
    ports: [{ port: 80, targetPort: "http" }],
  });
  assertEquals(nodePort.externalTrafficPolicy, "Cluster");
  assertEquals(nodePort.ports[0].targetPort, "http");
  const port = nodePort.ports[0].nodePort;
  assert(port >= 30000 && port <= 32767, String(port));
  const lb = await post("lb", { type: "LoadBalancer", ports: [{ port: 443 }] });
  assertEquals(lb.allocateLoadBalancerNodePorts, true);
  assert(lb.ports[0].nodePort !== port);
  const external = await post("ext", { type: "ExternalName", externalName: "example.com" });
  assertEquals(external, {
    type: "ExternalName",
    externalName: "example.com",
    sessionAffinity: "None",
  });
});

Deno.test("defaults: a Pod's spec, containers, admission and Pending status", async () => {
  await using cluster = await FakeCluster.start();
  const created = await call(cluster, "POST", `${NS}/pods`, {
    metadata: { name: "p" },
    spec: {
      containers: [
        { name: "a", image: "nginx", ports: [{ containerPort: 80 }] },
        { name: "b", image: "example.com/app:1.0", readinessProbe: { httpGet: { port: 8080 } } },
      ],
      volumes: [{ name: "scratch" }, { name: "conf", configMap: { name: "c" } }],
    },
  });
  assertEquals(created.status, 201);
  const { spec, status } = created.body;
  const [a, b] = spec.containers;
  assertEquals(a, {
    name: "a",
    image: "nginx",
    ports: [{ containerPort: 80, protocol: "TCP" }],
    imagePullPolicy: "Always",
    ...CONTAINER_DEFAULTS,
  });
  assertEquals(b.imagePullPolicy, "IfNotPresent");
  assertEquals(b.readinessProbe, {
    httpGet: { port: 8080, path: "/", scheme: "HTTP" },
    timeoutSeconds: 1,
    periodSeconds: 10,
    successThreshold: 1,
    failureThreshold: 3,
  });
  assertEquals(spec.volumes, [
    { name: "scratch", emptyDir: {} },
    { name: "conf", configMap: { name: "c", defaultMode: 420 } },
  ]);
  for (const [field, value] of Object.entries(POD_SPEC_DEFAULTS)) {
    assertEquals(spec[field], value, field);
  }
  assertEquals(spec.enableServiceLinks, true);
  assertEquals([spec.serviceAccountName, spec.serviceAccount], ["default", "default"]);
  assertEquals([spec.priority, spec.preemptionPolicy], [0, "PreemptLowerPriority"]);
  assertEquals(spec.tolerations.map((t: { key: string }) => t.key), [
    "node.kubernetes.io/not-ready",
    "node.kubernetes.io/unreachable",
  ]);
  assertEquals(status, { phase: "Pending", qosClass: "BestEffort" });
  assert(!owned(created.body).includes("serviceAccountName"), owned(created.body));
});

Deno.test("defaults: a Pod with limits only has them as requests, and is Guaranteed", async () => {
  await using cluster = await FakeCluster.start();
  const limits = { cpu: "1", memory: "1Gi" };
  const created = await call(cluster, "POST", `${NS}/pods`, {
    metadata: { name: "g" },
    spec: { containers: [{ name: "a", image: "x:1", resources: { limits } }] },
  });
  assertEquals(created.body.spec.containers[0].resources, { limits, requests: limits });
  assertEquals(created.body.status.qosClass, "Guaranteed");
});

Deno.test("defaults: workloads and their pod templates", async () => {
  await using cluster = await FakeCluster.start();
  const template = {
    metadata: { labels: { app: "w" } },
    spec: { containers: [{ name: "c", image: "busybox:1" }] },
  };
  const apps = "/apis/apps/v1/namespaces/default";
  const post = async (path: string, spec: Record<string, unknown>) =>
    (await call(cluster, "POST", path, { metadata: { name: "w" }, spec })).body;
  const selector = { matchLabels: { app: "w" } };
  const deploy = await post(`${apps}/deployments`, { selector, template });
  assertEquals(deploy.spec.replicas, 1);
  assertEquals(deploy.spec.revisionHistoryLimit, 10);
  assertEquals(deploy.spec.progressDeadlineSeconds, 600);
  assertEquals(deploy.spec.strategy, {
    type: "RollingUpdate",
    rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" },
  });
  assertEquals(deploy.spec.template.metadata, { labels: { app: "w" }, creationTimestamp: null });
  assertEquals(deploy.spec.template.spec, {
    containers: [{
      name: "c",
      image: "busybox:1",
      imagePullPolicy: "IfNotPresent",
      ...CONTAINER_DEFAULTS,
    }],
    ...POD_SPEC_DEFAULTS,
  });
  assertEquals(deploy.status, {});
  assertEquals((await post(`${apps}/replicasets`, { selector, template })).status, { replicas: 0 });
  const sts = await post(`${apps}/statefulsets`, { selector, template, serviceName: "w" });
  assertEquals(sts.spec.podManagementPolicy, "OrderedReady");
  assertEquals(sts.spec.updateStrategy, { type: "RollingUpdate", rollingUpdate: { partition: 0 } });
  assertEquals(sts.status, { replicas: 0, availableReplicas: 0 });
  const ds = await post(`${apps}/daemonsets`, { selector, template });
  assertEquals(ds.spec.updateStrategy.rollingUpdate, { maxUnavailable: 1, maxSurge: 0 });
  assertEquals(ds.status.numberReady, 0);
  const rc = await post(`${NS}/replicationcontrollers`, { template });
  assertEquals([rc.spec.replicas, rc.spec.selector, rc.metadata.labels], [1, { app: "w" }, {
    app: "w",
  }]);
  assertEquals(rc.status, { replicas: 0 });
  const scale = await call(cluster, "GET", `${NS}/replicationcontrollers/w/scale`);
  assertEquals([scale.body.spec.replicas, scale.body.status.selector], [1, "app=w"]);
});

Deno.test("defaults: a Job's selector of its uid, and a CronJob's policies", async () => {
  await using cluster = await FakeCluster.start();
  const batch = "/apis/batch/v1/namespaces/default";
  const podTemplate = { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "x" }] } };
  const job = (await call(cluster, "POST", `${batch}/jobs`, {
    metadata: { name: "j" },
    spec: { template: podTemplate },
  })).body;
  const uid = job.metadata.uid;
  assertEquals(job.spec.selector, { matchLabels: { "batch.kubernetes.io/controller-uid": uid } });
  assertEquals(job.spec.template.metadata.labels, {
    "batch.kubernetes.io/controller-uid": uid,
    "batch.kubernetes.io/job-name": "j",
    "controller-uid": uid,
    "job-name": "j",
  });
  const { completions, parallelism, backoffLimit, completionMode, suspend } = job.spec;
  assertEquals([completions, parallelism, backoffLimit, completionMode, suspend], [
    1,
    1,
    6,
    "NonIndexed",
    false,
  ]);
  assertEquals([job.spec.podReplacementPolicy, job.spec.manualSelector], [
    "TerminatingOrFailed",
    false,
  ]);
  const cron = (await call(cluster, "POST", `${batch}/cronjobs`, {
    metadata: { name: "c" },
    spec: { schedule: "* * * * *", jobTemplate: { spec: { template: podTemplate } } },
  })).body;
  assertEquals(cron.spec.concurrencyPolicy, "Allow");
  assertEquals([cron.spec.successfulJobsHistoryLimit, cron.spec.failedJobsHistoryLimit], [3, 1]);
  assertEquals(cron.spec.jobTemplate.metadata, { creationTimestamp: null });
  assertEquals(cron.spec.jobTemplate.spec.template.spec.dnsPolicy, "ClusterFirst");
});

Deno.test("defaults: a patch's result is defaulted too", async () => {
  await using cluster = await FakeCluster.start();
  await call(cluster, "POST", `${NS}/services`, {
    metadata: { name: "s" },
    spec: { ports: [{ port: 80 }] },
  });
  const patched = await call(
    cluster,
    "PATCH",
    `${NS}/services/s`,
    { spec: { ports: [{ port: 80 }, { port: 81, name: "b" }], sessionAffinity: null } },
    { "content-type": "application/merge-patch+json" },
  );
  assertEquals(patched.status, 200);
  assertEquals(patched.body.spec.ports[1], {
    port: 81,
    name: "b",
    protocol: "TCP",
    targetPort: 81,
  });
  assertEquals(patched.body.spec.sessionAffinity, "None");
});

Deno.test("defaults: webhook configurations, storage, scheduling, networking, RBAC, CRDs, nodes", async () => {
  await using cluster = await FakeCluster.start();
  const admission = "/apis/admissionregistration.k8s.io/v1";
  const hook = {
    name: "h.example.com",
    clientConfig: { service: { name: "s", namespace: "default" } },
    rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }],
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
  };
  const mutating = (await call(cluster, "POST", `${admission}/mutatingwebhookconfigurations`, {
    metadata: { name: "m" },
    webhooks: [hook],
  })).body.webhooks[0];
  assertEquals(
    [mutating.failurePolicy, mutating.matchPolicy, mutating.timeoutSeconds],
    ["Fail", "Equivalent", 10],
  );
  assertEquals([mutating.namespaceSelector, mutating.objectSelector], [{}, {}]);
  assertEquals(mutating.reinvocationPolicy, "Never");
  assertEquals(mutating.rules[0].scope, "*");
  assertEquals(mutating.clientConfig.service.port, 443);
  const validating = (await call(cluster, "POST", `${admission}/validatingwebhookconfigurations`, {
    metadata: { name: "v" },
    webhooks: [hook],
  })).body.webhooks[0];
  assertEquals(validating.reinvocationPolicy, undefined);
  const storage = (await call(cluster, "POST", "/apis/storage.k8s.io/v1/storageclasses", {
    metadata: { name: "fast" },
    provisioner: "example.com/disk",
  })).body;
  assertEquals([storage.reclaimPolicy, storage.volumeBindingMode], ["Delete", "Immediate"]);
  const priority = (await call(cluster, "POST", "/apis/scheduling.k8s.io/v1/priorityclasses", {
    metadata: { name: "high" },
    value: 1000,
  })).body;
  assertEquals(priority.preemptionPolicy, "PreemptLowerPriority");
  const policy = (await call(
    cluster,
    "POST",
    "/apis/networking.k8s.io/v1/namespaces/default/networkpolicies",
    { metadata: { name: "p" }, spec: { podSelector: {}, egress: [{ ports: [{ port: 53 }] }] } },
  )).body;
  assertEquals(policy.spec.policyTypes, ["Ingress", "Egress"]);
  assertEquals(policy.spec.egress[0].ports, [{ port: 53, protocol: "TCP" }]);
  const binding = (await call(
    cluster,
    "POST",
    "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
    {
      metadata: { name: "b" },
      roleRef: { kind: "Role", name: "r" },
      subjects: [{ kind: "User", name: "u" }, { kind: "ServiceAccount", name: "sa" }],
    },
  )).body;
  assertEquals(binding.roleRef.apiGroup, "rbac.authorization.k8s.io");
  assertEquals(binding.subjects.map((s: { apiGroup: string }) => s.apiGroup), [
    "rbac.authorization.k8s.io",
    "",
  ]);
  const node = (await call(cluster, "POST", "/api/v1/nodes", {
    metadata: { name: "n" },
    status: { capacity: { cpu: "2" } },
  })).body;
  assertEquals(node.status.daemonEndpoints, { kubeletEndpoint: { Port: 0 } });
  assertEquals(node.status.nodeInfo.kubeletVersion, "");
});

Deno.test({
  name: "kubectl: a Service created from a file shows kube-apiserver's defaults as YAML",
  ignore: !hasKubectl,
  async fn() {
    await using cluster = await FakeCluster.start();
    await using k = await Kubectl.for(cluster);
    const manifest = JSON.stringify({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web" },
      spec: { selector: { app: "web" }, ports: [{ port: 80 }] },
    });
    await k.run(["create", "-f", "-"], { stdin: manifest });
    const yaml = (await k.run(["get", "service", "web", "-o", "yaml"])).out;
    for (
      const line of [
        "sessionAffinity: None",
        "type: ClusterIP",
        "internalTrafficPolicy: Cluster",
        "ipFamilyPolicy: SingleStack",
        "- IPv4",
        "protocol: TCP",
        "targetPort: 80",
        "loadBalancer: {}",
      ]
    ) assertStringIncludes(yaml, line);
    const ip = /clusterIP: (\S+)/.exec(yaml)?.[1] ?? "";
    assert(inServiceRange(ip), yaml);
    const table = (await k.run(["get", "service", "web"])).out;
    assertStringIncludes(table, `ClusterIP   ${ip}`);
  },
});
