/**
 * `kopf manifests --helm DIR`: the manifests of `kopf manifests` as a Helm chart. Rendered
 * with its default values, the chart yields the same documents as `kopf manifests` with
 * the same flags, byte for byte (Helm applies them in its own order of kinds). The values
 * change what a deployment chooses -- the image, the replicas and how they coordinate, the
 * namespace, the resources, the metrics port, more arguments of `kopf run` -- while what
 * the operator's handlers decide (the RBAC, the served namespaces, the peering) is fixed
 * when the chart is generated, as in the manifests.
 *
 * The chart is written as Helm charts are: its objects are named after the release
 * (`_helpers.tpl`'s `fullname`, with `nameOverride` and `fullnameOverride`), so that two
 * releases in one namespace do not collide, and installed as the chart's own name (as
 * `kopf manifests --helm` says to) they have the names of `kopf manifests`; the image is
 * `image.repository`, `image.tag` (the chart's `appVersion` by default) and
 * `image.pullPolicy`; `serviceAccount.create/name/annotations`, `imagePullSecrets`,
 * `podAnnotations`, `resources`, `nodeSelector`, `tolerations` and `affinity` are there;
 * `publicRoots` keeps the runtime's public root CAs, which the pods otherwise go without.
 *
 * The templates use few of Helm's constructs, on purpose: values, the release's name and
 * namespace, the chart's name and appVersion, `define`/`include`, `if`/`else if`/`else`/
 * `end`, `or`, `default`, `quote`, `toYaml`, `nindent`, `printf`, `trunc`, `trimSuffix`
 * and `contains`. They are made from the manifests' own objects: the parts that values
 * change are replaced by markers, the objects written as YAML, and the markers by
 * templates.
 *
 * @module
 */
import { stringify as toYaml } from "yaml";
import type { JsonObject, JsonValue } from "../structs/bodies.ts";
import {
  buildManifests,
  EMPTY_ROOT_STORE,
  manifestNotes,
  OPERATOR_RESOURCES,
  runArgParts,
} from "./deployment_manifests.ts";
import { coordinated, type ManifestInput, replicasOf } from "./manifest_inputs.ts";
import { leasesRoleName } from "./operator_rbac.ts";

/** One file of a chart: its path in the chart's directory, and its text. */
export interface ChartFile {
  /** E.g. `templates/deployment.yaml`. */
  readonly path: string;
  /** The file's text. */
  readonly text: string;
}

/**
 * Every file that the generator writes for some operator: regenerating a chart removes
 * those of them that the operator no longer needs, and leaves any other file alone.
 */
export const CHART_FILES: readonly string[] = [
  "Chart.yaml",
  "values.yaml",
  "crds/kopf-peerings.yaml",
  "templates/NOTES.txt",
  "templates/_helpers.tpl",
  "templates/deployment.yaml",
  "templates/leases.yaml",
  "templates/peering.yaml",
  "templates/rbac.yaml",
  "templates/serviceaccount.yaml",
  "templates/webhook-service.yaml",
];

/** The operator's namespace in the templates: the value, else the release's. */
const NAMESPACE = ".Values.namespace | default .Release.Namespace";

/** Whether the replicas coordinate through Leases, in the templates. */
const COORDINATED = "or .Values.leaderElection .Values.shards";

/** The chart's own version, for a chart just generated. */
const CHART_VERSION = "0.1.0";

/** Writes an object as `kopf manifests` does. */
function yamlText(value: JsonValue): string {
  return toYaml(value, { lineWidth: 0, aliasDuplicateObjects: false }).trimEnd();
}

/** Fills a block marker: the lines for the marker's line, given its indentation and head. */
type Fill = (indent: string, head: string) => string[];

/**
 * Markers in objects that become templates once the objects are written as YAML: a value
 * marker is replaced by `{{ expression }}` wherever it is; a block marker, the last thing
 * on its line (`key: MARKER` or `- MARKER`), by the lines its fill makes.
 */
class Markers {
  readonly #values: string[] = [];
  readonly #blocks: Fill[] = [];
  /** The chart's name, which its named templates begin with. */
  readonly chart: string;

  constructor(chart: string) {
    this.chart = chart;
  }

  /** The expression of a named template of `_helpers.tpl`: `include "CHART.NAME" .`. */
  include(name: "name" | "fullname" | "serviceAccountName"): string {
    return `include "${this.chart}.${name}" .`;
  }

  /** A scalar that renders as the value of the template expression. */
  value(expression: string): string {
    this.#values.push(expression);
    return `kopf-helm-value-${this.#values.length - 1}`;
  }

  /** A key or list item whose lines the fill makes. */
  block(fill: Fill): string {
    this.#blocks.push(fill);
    return `kopf-helm-block-${this.#blocks.length - 1}`;
  }

  /** The value as YAML lines at the indentation, the markers replaced. */
  lines(value: JsonValue, indent = ""): string[] {
    return yamlText(value).split("\n").flatMap((line) => {
      const block = /^(\s*)(.*?)kopf-helm-block-(\d+)$/.exec(line);
      const lines = block ? this.#blocks[Number(block[3])](block[1], block[2]) : [line];
      return lines.map((l) => indent + this.#withValues(l));
    });
  }

  /** A text with its value markers replaced. */
  text(text: string): string {
    return this.#withValues(text);
  }

  #withValues(line: string): string {
    return line.replace(/kopf-helm-value-(\d+)/g, (_, i) => `{{ ${this.#values[Number(i)]} }}`);
  }
}

/** `{{- if ... }}` branches and an optional `{{- else }}`, at the indentation. */
function conditional(
  indent: string,
  branches: readonly (readonly [string, readonly string[]])[],
  otherwise: readonly string[] = [],
): string[] {
  const lines: string[] = [];
  branches.forEach(([condition, body], i) => {
    lines.push(`${indent}{{- ${i === 0 ? "if" : "else if"} ${condition} }}`, ...body);
  });
  if (otherwise.length > 0) lines.push(`${indent}{{- else }}`, ...otherwise);
  lines.push(`${indent}{{- end }}`);
  return lines;
}

/** The documents of a template file, each after `---`, named after the release. */
function documents(marks: Markers, objects: readonly JsonObject[]): string {
  return objects.map((object) => `---\n${marks.lines(releaseNamed(marks, object)).join("\n")}\n`)
    .join("");
}

/**
 * An object of the manifests as the release names it: the labels of the app's name and
 * instance from `_helpers.tpl`'s name and the release's, and the ServiceAccount (its
 * object, the bindings' subjects, the pods') from `serviceAccountName`. (The other
 * names are the fullname already: the input's name is its marker.)
 */
function releaseNamed(marks: Markers, value: JsonValue, key?: string): JsonValue {
  if (Array.isArray(value)) return value.map((item) => releaseNamed(marks, item));
  if (value === null || typeof value !== "object") {
    if (key === "app.kubernetes.io/name") return marks.value(marks.include("name"));
    if (key === "app.kubernetes.io/instance") return marks.value(".Release.Name");
    if (key === "serviceAccountName") return marks.value(marks.include("serviceAccountName"));
    return value;
  }
  const named: JsonObject = {};
  for (const [k, v] of Object.entries(value)) named[k] = releaseNamed(marks, v, k);
  if (named.kind === "ServiceAccount") {
    const serviceAccount = marks.value(marks.include("serviceAccountName"));
    // A binding's subject names it; the object itself has it in its metadata.
    if (named.metadata === undefined) named.name = serviceAccount;
    else (named.metadata as JsonObject).name = serviceAccount;
  }
  return named;
}

/** The input in three ways of running replicas, for what differs between them. */
interface Variants {
  readonly single: ManifestInput;
  readonly leader: ManifestInput;
  readonly sharded: ManifestInput;
}

function variantsOf(input: ManifestInput): Variants {
  const { leadership: _, metricsPort: __, ...rest } = input;
  return {
    single: rest,
    leader: { ...rest, leadership: { leaderElection: true, shards: 1 } },
    sharded: { ...rest, leadership: { leaderElection: false, shards: 2 } },
  };
}

function find(objects: readonly JsonObject[], kind: string, name?: string): JsonObject {
  const found = objects.find((o) =>
    o.kind === kind && (name === undefined || (o.metadata as JsonObject).name === name)
  );
  if (found === undefined) throw new Error(`The manifests have no ${kind} ${name ?? ""}`);
  return structuredClone(found);
}

/** The arguments of `kopf run`: those the values choose templated, the others as they are. */
function argsFill(marks: Markers, input: ManifestInput, variants: Variants): Fill {
  return (indent, head) => {
    const items = indent + "  ";
    const list = (args: readonly JsonValue[]) =>
      args.length > 0 ? marks.lines([...args], items) : [];
    const parts = runArgParts(input);
    const sharded = [...runArgParts(variants.sharded).coordination];
    sharded[1] = marks.value(".Values.shards | quote");
    return [
      `${indent}${head.trimEnd()}`,
      ...list(parts.scope),
      ...list(parts.peering),
      ...conditional(items, [
        [".Values.leaderElection", list(runArgParts(variants.leader).coordination)],
        [".Values.shards", list(sharded)],
      ], list(runArgParts(variants.single).coordination)),
      ...list(parts.liveness),
      ...conditional(items, [[
        ".Values.metricsPort",
        list(["--metrics", `0.0.0.0:${marks.value(".Values.metricsPort")}`]),
      ]]),
      ...list(parts.gracePeriod),
      ...conditional(items, [[".Values.args", [
        `${items}{{- toYaml .Values.args | nindent ${items.length} }}`,
      ]]]),
    ];
  };
}

/** The Deployment, with what the values choose templated. */
function deploymentTemplate(
  marks: Markers,
  input: ManifestInput,
  variants: Variants,
  objects: readonly JsonObject[],
): string {
  const deployment = find(objects, "Deployment");
  const spec = deployment.spec as JsonObject;
  spec.replicas = marks.value(".Values.replicas");
  const strategyOf = (variant: ManifestInput) =>
    (find(buildManifests(variant), "Deployment").spec as JsonObject).strategy!;
  spec.strategy = marks.block((indent, head) => [
    `${indent}${head.trimEnd()}`,
    ...conditional(
      indent + "  ",
      [[COORDINATED, marks.lines(strategyOf(variants.leader), indent + "  ")]],
      marks.lines(strategyOf(variants.single), indent + "  "),
    ),
  ]);
  const pod = spec.template as JsonObject;
  const annotations = {
    "prometheus.io/scrape": "true",
    "prometheus.io/port": marks.value(".Values.metricsPort | quote"),
    "prometheus.io/path": "/metrics",
  };
  pod.metadata = {
    labels: (pod.metadata as JsonObject).labels!,
    annotations: marks.block((indent, head) =>
      conditional(indent, [["or .Values.metricsPort .Values.podAnnotations", [
        `${indent}${head.trimEnd()}`,
        ...conditional(indent + "  ", [[
          ".Values.metricsPort",
          marks.lines(annotations, indent + "  "),
        ]]),
        ...conditional(indent + "  ", [[".Values.podAnnotations", [
          `${indent}  {{- toYaml .Values.podAnnotations | nindent ${indent.length + 2} }}`,
        ]]]),
      ]]])
    ),
  };
  const podSpec = pod.spec as JsonObject;
  const [{ name, image, ...rest }] = podSpec.containers as JsonObject[];
  const container: JsonObject = {
    name,
    image,
    imagePullPolicy: marks.block((indent, head) =>
      conditional(indent, [[".Values.image.pullPolicy", [
        `${indent}${head}{{ .Values.image.pullPolicy }}`,
      ]]])
    ),
    ...rest,
  };
  podSpec.containers = [container];
  // Where the pods run, and the pull secrets of a private registry: as the values say.
  for (const key of ["imagePullSecrets", "nodeSelector", "tolerations", "affinity"]) {
    podSpec[key] = marks.block((indent, head) =>
      conditional(indent, [[`.Values.${key}`, [
        `${indent}${head.trimEnd()}`,
        `${indent}  {{- toYaml .Values.${key} | nindent ${indent.length + 2} }}`,
      ]]])
    );
  }
  container.args = marks.block(argsFill(marks, input, variants));
  // The root store emptied unless publicRoots (an empty branch: `not` is not used here).
  container.env = [
    ...(container.env as JsonObject[]).filter((item) => item.name !== EMPTY_ROOT_STORE.name),
    marks.block((indent) =>
      conditional(
        indent,
        [[".Values.publicRoots", []]],
        marks.lines([{ ...EMPTY_ROOT_STORE }], indent),
      )
    ),
  ];
  const metricsPort = { name: "metrics", containerPort: marks.value(".Values.metricsPort") };
  container.ports = [
    ...(container.ports as JsonObject[]).filter((port) => port.name !== "metrics"),
    marks.block((indent) =>
      conditional(indent, [[".Values.metricsPort", marks.lines([metricsPort], indent)]])
    ),
  ];
  container.resources = marks.block((indent, head) => [
    `${indent}${head.trimEnd()} {{- toYaml .Values.resources | nindent ${indent.length + 2} }}`,
  ]);
  return documents(marks, [deployment]);
}

/** The Role and RoleBinding of the Leases, when the values make replicas coordinate. */
function leasesTemplate(marks: Markers, input: ManifestInput, variants: Variants): string {
  const name = leasesRoleName(input);
  const leader = buildManifests(variants.leader);
  const sharded = buildManifests(variants.sharded);
  const role = find(leader, "Role", name);
  const rulesOf = (objects: JsonObject[]) => find(objects, "Role", name).rules!;
  role.rules = marks.block((indent, head) => [
    `${indent}${head.trimEnd()}`,
    ...conditional(
      indent + "  ",
      [[".Values.leaderElection", marks.lines(rulesOf(leader), indent + "  ")]],
      marks.lines(rulesOf(sharded), indent + "  "),
    ),
  ]);
  const binding = find(leader, "RoleBinding", name);
  return `{{- if ${COORDINATED} }}\n${documents(marks, [role, binding])}{{- end }}\n`;
}

/** Where each object of the manifests goes in the chart (but the Deployment and Leases). */
function fileOf(object: JsonObject, input: ManifestInput): string | undefined {
  const kind = String(object.kind);
  if (/^(Cluster)?Role(Binding)?$/.test(kind)) {
    return (object.metadata as JsonObject).name === leasesRoleName(input)
      ? undefined
      : "templates/rbac.yaml";
  }
  const files: Record<string, string | undefined> = {
    CustomResourceDefinition: "crds/kopf-peerings.yaml",
    KopfPeering: "templates/peering.yaml",
    ClusterKopfPeering: "templates/peering.yaml",
    ServiceAccount: "templates/serviceaccount.yaml",
    Service: "templates/webhook-service.yaml",
    Deployment: undefined,
  };
  if (!(kind in files)) throw new Error(`The Helm chart has no place for a ${kind}.`);
  return files[kind];
}

/**
 * The Helm chart of the operator: `Chart.yaml`, `values.yaml` (defaults that render what
 * `kopf manifests` prints for the same input), the templates, the peering CRDs (in
 * `crds/`, which Helm installs first and never deletes) and `NOTES.txt`. `generator`
 * names what made it, for the files' headers (e.g. `kopf 0.1.0`).
 */
export function helmChart(input: ManifestInput, generator: string): ChartFile[] {
  const marks = new Markers(input.name);
  const marked: ManifestInput = {
    ...input,
    name: marks.value(marks.include("fullname")),
    namespace: marks.value(NAMESPACE),
    image: `${marks.value(".Values.image.repository")}:` +
      marks.value(".Values.image.tag | default .Chart.AppVersion"),
  };
  const variants = variantsOf(marked);
  const objects = buildManifests(marked);
  const byFile = new Map<string, JsonObject[]>();
  for (const object of objects) {
    const file = fileOf(object, marked);
    if (file !== undefined) byFile.set(file, [...byFile.get(file) ?? [], object]);
  }
  const files: ChartFile[] = [
    { path: "Chart.yaml", text: chartYaml(input, generator) },
    { path: "values.yaml", text: valuesYaml(input, generator) },
  ];
  for (const [path, inFile] of byFile) {
    // Helm does not template the files of crds/: they are written as they are.
    const text = path.startsWith("crds/")
      ? inFile.map((crd) => `---\n${yamlText(crd)}\n`).join("")
      : path === "templates/serviceaccount.yaml"
      ? serviceAccountTemplate(marks, inFile)
      : documents(marks, inFile);
    files.push({ path, text });
  }
  files.push(
    { path: "templates/_helpers.tpl", text: helpersTpl(input.name) },
    {
      path: "templates/deployment.yaml",
      text: deploymentTemplate(marks, marked, variants, objects),
    },
    { path: "templates/leases.yaml", text: leasesTemplate(marks, marked, variants) },
    { path: "templates/NOTES.txt", text: notesText(marks, marked) },
  );
  return files.sort((a, b) => a.path.localeCompare(b.path));
}

/** The ServiceAccount, with the annotations of the values, when the chart creates it. */
function serviceAccountTemplate(marks: Markers, objects: readonly JsonObject[]): string {
  const [account] = objects.map((object) => structuredClone(object));
  (account.metadata as JsonObject).annotations = marks.block((indent, head) =>
    conditional(indent, [[".Values.serviceAccount.annotations", [
      `${indent}${head.trimEnd()}`,
      `${indent}  {{- toYaml .Values.serviceAccount.annotations | nindent ${indent.length + 2} }}`,
    ]]])
  );
  return `{{- if .Values.serviceAccount.create }}\n${documents(marks, [account])}{{- end }}\n`;
}

/**
 * `_helpers.tpl`: the names of the release's objects, as `helm create` writes them --
 * the app's name (`nameOverride`), the objects' (`fullnameOverride`, else the release's
 * name with the chart's unless it holds it already; 63 characters at most, as DNS labels
 * allow), and the ServiceAccount's.
 */
function helpersTpl(chart: string): string {
  const name = `default .Chart.Name .Values.nameOverride`;
  return `{{/* The app's name: the chart's, or nameOverride. */}}
{{- define "${chart}.name" -}}
{{- ${name} | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The name of the release's objects: fullnameOverride, else the release's name, followed by
the app's unless the release's name holds it already.
*/}}
{{- define "${chart}.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else if contains (${name}) .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name (${name}) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/*
The ServiceAccount that the operator runs as: serviceAccount.name, else the fullname when
the chart creates it, else the namespace's default.
*/}}
{{- define "${chart}.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "${chart}.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}
`;
}

/**
 * An image as `image.repository` and `image.tag` (the chart's appVersion): split at the
 * tag's colon; an image without a tag is `:latest`, as container runtimes read it.
 */
export function imageParts(image: string): { repository: string; tag: string } {
  const colon = image.lastIndexOf(":");
  if (colon > image.lastIndexOf("/")) {
    return { repository: image.slice(0, colon), tag: image.slice(colon + 1) };
  }
  return { repository: image, tag: "latest" };
}

function chartYaml(input: ManifestInput, generator: string): string {
  return [
    `# Generated by \`kopf manifests --helm\` (${generator}) from the operator's handlers;`,
    "# generate it again after changing what they serve.",
    yamlText({
      apiVersion: "v2",
      name: input.name,
      description: `The operator ${input.name}: its RBAC, ServiceAccount and Deployment.`,
      type: "application",
      version: CHART_VERSION,
      // The version of the operator, its image's tag: the image's tag by default.
      appVersion: imageParts(input.image).tag,
    }),
    "",
  ].join("\n");
}

/** `values.yaml`: each value with what it does, set to what the manifests have. */
function valuesYaml(input: ManifestInput, generator: string): string {
  const leaderElection = coordinated(input) && input.leadership!.leaderElection;
  const entries: [string[], string, JsonValue][] = [
    [
      ["The app's name in the names and labels of the objects; the chart's by default."],
      "nameOverride",
      "",
    ],
    [
      ["The objects' name; by default the release's, followed by the app's unless it holds it."],
      "fullnameOverride",
      "",
    ],
    [
      [
        "The operator's image (`kopf manifests --dockerfile` writes its recipe): the tag is",
        "the chart's appVersion unless set; the pull policy Kubernetes' default unless set.",
      ],
      "image",
      { repository: imageParts(input.image).repository, tag: "", pullPolicy: "" },
    ],
    [["Secrets to pull the image with, e.g. [{name: regcred}]."], "imagePullSecrets", []],
    [
      [
        "The ServiceAccount the operator runs as, which the RBAC binds: created by the chart",
        "(named as the objects unless named here), or an existing one (by its name).",
      ],
      "serviceAccount",
      { create: true, name: "", annotations: {} },
    ],
    [
      ["How many pods run the operator; more than one only with leaderElection or shards."],
      "replicas",
      replicasOf(input),
    ],
    [
      [
        "Where the operator runs (its ServiceAccount, Deployment and Leases); empty for the",
        "release's namespace (helm install --namespace).",
      ],
      "namespace",
      input.namespace === "default" ? "" : input.namespace,
    ],
    [["The operator container's resources."], "resources", structuredClone(OPERATOR_RESOURCES)],
    [["Annotations of the operator's pods."], "podAnnotations", {}],
    [["Where the operator's pods run: the nodes' labels to match."], "nodeSelector", {}],
    [["Taints that the operator's pods tolerate."], "tolerations", []],
    [["The operator's pods' affinity to nodes and pods."], "affinity", {}],
    [
      ["Replicas of which one leads and the others stand by (kopf run --leader-election)."],
      "leaderElection",
      leaderElection,
    ],
    [
      [
        "Replicas that share the objects in this many shards (kopf run --shards); 0 for none.",
        "leaderElection wins when both are set.",
      ],
      "shards",
      coordinated(input) && !leaderElection ? input.leadership!.shards : 0,
    ],
    [
      ["Serve Prometheus metrics at this port (kopf run --metrics); null for none."],
      "metricsPort",
      input.metricsPort ?? null,
    ],
    [
      [
        "Keep the runtime's public root CAs trusted (kopf manifests --public-roots), for",
        "handlers that call public HTTPS services; false: DENO_TLS_CA_STORE is empty in the",
        "pods, so that the operator trusts the cluster's CA alone (see docs/deployment.md).",
      ],
      "publicRoots",
      input.publicRoots ?? false,
    ],
    [
      ["More arguments of kopf run, after those above (e.g. --verbose, --log-format=json)."],
      "args",
      [],
    ],
  ];
  const header = [
    `# The values of the chart ${input.name}, generated by \`kopf manifests --helm\` (${generator}).`,
    "# Its RBAC and the namespaces it serves follow the operator's handlers as they were then.",
  ];
  const body = entries.map(([comment, key, value]) =>
    [...comment.map((line) => `# ${line}`), yamlText({ [key]: value })].join("\n")
  );
  return [...header, "", body.join("\n\n"), ""].join("\n");
}

function notesText(marks: Markers, input: ManifestInput): string {
  const lines = [
    `The operator ${input.name} runs as the Deployment ${input.name} in the namespace ` +
    `${input.namespace}.`,
    "Its RBAC follows what its handlers served when the chart was generated: generate it " +
    "again with `kopf manifests --helm` after changing them.",
    ...manifestNotes(input).map((note) => `NOTE: ${note}`),
  ];
  return marks.text(lines.join("\n")) + "\n";
}
