/**
 * The Helm chart of `kopf manifests --helm`: rendered with its default values (by the
 * Go-template subset of ./helm_render.ts, as Helm renders it), it yields the documents of
 * `kopf manifests` for the same input, each byte for byte — in Helm's order of kinds; its
 * values change the render as the equivalent flags change the manifests; and its
 * templates use exactly the constructs that the renderer knows.
 */
import { parseAllDocuments } from "yaml";
import { assert, assertEquals, assertStringIncludes, assertThrows } from "../assert.ts";
import type { JsonObject } from "../../src/structs/bodies.ts";
import { OperatorRegistry } from "../../src/intents/registry.ts";
import { on } from "../../src/intents/registration.ts";
import { OperatorSettings } from "../../src/settings/operator_settings.ts";
import { buildManifests, manifestsYaml } from "../../src/commands/deployment_manifests.ts";
import type { ManifestInput } from "../../src/commands/manifest_inputs.ts";
import {
  CHART_FILES,
  type ChartFile,
  helmChart,
  imageParts,
} from "../../src/commands/helm_chart.ts";
import { resourcesOf } from "../../src/catalog/resource_types.ts";
import { builtinTypes } from "../../src/catalog/builtin_types.ts";
import { compareVersions } from "../../src/catalog/resource_types.ts";
import { crdToType } from "../../src/catalog/custom_resource_definitions.ts";
import {
  CONSTRUCTS,
  constructsOf,
  helmOrder,
  helmToYaml,
  renderChart,
  renderTemplate,
  splitDocuments,
} from "./helm_render.ts";

const CRD = parseAllDocuments(
  await Deno.readTextFile(new URL("../../examples/crd.yaml", import.meta.url)),
).map((d) => d.toJS()).find((d) => d?.kind === "CustomResourceDefinition") as JsonObject;
const RESOURCES = resourcesOf([...builtinTypes(), crdToType(CRD, compareVersions)]);

function registry(admission = false): OperatorRegistry {
  const registry = new OperatorRegistry();
  on.create("kopf.dev", "v1", "kopfexamples", { registry }, function creator() {});
  // A cluster-scoped resource too: its events go to the default namespace.
  on.update("v1", "namespaces", { registry }, function renamed() {});
  if (admission) on.validate("kopfexamples", { registry }, function validator() {});
  return registry;
}

function inputOf(over: Partial<ManifestInput> = {}): ManifestInput {
  return {
    registry: registry(),
    settings: new OperatorSettings(),
    resources: RESOURCES,
    clusterwide: false,
    namespaces: ["default"],
    standalone: true,
    image: "example:1",
    name: "example",
    namespace: "default",
    ...over,
  };
}

/** The documents that `kopf manifests` prints for the input (the header's comments aside). */
function manifestDocuments(input: ManifestInput): string[] {
  return splitDocuments(manifestsYaml(buildManifests(input)))
    .filter((d) => !d.split("\n").every((line) => line.startsWith("#")));
}

const CONFIGURATIONS: Record<string, Partial<ManifestInput>> = {
  "one namespace, standalone": {},
  "namespaces, peering, leader election, another namespace": {
    namespaces: ["ns1", "ns2"],
    standalone: false,
    peeringName: "example",
    leadership: { leaderElection: true, shards: 1 },
    namespace: "operators",
  },
  "the whole cluster, peering, metrics": {
    clusterwide: true,
    namespaces: [],
    standalone: false,
    peeringName: "example",
    metricsPort: 9090,
  },
  "patterns, shards, replicas": {
    namespaces: ["team-*", "ops"],
    leadership: { leaderElection: false, shards: 3 },
    replicas: 5,
  },
  "admission webhooks, a grace period, rules": {
    registry: registry(true),
    webhookPort: 8443,
    settings: (() => {
      const settings = new OperatorSettings();
      settings.batching.exitTimeout = 45;
      settings.admission.managed = "example.kopf.dev";
      return settings;
    })(),
    rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["create"], namespaced: true }],
  },
  "public roots kept": { publicRoots: true },
};

for (const [name, over] of Object.entries(CONFIGURATIONS)) {
  Deno.test(`the chart's default render is what kopf manifests prints: ${name}`, () => {
    const input = inputOf(over);
    const chart = helmChart(input, "kopf test");
    const rendered = renderChart(chart);
    // Compared in one order: by kind as Helm orders them, then by text.
    const canonical = (documents: string[]) => helmOrder([...documents].sort()).join("\n---\n");
    assertEquals(canonical(rendered.documents), canonical(manifestDocuments(input)));
    for (const file of chart) assert(CHART_FILES.includes(file.path), file.path);
  });
}

Deno.test("the documents are the same in both orders: Helm's order only moves them", () => {
  const input = inputOf(CONFIGURATIONS["namespaces, peering, leader election, another namespace"]);
  const rendered = renderChart(helmChart(input, "kopf test")).documents;
  const manifests = manifestDocuments(input);
  assertEquals([...rendered].sort(), [...manifests].sort());
  assert(rendered.join() !== manifests.join(), "Helm's order differs here: the check sees order");
  const kinds = rendered.map((d) => /^kind: (\w+)$/m.exec(d)![1]);
  assertEquals(kinds, [
    "CustomResourceDefinition",
    "CustomResourceDefinition",
    "ServiceAccount",
    "ClusterRole",
    "ClusterRoleBinding",
    "Role",
    "Role",
    "Role",
    "RoleBinding",
    "RoleBinding",
    "RoleBinding",
    "Deployment",
    "KopfPeering",
    "KopfPeering",
  ]);
});

/** The render of the chart of `base` with the values, against the manifests of `changed`. */
function assertValuesAct(
  base: Partial<ManifestInput>,
  values: Record<string, unknown>,
  changed: Partial<ManifestInput>,
  namespace?: string,
): string[] {
  const rendered = renderChart(helmChart(inputOf(base), "kopf test"), { values, namespace });
  const expected = manifestDocuments(inputOf({ ...base, ...changed }));
  assertEquals([...rendered.documents].sort(), [...expected].sort());
  return rendered.documents;
}

Deno.test("values change the render as the flags change the manifests", () => {
  const rendered = assertValuesAct({}, {
    replicas: 3,
    image: { repository: "registry.example/op", tag: "2" },
  }, {
    replicas: 3,
    image: "registry.example/op:2",
  });
  const deployment = rendered.find((d) => d.includes("kind: Deployment"))!;
  assertStringIncludes(deployment, "  replicas: 3\n");
  assertStringIncludes(deployment, "image: registry.example/op:2\n");

  // Replicas that coordinate: the Leases' Role appears, the strategy rolls.
  assertValuesAct({}, { leaderElection: true, replicas: 2 }, {
    leadership: { leaderElection: true, shards: 1 },
  });
  assertValuesAct({}, { shards: 4, replicas: 4 }, {
    leadership: { leaderElection: false, shards: 4 },
  });
  // And back: a chart made with leader election, switched off.
  assertValuesAct({ leadership: { leaderElection: true, shards: 1 } }, {
    leaderElection: false,
    replicas: 1,
  }, { leadership: undefined });
  assertValuesAct({}, { metricsPort: 9102 }, { metricsPort: 9102 });
  assertValuesAct({ metricsPort: 9102 }, { metricsPort: null }, { metricsPort: undefined });
  // The root store: emptied unless publicRoots, both ways.
  const kept = assertValuesAct({}, { publicRoots: true }, { publicRoots: true });
  assert(!kept.some((d) => d.includes("DENO_TLS_CA_STORE")), "publicRoots drops the variable");
  assertValuesAct({ publicRoots: true }, { publicRoots: false }, { publicRoots: undefined });
  // The operator's namespace: the value, else the release's.
  assertValuesAct({}, { namespace: "operators" }, { namespace: "operators" });
  assertValuesAct({}, {}, { namespace: "operators" }, "operators");
  assertValuesAct({ namespace: "operators" }, {}, { namespace: "operators" }, "elsewhere");
});

Deno.test("values without a flag: more arguments, resources merged as Helm merges values", () => {
  const chart = helmChart(inputOf(), "kopf test");
  const deployment = (values: Record<string, unknown>) => {
    const docs = renderChart(chart, { values }).documents;
    const text = docs.find((d) => d.includes("kind: Deployment"))!;
    const [container] = (((parseAllDocuments(text)[0].toJS() as JsonObject).spec as JsonObject)
      .template as { spec: { containers: JsonObject[] } }).spec.containers;
    return container;
  };
  const args = deployment({ args: ["--verbose", "--log-format=json"] }).args as string[];
  assertEquals(args.slice(-4), ["--grace-period", "2", "--verbose", "--log-format=json"]);
  assertEquals(deployment({ resources: { requests: { cpu: "250m" } } }).resources, {
    limits: { memory: "512Mi" },
    requests: { cpu: "250m", memory: "192Mi" },
  });
  // An empty map merges into the defaults; null removes them, as in Helm.
  assertEquals(deployment({ resources: {} }).resources, deployment({}).resources);
  assertEquals(deployment({ resources: null }).resources, null);
});

Deno.test("values.yaml holds the defaults that render the manifests, each explained", () => {
  const values = (input: ManifestInput) =>
    parseAllDocuments(helmChart(input, "kopf test").find((f) => f.path === "values.yaml")!.text)[0]
      .toJS();
  assertEquals(values(inputOf()), {
    nameOverride: "",
    fullnameOverride: "",
    image: { repository: "example", tag: "", pullPolicy: "" },
    imagePullSecrets: [],
    serviceAccount: { create: true, name: "", annotations: {} },
    replicas: 1,
    namespace: "",
    resources: { limits: { memory: "512Mi" }, requests: { cpu: "100m", memory: "192Mi" } },
    podAnnotations: {},
    nodeSelector: {},
    tolerations: [],
    affinity: {},
    leaderElection: false,
    shards: 0,
    metricsPort: null,
    publicRoots: false,
    args: [],
  });
  assertEquals(values(inputOf({ publicRoots: true })).publicRoots, true);
  const sharded = values(inputOf(CONFIGURATIONS["patterns, shards, replicas"]));
  assertEquals([sharded.leaderElection, sharded.shards, sharded.replicas], [false, 3, 5]);
  const text = helmChart(inputOf(), "kopf 9.9.9").find((f) => f.path === "values.yaml")!.text;
  assertStringIncludes(text, "(kopf 9.9.9)");
  for (const key of Object.keys(values(inputOf()))) {
    assert(new RegExp(`#[^\\n]*\\n${key}:`).test(text), `${key} has a comment`);
  }
  const chartYaml = helmChart(inputOf(), "kopf test").find((f) => f.path === "Chart.yaml")!;
  assertEquals(parseAllDocuments(chartYaml.text)[0].toJS(), {
    apiVersion: "v2",
    name: "example",
    description: "The operator example: its RBAC, ServiceAccount and Deployment.",
    type: "application",
    version: "0.1.0",
    appVersion: "1",
  });
});

Deno.test("NOTES.txt names the operator's namespace and carries the manifests' notes", () => {
  const input = inputOf({ registry: registry(true), namespaces: ["team-*"], peeringName: "p" });
  const { notes } = renderChart(helmChart(input, "kopf test"), { namespace: "operators" });
  assertStringIncludes(notes, "runs as the Deployment example in the namespace operators.");
  assertStringIncludes(notes, 'host: "example-webhook.operators.svc"');
  assertStringIncludes(notes, "NOTE: Create a KopfPeering named p in each namespace");
});

Deno.test("the templates use exactly the constructs that the test renderer knows", () => {
  const used = new Set<string>();
  for (const over of Object.values(CONFIGURATIONS)) {
    for (const file of helmChart(inputOf(over), "kopf test")) {
      if (!file.path.startsWith("templates/")) {
        assertEquals(constructsOf(file.text), new Set(), `${file.path} is not templated`);
      }
      for (const construct of constructsOf(file.text)) used.add(construct);
    }
  }
  assertEquals([...used].sort(), [...CONSTRUCTS].sort());
});

Deno.test("the test renderer follows Helm on the constructs, and refuses others", () => {
  const context = {
    values: { n: 0, s: "", list: ["a", "1"], map: { b: [1], a: "x" }, t: true, port: 80 },
    releaseNamespace: "rel",
  };
  const render = (text: string) => renderTemplate(text, context);
  assertEquals(
    render("a:\n  {{- if .Values.n }}\n  no\n  {{- else }}\n  yes\n  {{- end }}\n"),
    "a:\n  yes\n",
  );
  assertEquals(render("{{ if .Values.s }}1{{ else if .Values.list }}2{{ end }}"), "2");
  assertEquals(render("{{ .Values.s | default .Release.Namespace }}"), "rel");
  assertEquals(render("{{ .Values.missing }}|{{ .Values.port | quote }}"), '|"80"');
  assertEquals(render("{{ or .Values.n .Values.s }}|{{ or .Values.n .Values.t }}"), "|true");
  assertEquals(render("k: {{- toYaml .Values.map | nindent 2 }}"), "k:\n  a: x\n  b:\n  - 1");
  assertEquals(helmToYaml(["a", "1", true]), '- a\n- "1"\n- true');
  // -}} trims what follows; comments print nothing; defines print nothing, include them.
  assertEquals(render("a {{- /* no */ -}}\n  b"), "ab");
  assertEquals(
    render('{{- define "t" -}}\n{{ .Values.port }}!\n{{- end }}\n[{{ include "t" . }}]'),
    "\n[80!]",
  );
  assertEquals(
    render('{{ printf "%s-%s" .Release.Namespace "x" | trunc 5 | trimSuffix "-" }}'),
    "rel-x",
  );
  assertEquals(render('{{ printf "%s-%s" "ab" "cdef" | trunc 3 | trimSuffix "-" }}'), "ab");
  assertEquals(render('{{ if contains "el" .Release.Namespace }}yes{{ end }}'), "yes");
  assertEquals(render('{{ if contains .Release.Namespace "el" }}yes{{ end }}'), "");
  assertEquals(render('{{ default (printf "%s" "d") .Values.s }}'), "d");
  for (
    const construct of [
      '{{ include "missing" . }}',
      '{{ define "t" }}x{{ end }}{{ include "t" .Values }}',
      "{{ .Chart.Home }}",
      "{{ range .Values.list }}{{ end }}",
      "{{ with .Values.map }}{{ end }}",
      '{{ printf "%d" 1 }}',
      "{{ $x := 1 }}",
    ]
  ) {
    assertThrows(() => render(construct), Error);
  }
});

Deno.test("a chart's files are only those of CHART_FILES", () => {
  const chart: ChartFile[] = helmChart(
    inputOf({ ...CONFIGURATIONS["admission webhooks, a grace period, rules"], peeringName: "p" }),
    "kopf test",
  );
  assertEquals(chart.map((f) => f.path).sort(), [...CHART_FILES].sort());
});

/** The objects' kinds and names of a render (cluster-scoped ones without a namespace). */
function namesOf(documents: readonly string[]): string[] {
  return documents.map((d) => parseAllDocuments(d)[0].toJS() as JsonObject)
    .filter((o) => o.kind !== "CustomResourceDefinition")
    .map((o) => `${o.kind}/${(o.metadata as JsonObject).name}`);
}

Deno.test("two releases in one namespace: objects and selectors of their own", () => {
  for (const over of [{}, CONFIGURATIONS["admission webhooks, a grace period, rules"]]) {
    const chart = helmChart(
      inputOf({ ...over, leadership: { leaderElection: true, shards: 1 } }),
      "kopf test",
    );
    const one = renderChart(chart, { releaseName: "one" }).documents;
    const two = renderChart(chart, { releaseName: "two" }).documents;
    assert(namesOf(one).length >= 6, namesOf(one).join());
    assertEquals(namesOf(one).filter((name) => namesOf(two).includes(name)), []);
    assert(namesOf(one).includes("Deployment/one-example"), namesOf(one).join());
    const deployment = (documents: string[]) =>
      parseAllDocuments(documents.find((d) => d.includes("kind: Deployment"))!)[0].toJS();
    const { spec } = deployment(two);
    assertEquals(spec.selector.matchLabels, {
      "app.kubernetes.io/name": "example",
      "app.kubernetes.io/instance": "two",
    });
    assertEquals(spec.template.spec.serviceAccountName, "two-example");
    const args = spec.template.spec.containers[0].args as string[];
    assertEquals(args[args.indexOf("--leader-election-id") + 1], "two-example");
    const binding = parseAllDocuments(two.find((d) => d.includes("kind: RoleBinding"))!)[0].toJS();
    assertEquals(binding.subjects, [
      { kind: "ServiceAccount", name: "two-example", namespace: "default" },
    ]);
  }
  // A release whose name holds the chart's is the objects' name; overrides win.
  const chart = helmChart(inputOf(), "kopf test");
  assert(
    namesOf(renderChart(chart, { releaseName: "example-prod" }).documents)
      .includes("Deployment/example-prod"),
  );
  const overridden = (values: Record<string, unknown>) =>
    namesOf(renderChart(chart, { releaseName: "r", values }).documents);
  assert(overridden({ fullnameOverride: "op" }).includes("Deployment/op"));
  assert(overridden({ nameOverride: "app" }).includes("Deployment/r-app"));
  assert(
    overridden({ fullnameOverride: `${"x".repeat(62)}-y` }).includes(
      `Deployment/${"x".repeat(62)}`,
    ),
  );
});

Deno.test("the values that Helm users expect: image, pull secrets, ServiceAccount, placement", () => {
  const chart = helmChart(inputOf({ image: "registry.example/op:1.2" }), "kopf test");
  const chartYaml = parseAllDocuments(chart.find((f) => f.path === "Chart.yaml")!.text)[0].toJS();
  assertEquals(chartYaml.appVersion, "1.2");
  const render = (values: Record<string, unknown>) => {
    const documents = renderChart(chart, { values }).documents;
    const objects = documents.map((d) => parseAllDocuments(d)[0].toJS() as JsonObject);
    const deployment = objects.find((o) => o.kind === "Deployment") as {
      spec: { template: { metadata: JsonObject; spec: Record<string, unknown> } };
    };
    return { objects, pod: deployment.spec.template };
  };
  const defaults = render({});
  assertEquals(
    (defaults.pod.spec.containers as JsonObject[])[0].image,
    "registry.example/op:1.2",
  );
  for (const key of ["imagePullSecrets", "nodeSelector", "tolerations", "affinity"]) {
    assertEquals(key in defaults.pod.spec, false, key);
  }
  assertEquals("annotations" in defaults.pod.metadata, false);

  const placement = {
    image: { tag: "1.3", pullPolicy: "Always" },
    imagePullSecrets: [{ name: "regcred" }],
    nodeSelector: { "kubernetes.io/os": "linux" },
    tolerations: [{ key: "dedicated", operator: "Equal", value: "ops", effect: "NoSchedule" }],
    affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] } },
    podAnnotations: { "example.com/team": "ops" },
    metricsPort: 9090,
  };
  const { pod } = render(placement);
  const [container] = pod.spec.containers as JsonObject[];
  assertEquals([container.image, container.imagePullPolicy], ["registry.example/op:1.3", "Always"]);
  assertEquals(pod.spec.imagePullSecrets, placement.imagePullSecrets);
  assertEquals(pod.spec.nodeSelector, placement.nodeSelector);
  assertEquals(pod.spec.tolerations, placement.tolerations);
  assertEquals(pod.spec.affinity, placement.affinity);
  assertEquals(pod.metadata.annotations, {
    "prometheus.io/scrape": "true",
    "prometheus.io/port": "9090",
    "prometheus.io/path": "/metrics",
    "example.com/team": "ops",
  });
  assertEquals(render({ podAnnotations: { a: "b" } }).pod.metadata.annotations, { a: "b" });

  // The ServiceAccount: annotated, or not created and named (else the namespace's default).
  const annotated = render({ serviceAccount: { annotations: { "iam/role": "r" } } }).objects
    .find((o) => o.kind === "ServiceAccount")!;
  assertEquals((annotated.metadata as JsonObject).annotations, { "iam/role": "r" });
  for (
    const [serviceAccount, name] of [[{ create: false, name: "ops" }, "ops"], [
      { create: false },
      "default",
    ]] as const
  ) {
    const { objects, pod } = render({ serviceAccount });
    assertEquals(objects.some((o) => o.kind === "ServiceAccount"), false);
    assertEquals(pod.spec.serviceAccountName, name);
    const binding = objects.find((o) => o.kind === "RoleBinding")!;
    assertEquals((binding.subjects as JsonObject[])[0].name, name);
  }
});

Deno.test("an image without a tag is :latest in the chart; with a registry port, split at the tag", () => {
  assertEquals(imageParts("op"), { repository: "op", tag: "latest" });
  assertEquals(imageParts("registry:5000/team/op"), {
    repository: "registry:5000/team/op",
    tag: "latest",
  });
  assertEquals(imageParts("registry:5000/team/op:2"), {
    repository: "registry:5000/team/op",
    tag: "2",
  });
});
