/**
 * The manifests of `kopf manifests`, from registries built here: the RBAC rules follow
 * what the handlers serve and the operator's scope, no more; the output is stable; the
 * Dockerfile recipe compiles the operator's files in with the permissions given.
 */
import { parseAllDocuments } from "yaml";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import type { JsonObject } from "../../src/structs/bodies.ts";
import { OperatorRegistry } from "../../src/intents/registry.ts";
import { daemon, index, on } from "../../src/intents/registration.ts";
import { OperatorSettings } from "../../src/settings/operator_settings.ts";
import {
  buildManifests,
  manifestNotes,
  manifestsYaml,
  peeringCrds,
  runArgs,
  terminationGracePeriod,
} from "../../src/commands/deployment_manifests.ts";
import {
  type ManifestInput,
  type RbacRule,
  replicasOf,
} from "../../src/commands/manifest_inputs.ts";
import { rbacRules } from "../../src/commands/operator_rbac.ts";
import { resourcesOf } from "../../src/catalog/resource_types.ts";
import { builtinTypes } from "../../src/catalog/builtin_types.ts";
import { compareVersions } from "../../src/catalog/resource_types.ts";
import { crdToType } from "../../src/catalog/custom_resource_definitions.ts";

const EXAMPLES = new URL("../../examples/", import.meta.url);

async function exampleCrd(): Promise<JsonObject> {
  const text = await Deno.readTextFile(new URL("crd.yaml", EXAMPLES));
  return parseAllDocuments(text).map((d) => d.toJS())
    .find((d) => d?.kind === "CustomResourceDefinition") as JsonObject;
}

const RESOURCES = resourcesOf([
  ...builtinTypes(),
  crdToType(await exampleCrd(), compareVersions),
]);

function inputOf(registry: OperatorRegistry, over: Partial<ManifestInput> = {}): ManifestInput {
  return {
    registry,
    settings: new OperatorSettings(),
    resources: RESOURCES,
    clusterwide: false,
    namespaces: ["default"],
    standalone: true,
    image: "example:1",
    name: "example",
    namespace: "operators",
    ...over,
  };
}

/** One registry with a creation handler for KopfExamples. */
function kexRegistry(): OperatorRegistry {
  const registry = new OperatorRegistry();
  on.create("kopf.dev", "v1", "kopfexamples", { registry }, function creator() {});
  return registry;
}

const find = (rules: readonly RbacRule[], resource: string) =>
  rules.filter((r) => r.resources.includes(resource));

Deno.test("one namespace: the served resource, its status and events in a Role; CRDs cluster-wide", () => {
  const { namespaced, cluster } = rbacRules(inputOf(kexRegistry()));
  assertEquals(find(namespaced, "kopfexamples"), [{
    apiGroups: ["kopf.dev"],
    resources: ["kopfexamples"],
    verbs: ["get", "list", "patch", "watch"],
  }]);
  assertEquals(find(namespaced, "kopfexamples/status")[0].verbs, ["patch"]);
  assertEquals(find(namespaced, "events")[0].verbs, ["create"]);
  assertEquals(cluster, [{
    apiGroups: ["apiextensions.k8s.io"],
    resources: ["customresourcedefinitions"],
    verbs: ["list", "watch"],
  }]);
  const objects = buildManifests(inputOf(kexRegistry(), { namespaces: ["b", "a"] }));
  assertEquals(objects.map((o) => `${o.kind} ${(o.metadata as JsonObject).namespace ?? ""}`), [
    "ServiceAccount operators",
    "ClusterRole ",
    "ClusterRoleBinding ",
    "Role a",
    "RoleBinding a",
    "Role b",
    "RoleBinding b",
    "Deployment operators",
  ]);
  const binding = objects.find((o) => o.kind === "RoleBinding")!;
  assertEquals(binding.subjects, [
    { kind: "ServiceAccount", name: "example", namespace: "operators" },
  ]);
});

Deno.test("the whole cluster, or patterns: one ClusterRole; patterns also watch namespaces", () => {
  const whole = buildManifests(inputOf(kexRegistry(), { clusterwide: true, namespaces: [] }));
  assertEquals(whole.filter((o) => o.kind === "Role").length, 0);
  const role = whole.find((o) => o.kind === "ClusterRole")!;
  const rules = role.rules as unknown as RbacRule[];
  assert(find(rules, "kopfexamples").length === 1);
  assertEquals(find(rules, "namespaces"), [], "no namespace watching for the whole cluster");

  const patterns = buildManifests(inputOf(kexRegistry(), { namespaces: ["team-*"] }));
  const patternRules = patterns.find((o) => o.kind === "ClusterRole")!
    .rules as unknown as RbacRule[];
  assertEquals(find(patternRules, "namespaces")[0].verbs, ["list", "watch"]);
  assert(find(patternRules, "kopfexamples").length === 1);
  assertEquals(patterns.filter((o) => o.kind === "Role").length, 0);

  // Without scanning, patterns serve only the names they spell out: Roles there.
  const settings = new OperatorSettings();
  settings.scanning.disabled = true;
  const literal = buildManifests(
    inputOf(kexRegistry(), { settings, namespaces: ["team-*", "ops"] }),
  );
  assertEquals(literal.filter((o) => o.kind === "ClusterRole").length, 0);
  assertEquals(
    literal.filter((o) => o.kind === "Role").map((o) => (o.metadata as JsonObject).namespace),
    ["ops"],
  );
});

Deno.test("indexed only: list and watch; cluster-scoped resources go cluster-wide", () => {
  const registry = new OperatorRegistry();
  index("pods", { registry }, function byName({ name }) {
    return name;
  });
  daemon("namespaces", { registry }, function watcher() {});
  const { namespaced, cluster } = rbacRules(inputOf(registry));
  assertEquals(find(namespaced, "pods")[0].verbs, ["list", "watch"]);
  assertEquals(find(namespaced, "pods/status"), [], "nothing is stored on indexed objects");
  assertEquals(find(cluster, "namespaces")[0].verbs, ["get", "list", "patch", "watch"]);
  assertEquals(find(cluster, "namespaces/status")[0].verbs, ["patch"]);
  // Events about cluster-scoped objects go to the default namespace, which a Role for
  // another namespace does not cover.
  assertEquals(find(cluster, "events")[0].verbs, ["create"]);
});

Deno.test("child handlers: the parents served, the children listed, watched and read", () => {
  const registry = new OperatorRegistry();
  on.child("kopfexamples", "configmaps", { registry }, function repair() {});
  const { namespaced } = rbacRules(inputOf(registry));
  assertEquals(find(namespaced, "kopfexamples")[0].verbs, ["get", "list", "patch", "watch"]);
  assertEquals(find(namespaced, "configmaps")[0].verbs, ["get", "list", "watch"]);
});

Deno.test("settings and declared rules: posting off, scanning off, --rule, webhooks, peering", () => {
  const settings = new OperatorSettings();
  settings.posting.enabled = false;
  settings.scanning.disabled = true;
  settings.admission.managed = "example.kopf.dev";
  const registry = kexRegistry();
  on.validate("kopfexamples", { registry }, function validator() {});
  const { namespaced, cluster } = rbacRules(inputOf(registry, {
    settings,
    standalone: false,
    peeringName: "example",
    rules: [
      { apiGroups: [""], resources: ["pods"], verbs: ["create", "delete"], namespaced: true },
      { apiGroups: [""], resources: ["namespaces"], verbs: ["get"], namespaced: false },
    ],
  }));
  assertEquals(find(namespaced, "events"), []);
  assertEquals(find(cluster, "customresourcedefinitions"), []);
  assertEquals(find(namespaced, "pods")[0].verbs, ["create", "delete"]);
  assertEquals(find(cluster, "namespaces")[0].verbs, ["get"]);
  assertEquals(find(namespaced, "kopfpeerings")[0].verbs, ["get", "list", "patch", "watch"]);
  assertEquals(find(cluster, "validatingwebhookconfigurations"), [{
    apiGroups: ["admissionregistration.k8s.io"],
    resources: ["mutatingwebhookconfigurations", "validatingwebhookconfigurations"],
    verbs: ["create", "list", "watch"],
  }, {
    apiGroups: ["admissionregistration.k8s.io"],
    resources: ["mutatingwebhookconfigurations", "validatingwebhookconfigurations"],
    verbs: ["get", "patch"],
    resourceNames: ["example.kopf.dev"],
  }]);
});

Deno.test("admission handlers: a Service to the webhook port, and a note on the server to set", () => {
  const registry = kexRegistry();
  on.mutate("kopfexamples", { registry }, function mutator() {});
  const input = inputOf(registry, { webhookPort: 8443 });
  const objects = buildManifests(input);
  const service = objects.find((o) => o.kind === "Service")!;
  assertEquals(service.metadata, {
    name: "example-webhook",
    namespace: "operators",
    labels: {
      "app.kubernetes.io/name": "example",
      "app.kubernetes.io/instance": "example",
      "app.kubernetes.io/managed-by": "kopf",
    },
  });
  assertEquals(service.spec, {
    selector: { "app.kubernetes.io/name": "example", "app.kubernetes.io/instance": "example" },
    ports: [{ name: "webhook", port: 8443, targetPort: "webhook" }],
  });
  const deployment = objects.find((o) => o.kind === "Deployment")!;
  const pod = ((deployment.spec as JsonObject).template as JsonObject).spec as JsonObject;
  assertEquals(((pod.containers as JsonObject[])[0].ports as JsonObject[])[1], {
    name: "webhook",
    containerPort: 8443,
  });
  assertStringIncludes(
    manifestNotes(input)[0],
    'new kopf.WebhookServer({ addr: "0.0.0.0", port: 8443, host: "example-webhook.operators.svc" })',
  );
  assertEquals(buildManifests(inputOf(kexRegistry())).filter((o) => o.kind === "Service"), []);
});

Deno.test("peering: the CRDs and the peering objects; a note for namespaces of patterns", () => {
  const input = inputOf(kexRegistry(), {
    standalone: false,
    peeringName: "example",
    namespaces: ["default", "team-*"],
  });
  const objects = buildManifests(input);
  assertEquals(
    objects.filter((o) => o.kind === "KopfPeering").map((o) => o.metadata),
    [{ name: "example", namespace: "default" }],
  );
  assertEquals(objects.filter((o) => o.kind === "CustomResourceDefinition").length, 2);
  assertEquals(runArgs(input).slice(0, 6), [
    "--namespace",
    "default",
    "--namespace",
    "team-*",
    "--peering",
    "example",
  ]);
  assertStringIncludes(manifestNotes(input)[0], "KopfPeering named example");
  assertStringIncludes(manifestNotes(input)[0], "team-*");
  const clusterwide = buildManifests({ ...input, clusterwide: true, namespaces: [] });
  assertEquals(clusterwide.filter((o) => o.kind === "ClusterKopfPeering").length, 1);
  const rules = clusterwide.find((o) => o.kind === "ClusterRole")!.rules as unknown as RbacRule[];
  assert(find(rules, "clusterkopfpeerings").length === 1);
});

Deno.test("examples/peering.yaml holds exactly the peering CRDs of kopf manifests", async () => {
  const text = await Deno.readTextFile(new URL("peering.yaml", EXAMPLES));
  const documents = parseAllDocuments(text).map((d) => d.toJS());
  assertEquals(documents, peeringCrds());
});

Deno.test("the Deployment: non-root, read-only, probes, the grace period, metrics when asked", () => {
  const settings = new OperatorSettings();
  settings.batching.exitTimeout = 60;
  const input = inputOf(kexRegistry(), { settings, metricsPort: 9090 });
  const deployment = buildManifests(input).find((o) => o.kind === "Deployment")!;
  const pod = ((deployment.spec as JsonObject).template as JsonObject).spec as JsonObject;
  const [container] = pod.containers as JsonObject[];
  assertEquals(pod.terminationGracePeriodSeconds, 130);
  assertEquals(terminationGracePeriod(new OperatorSettings()), 30, "at least the default");
  assertEquals(pod.serviceAccountName, "example");
  assertEquals((pod.securityContext as JsonObject).runAsNonRoot, true);
  assertEquals((container.securityContext as JsonObject).readOnlyRootFilesystem, true);
  assertEquals((container.securityContext as JsonObject).allowPrivilegeEscalation, false);
  assertEquals(container.image, "example:1");
  assertEquals(container.args, [
    "--namespace",
    "default",
    "--standalone",
    "--liveness",
    "http://0.0.0.0:8080/healthz",
    "--metrics",
    "0.0.0.0:9090",
    "--grace-period",
    "60",
  ]);
  assertEquals(((container.livenessProbe as JsonObject).httpGet as JsonObject).path, "/healthz");
  assertEquals(((container.readinessProbe as JsonObject).httpGet as JsonObject).path, "/readyz");
  assertEquals(
    (container.ports as JsonObject[]).map((p) => p.containerPort),
    [8080, 9090],
  );
});

const nameOf = (o: JsonObject) => (o.metadata as JsonObject | undefined)?.name;

Deno.test("leader election and sharding: replicas, a rolling update, the Leases' Role, POD_ID", () => {
  const elected = inputOf(kexRegistry(), { leadership: { leaderElection: true, shards: 1 } });
  const objects = buildManifests(elected);
  const deployment = objects.find((o) => o.kind === "Deployment")!;
  const spec = deployment.spec as JsonObject;
  assertEquals(spec.replicas, 2);
  assertEquals((spec.strategy as JsonObject).type, "RollingUpdate");
  const [container] = ((spec.template as JsonObject).spec as JsonObject).containers as JsonObject[];
  const args = container.args as string[];
  assert(!args.includes("--standalone"), "coordinated replicas do not peer anyway");
  assertEquals(args.slice(2, 5), ["--leader-election", "--leader-election-id", "example"]);
  assertEquals(container.env, [
    { name: "POD_ID", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
    { name: "DENO_TLS_CA_STORE", value: "" },
  ]);
  const role = objects.find((o) => o.kind === "Role" && nameOf(o) === "example-leases")!;
  assertEquals(
    (role.metadata as JsonObject).namespace,
    "operators",
    "in the operator's own namespace",
  );
  assertEquals(role.rules, [
    { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
    {
      apiGroups: ["coordination.k8s.io"],
      resources: ["leases"],
      resourceNames: ["example"],
      verbs: ["get", "update"],
    },
  ]);
  assert(objects.some((o) => o.kind === "RoleBinding" && nameOf(o) === "example-leases"));

  const sharded = inputOf(kexRegistry(), { leadership: { leaderElection: false, shards: 3 } });
  assertEquals(replicasOf(sharded), 3);
  assertEquals(replicasOf({ ...sharded, replicas: 5 }), 5);
  assertEquals(runArgs(sharded).slice(2, 6), ["--shards", "3", "--leader-election-id", "example"]);
  const shardRole = buildManifests(sharded).find((o) => nameOf(o) === "example-leases")!;
  assertEquals((shardRole.rules as JsonObject[])[0].verbs, [
    "create",
    "delete",
    "get",
    "list",
    "update",
  ]);

  const single = buildManifests(inputOf(kexRegistry()));
  assertEquals(replicasOf(inputOf(kexRegistry())), 1);
  assert(!single.some((o) => nameOf(o) === "example-leases"));
  const recreate = single.find((o) => o.kind === "Deployment")!.spec as JsonObject;
  assertEquals((recreate.strategy as JsonObject).type, "Recreate");
});

Deno.test("the output is stable: the same handlers in another order, the same bytes", () => {
  const one = new OperatorRegistry();
  const options = (registry: OperatorRegistry, id: string) => ({ registry, id });
  on.create("kopfexamples", options(one, "a"), () => {});
  index("pods", options(one, "b"), () => 1);
  on.update("deployments", options(one, "c"), () => {});
  const two = new OperatorRegistry();
  on.update("deployments", options(two, "c"), () => {});
  index("pods", options(two, "b"), () => 1);
  on.create("kopfexamples", options(two, "a"), () => {});
  const text = manifestsYaml(buildManifests(inputOf(one)));
  assertEquals(manifestsYaml(buildManifests(inputOf(two))), text);
  assert(!/[&*]a\d/.test(text), "no YAML anchors or aliases");
  const documents = parseAllDocuments(text).map((d) => d.toJS());
  assertEquals(documents, buildManifests(inputOf(one)));
});

Deno.test("the Deployment empties Deno's root store; publicRoots keeps the runtime's roots", () => {
  const envOf = (input: ManifestInput) => {
    const deployment = buildManifests(input).find((o) => o.kind === "Deployment")!;
    const pod = (deployment.spec as JsonObject).template as JsonObject;
    const [container] = (pod.spec as JsonObject).containers as JsonObject[];
    return container.env as JsonObject[];
  };
  const trusting = envOf(inputOf(kexRegistry()));
  assertEquals(trusting.find((e) => e.name === "DENO_TLS_CA_STORE"), {
    name: "DENO_TLS_CA_STORE",
    value: "",
  });
  assertStringIncludes(
    manifestsYaml(buildManifests(inputOf(kexRegistry()))),
    '- name: DENO_TLS_CA_STORE\n              value: ""\n',
    "an empty string in the YAML, not a null that would drop the variable",
  );
  const keeping = envOf(inputOf(kexRegistry(), { publicRoots: true }));
  assertEquals(keeping.map((e) => e.name), ["POD_ID"]);
});
