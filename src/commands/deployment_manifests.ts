/**
 * What `kopf manifests` prints: everything to run an operator in a cluster, derived from
 * what the operator does — its handlers (by the resources they serve, as resolved against
 * the cluster's resource types) and its settings — so that the RBAC is exactly what it
 * needs, no more:
 *
 * - a ServiceAccount;
 * - the rules: for every served resource `get`, `list`, `watch` and `patch` (what the
 *   handling does; its `status` subresource too where it has one and results or progress
 *   go there); `list` and `watch` for resources only indexed; Events `create` (unless
 *   posting is off); CustomResourceDefinitions `list`/`watch` (the operator serves
 *   resources that appear later; unless scanning is off); namespaces `list`/`watch` for
 *   namespace patterns; the peering resources when peering is on; the webhook
 *   configurations when admission webhooks are managed; and the rules the user declares
 *   for the handlers' own API calls (`permits`);
 * - as a ClusterRole with a ClusterRoleBinding when serving the whole cluster or namespace
 *   patterns, else as a Role with a RoleBinding in each namespace (and a ClusterRole for
 *   the cluster-wide part);
 * - a Deployment: non-root, a read-only root filesystem, no privilege escalation, no
 *   capabilities, resources sized from the benchmarks, liveness (`/healthz`) and readiness
 *   (`/readyz`) probes, a termination grace period that fits the operator's exit timeout,
 *   and the command of the image the Dockerfile recipe builds;
 * - Kopf's peering CRDs when a peering is named.
 *
 * The output is stable (the same input gives the same bytes), to be committed and diffed.
 *
 * @module
 */
import { stringify as toYaml } from "yaml";
import type { JsonObject } from "../structs/bodies.ts";
import type { Resource } from "../structs/resources.ts";
import { matcherOf, type OperatorRegistry } from "../intents/registry.ts";
import type { OperatorSettings } from "../settings/operator_settings.ts";
import {
  literalNamespaces,
  makeScope,
  needsNamespaceWatching,
} from "../structs/namespace_scopes.ts";
import { DEFAULT_WEBHOOK_PORT } from "../kits/webhooks.ts";

/** An RBAC rule, as in a Role. */
export interface RbacRule {
  /** API groups; `""` is the core group. */
  readonly apiGroups: readonly string[];
  /** Resources, and subresources as `plural/sub`. */
  readonly resources: readonly string[];
  /** Verbs. */
  readonly verbs: readonly string[];
  /** Only these objects (by name), when given. */
  readonly resourceNames?: readonly string[];
}

/** A rule with the scope of its resource: namespaced rules go where the served ones go. */
export interface ScopedRule extends RbacRule {
  /** Whether the resource lives in namespaces. */
  readonly namespaced: boolean;
}

/** What the manifests are made for. */
export interface ManifestInput {
  /** The operator's handlers. */
  readonly registry: OperatorRegistry;
  /** The operator's settings (defaults unless the operator's module changed them). */
  readonly settings: OperatorSettings;
  /** The resource types of the cluster (built-in ones and the CRDs given). */
  readonly resources: readonly Resource[];
  /** Serve the whole cluster. */
  readonly clusterwide: boolean;
  /** The namespace patterns served otherwise. */
  readonly namespaces: readonly string[];
  /** No peering at all. */
  readonly standalone: boolean;
  /** The peering object's name, when one is named. */
  readonly peeringName?: string;
  /** The image of the operator (built by the Dockerfile recipe). */
  readonly image: string;
  /** The name of the ServiceAccount, roles, bindings and Deployment. */
  readonly name: string;
  /** The namespace of the ServiceAccount and the Deployment. */
  readonly namespace: string;
  /** Serve metrics at this port (and declare it), if asked for. */
  readonly metricsPort?: number;
  /**
   * The port of the webhook server, for operators with admission handlers: a Service
   * reaches it there (9443 by default).
   */
  readonly webhookPort?: number;
  /**
   * Rules for the handlers' own API calls (what they create, read or change beyond the
   * objects they serve), as `--rule` declares them; namespaced or cluster-wide by the
   * resource's scope.
   */
  readonly rules?: readonly ScopedRule[];
  /**
   * How several replicas share the work, if they do: leader election, or a number of
   * shards (`kopf run --leader-election` / `--shards`). The Lease is named after the
   * Deployment and lives in its namespace.
   */
  readonly leadership?: { readonly leaderElection: boolean; readonly shards: number };
  /** The Deployment's replicas: 2 with leader election, the shards with sharding, else 1. */
  readonly replicas?: number;
}

/** Whether the replicas coordinate through Leases (leader election, or more than one shard). */
export function coordinated(input: ManifestInput): boolean {
  return input.leadership !== undefined &&
    (input.leadership.leaderElection || input.leadership.shards > 1);
}

/** How many replicas the Deployment runs. */
export function replicasOf(input: ManifestInput): number {
  if (input.replicas !== undefined) return input.replicas;
  if (!coordinated(input)) return 1;
  return input.leadership!.leaderElection ? 2 : input.leadership!.shards;
}

/**
 * The rules of the replicas' Leases, in the Deployment's namespace: a leader's one Lease
 * by its name; with sharding, the shards' and members' Leases (their names vary, and
 * members' Leases of pods long gone are deleted).
 */
export function leaseRules(input: ManifestInput): RbacRule[] {
  if (!coordinated(input)) return [];
  const group = ["coordination.k8s.io"];
  if (input.leadership!.leaderElection) {
    return [
      { apiGroups: group, resources: ["leases"], verbs: ["create"] },
      {
        apiGroups: group,
        resources: ["leases"],
        verbs: ["get", "update"],
        resourceNames: [input.name],
      },
    ];
  }
  return [{
    apiGroups: group,
    resources: ["leases"],
    verbs: ["create", "delete", "get", "list", "update"],
  }];
}

/** The name of the Role (and RoleBinding) of the replicas' Leases. */
export function leasesRoleName(input: Pick<ManifestInput, "name">): string {
  return `${input.name}-leases`;
}

/** The port of the liveness and readiness probes in the Deployment. */
export const PROBES_PORT = 8080;

/** Where the Dockerfile recipe puts the operator's files and the binary. */
export const IMAGE_APP_DIR = "/app";

/** Resources of the handling, by what it does with them: served, only indexed, children. */
interface Needs {
  readonly served: Resource[];
  readonly indexed: Resource[];
  /** The children of `kopf.on.child` handlers: watched, and read when they change. */
  readonly children: Resource[];
}

const WATCHED = ["changing", "event", "daemon", "timer", "child"] as const;

/** The resources the operator serves, by how much it needs of them. */
function needsOf(input: ManifestInput): Needs {
  const matcher = matcherOf(input.registry);
  const resolved = matcher.resolve(input.resources, [...WATCHED, "index"]).resources;
  const served: Resource[] = [];
  const indexed: Resource[] = [];
  for (const resource of resolved) {
    const handlers = matcher.handlersFor(resource);
    if (WATCHED.some((kind) => handlers[kind].length > 0)) served.push(resource);
    else if (handlers.index.length > 0) indexed.push(resource);
  }
  const children = new Map<string, Resource>();
  for (const handler of matcher.childHandlers()) {
    for (const child of handler.childSelector.select(input.resources).resources) {
      children.set(child.key, child);
    }
  }
  return { served, indexed, children: [...children.values()] };
}

/** Rules grouped by API group and verbs, resources sorted: the same input, the same text. */
function merged(rules: readonly RbacRule[]): RbacRule[] {
  const byKey = new Map<string, { apiGroups: string[]; resources: Set<string>; verbs: string[] }>();
  for (const rule of rules) {
    if (rule.resourceNames !== undefined) continue;
    for (const group of rule.apiGroups) {
      const verbs = [...new Set(rule.verbs)].sort();
      const key = `${group}\u0000${verbs.join(",")}`;
      let entry = byKey.get(key);
      if (entry === undefined) {
        byKey.set(key, entry = { apiGroups: [group], resources: new Set(), verbs });
      }
      for (const resource of rule.resources) entry.resources.add(resource);
    }
  }
  const result: RbacRule[] = [...byKey.values()].map((e) => ({
    apiGroups: e.apiGroups,
    resources: [...e.resources].sort(),
    verbs: e.verbs,
  }));
  result.push(...rules.filter((r) => r.resourceNames !== undefined));
  return result.sort((a, b) =>
    `${a.apiGroups[0]}/${a.resources[0]}`.localeCompare(`${b.apiGroups[0]}/${b.resources[0]}`)
  );
}

/** The rules the operator needs, split into those of the served namespaces and cluster-wide. */
export function rbacRules(input: ManifestInput): { namespaced: RbacRule[]; cluster: RbacRule[] } {
  const { served, indexed, children } = needsOf(input);
  const settings = input.settings;
  const namespaced: RbacRule[] = [];
  const cluster: RbacRule[] = [];
  const place = (resource: Resource, rule: RbacRule) =>
    (resource.namespaced ? namespaced : cluster).push(rule);
  for (const resource of served) {
    const group = [resource.group];
    place(resource, {
      apiGroups: group,
      resources: [resource.plural],
      verbs: ["get", "list", "watch", "patch"],
    });
    if (resource.subresources.includes("status")) {
      place(resource, {
        apiGroups: group,
        resources: [`${resource.plural}/status`],
        verbs: ["patch"],
      });
    }
  }
  for (const resource of indexed) {
    place(resource, {
      apiGroups: [resource.group],
      resources: [resource.plural],
      verbs: ["list", "watch"],
    });
  }
  for (const resource of children) {
    place(resource, {
      apiGroups: [resource.group],
      resources: [resource.plural],
      verbs: ["get", "list", "watch"],
    });
  }
  if (settings.posting.enabled && served.length > 0) {
    // Events about cluster-scoped objects go to the default namespace.
    const events: RbacRule = { apiGroups: [""], resources: ["events"], verbs: ["create"] };
    namespaced.push(events);
    if (served.some((r) => !r.namespaced) && !input.clusterwide) cluster.push(events);
  }
  if (!settings.scanning.disabled) {
    cluster.push({
      apiGroups: ["apiextensions.k8s.io"],
      resources: ["customresourcedefinitions"],
      verbs: ["list", "watch"],
    });
  }
  if (!settings.scanning.disabled && needsNamespaceWatching(scopeOf(input))) {
    cluster.push({ apiGroups: [""], resources: ["namespaces"], verbs: ["list", "watch"] });
  }
  if (!input.standalone) {
    const verbs = ["get", "list", "watch", "patch"];
    if (input.clusterwide) {
      cluster.push({ apiGroups: ["kopf.dev"], resources: ["clusterkopfpeerings"], verbs });
    } else {
      namespaced.push({ apiGroups: ["kopf.dev"], resources: ["kopfpeerings"], verbs });
    }
  }
  const managed = settings.admission.managed;
  if (managed !== null && hasWebhooks(input)) {
    // Created and watched by any name; read and changed only by its own.
    const group = ["admissionregistration.k8s.io"];
    const resources = ["mutatingwebhookconfigurations", "validatingwebhookconfigurations"];
    cluster.push({ apiGroups: group, resources, verbs: ["create", "list", "watch"] });
    cluster.push({
      apiGroups: group,
      resources,
      verbs: ["get", "patch"],
      resourceNames: [managed],
    });
  }
  for (const { namespaced: inNamespaces, ...rule } of input.rules ?? []) {
    (inNamespaces ? namespaced : cluster).push(rule);
  }
  return { namespaced: merged(namespaced), cluster: merged(cluster) };
}

function scopeOf(input: ManifestInput) {
  return makeScope({ clusterwide: input.clusterwide, namespaces: input.namespaces });
}

/**
 * Whether the namespaced rules must be cluster-wide: for the whole cluster, and for
 * namespace patterns (the namespaces they match are known only in the cluster).
 */
function clusterScoped(input: ManifestInput): boolean {
  return input.clusterwide ||
    (!input.settings.scanning.disabled && needsNamespaceWatching(scopeOf(input)));
}

/**
 * The arguments of `kopf run` in the Deployment, by what decides them: the scope and the
 * peering (which the RBAC follows), how replicas coordinate, the probes, the metrics and
 * the grace period. {@link runArgs} joins them in this order; the Helm chart templates the
 * parts that its values change.
 */
export interface RunArgParts {
  /** `--all-namespaces`, or `--namespace NAME` for each. */
  readonly scope: readonly string[];
  /** `--peering NAME` when a peering is named. */
  readonly peering: readonly string[];
  /** `--standalone`, or the leader election's or shards' options, or nothing. */
  readonly coordination: readonly string[];
  /** `--liveness URL`. */
  readonly liveness: readonly string[];
  /** `--metrics ADDRESS`, when metrics are served. */
  readonly metrics: readonly string[];
  /** `--grace-period SECONDS`. */
  readonly gracePeriod: readonly string[];
}

/** The parts of {@link runArgs}. */
export function runArgParts(input: ManifestInput): RunArgParts {
  const scope: string[] = input.clusterwide ? ["--all-namespaces"] : [];
  for (const namespace of input.namespaces) scope.push("--namespace", namespace);
  return {
    scope,
    peering: input.peeringName !== undefined ? ["--peering", input.peeringName] : [],
    coordination: coordinationArgs(input),
    liveness: ["--liveness", `http://0.0.0.0:${PROBES_PORT}/healthz`],
    metrics: input.metricsPort !== undefined ? ["--metrics", `0.0.0.0:${input.metricsPort}`] : [],
    gracePeriod: ["--grace-period", String(input.settings.batching.exitTimeout)],
  };
}

/** `--standalone` without peering or Leases; the options of the Leases with them. */
function coordinationArgs(input: ManifestInput): string[] {
  if (!coordinated(input)) return input.standalone ? ["--standalone"] : [];
  const { leaderElection, shards } = input.leadership!;
  return [
    ...(leaderElection ? ["--leader-election"] : ["--shards", String(shards)]),
    "--leader-election-id",
    input.name,
  ];
}

/**
 * The arguments of the binary in the Deployment: `kopf run`'s options (the operator's
 * files are compiled in; see {@link entrySource}).
 */
export function runArgs(input: ManifestInput): string[] {
  const parts = runArgParts(input);
  // Without peering, --standalone stands where the coordination options do.
  return [
    ...parts.scope,
    ...parts.peering,
    ...parts.coordination,
    ...parts.liveness,
    ...parts.metrics,
    ...parts.gracePeriod,
  ];
}

/**
 * The labels that select the operator's pods: its name, and the instance of it (as a Helm
 * release names it: the chart's objects of two releases select their own pods).
 */
function selectorLabelsOf(input: ManifestInput): Record<string, string> {
  return { "app.kubernetes.io/name": input.name, "app.kubernetes.io/instance": input.name };
}

function labelsOf(input: ManifestInput): Record<string, string> {
  return { ...selectorLabelsOf(input), "app.kubernetes.io/managed-by": "kopf" };
}

function subject(input: ManifestInput): JsonObject {
  return { kind: "ServiceAccount", name: input.name, namespace: input.namespace };
}

function rulesYaml(rules: readonly RbacRule[]): JsonObject[] {
  return rules.map((rule) => ({
    apiGroups: [...rule.apiGroups],
    resources: [...rule.resources],
    ...(rule.resourceNames ? { resourceNames: [...rule.resourceNames] } : {}),
    verbs: [...rule.verbs],
  }));
}

/** The manifests as objects, in the order they are applied. */
export function buildManifests(input: ManifestInput): JsonObject[] {
  const labels = labelsOf(input);
  const { namespaced, cluster } = rbacRules(input);
  const objects: JsonObject[] = [];
  if (input.peeringName !== undefined) objects.push(...peeringObjects(input));
  objects.push({
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name: input.name, namespace: input.namespace, labels },
  });
  const clusterRules = clusterScoped(input) ? merged([...cluster, ...namespaced]) : cluster;
  if (clusterRules.length > 0) {
    objects.push({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: input.name, labels },
      rules: rulesYaml(clusterRules),
    }, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: input.name, labels },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: input.name },
      subjects: [subject(input)],
    });
  }
  if (!clusterScoped(input) && namespaced.length > 0) {
    for (const namespace of literalNamespaces(input.namespaces).sort()) {
      objects.push({
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "Role",
        metadata: { name: input.name, namespace, labels },
        rules: rulesYaml(namespaced),
      }, {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name: input.name, namespace, labels },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: input.name },
        subjects: [subject(input)],
      });
    }
  }
  const leases = leaseRules(input);
  if (leases.length > 0) {
    // Apart from the served namespaces' Role: the Leases are only in the operator's own.
    const name = leasesRoleName(input);
    const namespace = input.namespace;
    objects.push({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name, namespace, labels },
      rules: rulesYaml(leases),
    }, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name, namespace, labels },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
      subjects: [subject(input)],
    });
  }
  const webhooks = webhookService(input, labels);
  if (webhooks !== undefined) objects.push(webhooks);
  objects.push(deployment(input, labels));
  return objects;
}

/** Whether the operator has admission handlers. */
function hasWebhooks(input: ManifestInput): boolean {
  return matcherOf(input.registry).handlers.some((h) => h.kind === "webhook");
}

/** The name of the webhook Service: the cluster calls the admission handlers through it. */
export function webhookServiceName(input: Pick<ManifestInput, "name">): string {
  return `${input.name}-webhook`;
}

function webhookService(
  input: ManifestInput,
  labels: Record<string, string>,
): JsonObject | undefined {
  if (!hasWebhooks(input)) return undefined;
  const port = input.webhookPort ?? DEFAULT_WEBHOOK_PORT;
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: webhookServiceName(input), namespace: input.namespace, labels },
    spec: {
      selector: selectorLabelsOf(input),
      ports: [{ name: "webhook", port, targetPort: "webhook" }],
    },
  };
}

/** Kopf's peering resources, as in Python Kopf: one record per operator in their status. */
export function peeringCrds(): JsonObject[] {
  const crd = (kind: string, plural: string, scope: string): JsonObject => ({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.kopf.dev` },
    spec: {
      scope,
      group: "kopf.dev",
      names: { kind, plural, singular: plural.replace(/s$/, "") },
      versions: [{
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
            },
          },
        },
      }],
    },
  });
  return [
    crd("ClusterKopfPeering", "clusterkopfpeerings", "Cluster"),
    crd("KopfPeering", "kopfpeerings", "Namespaced"),
  ];
}

/**
 * The peering CRDs and the peering objects: one ClusterKopfPeering for the whole cluster,
 * else a KopfPeering in each namespace named (those that patterns match are created in
 * the cluster as they appear; see the note `kopf manifests` prints).
 */
function peeringObjects(input: ManifestInput): JsonObject[] {
  const name = input.peeringName!;
  const objects = peeringCrds();
  if (input.clusterwide) {
    objects.push({ apiVersion: "kopf.dev/v1", kind: "ClusterKopfPeering", metadata: { name } });
  } else {
    for (const namespace of literalNamespaces(input.namespaces).sort()) {
      objects.push({
        apiVersion: "kopf.dev/v1",
        kind: "KopfPeering",
        metadata: { name, namespace },
      });
    }
  }
  return objects;
}

/**
 * What the manifests cannot do and the user must, as comment lines for the output's top:
 * peering objects in namespaces that only patterns name.
 */
export function manifestNotes(input: ManifestInput): string[] {
  const notes: string[] = [];
  if (hasWebhooks(input)) {
    const port = input.webhookPort ?? DEFAULT_WEBHOOK_PORT;
    const host = `${webhookServiceName(input)}.${input.namespace}.svc`;
    notes.push(
      `The cluster reaches the admission handlers through the Service ${
        webhookServiceName(input)
      }: ` +
        `configure settings.admission.server = new kopf.WebhookServer({ addr: "0.0.0.0", ` +
        `port: ${port}, host: "${host}" }) in a startup handler.`,
    );
  }
  if (input.peeringName !== undefined && !input.clusterwide) {
    const patterns = input.namespaces.filter((n) => literalNamespaces([n]).length === 0);
    if (patterns.length > 0) {
      notes.push(
        `Create a KopfPeering named ${input.peeringName} in each namespace that ` +
          `${patterns.join(" ")} matches, as the namespaces appear.`,
      );
    }
  }
  return notes;
}

/**
 * The operator container's resources, sized from the benchmarks: about 130 MB at 10,000
 * objects, little CPU at rest. Keys in sorted order, as Helm's `toYaml` writes them, so
 * that the chart renders the same text.
 */
export const OPERATOR_RESOURCES: {
  readonly limits: { readonly memory: string };
  readonly requests: { readonly cpu: string; readonly memory: string };
} = {
  limits: { memory: "512Mi" },
  requests: { cpu: "100m", memory: "192Mi" },
};

/**
 * The seconds the kubelet waits after SIGTERM: the operator's exit timeout twice (running
 * handlers, then their abort), plus time to store their outcomes, release the peering and
 * post the last Events; at least Kubernetes' default of 30 (the pod exits once done).
 */
export function terminationGracePeriod(settings: OperatorSettings): number {
  return Math.max(30, Math.ceil(2 * settings.batching.exitTimeout + 10));
}

function deployment(input: ManifestInput, labels: Record<string, string>): JsonObject {
  const ports: JsonObject[] = [{ name: "probes", containerPort: PROBES_PORT }];
  if (hasWebhooks(input)) {
    ports.push({ name: "webhook", containerPort: input.webhookPort ?? DEFAULT_WEBHOOK_PORT });
  }
  if (input.metricsPort !== undefined) {
    ports.push({ name: "metrics", containerPort: input.metricsPort });
  }
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: input.name, namespace: input.namespace, labels },
    spec: {
      replicas: replicasOf(input),
      // One operator at a time: the old one stops before the new one starts. Replicas
      // coordinated by Leases roll instead: a new pod waits on standby, and the old one
      // hands its Leases over when it stops.
      strategy: coordinated(input)
        ? { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } }
        : { type: "Recreate" },
      selector: { matchLabels: selectorLabelsOf(input) },
      template: {
        metadata: {
          labels,
          ...(input.metricsPort !== undefined
            ? {
              annotations: {
                "prometheus.io/scrape": "true",
                "prometheus.io/port": String(input.metricsPort),
                "prometheus.io/path": "/metrics",
              },
            }
            : {}),
        },
        spec: {
          serviceAccountName: input.name,
          terminationGracePeriodSeconds: terminationGracePeriod(input.settings),
          securityContext: {
            runAsNonRoot: true,
            runAsUser: 65532,
            runAsGroup: 65532,
            seccompProfile: { type: "RuntimeDefault" },
          },
          containers: [{
            name: "operator",
            image: input.image,
            args: runArgs(input),
            // The pod's name is the operator's identity (in peering records and Leases).
            env: [{ name: "POD_ID", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }],
            ports,
            resources: {
              limits: { ...OPERATOR_RESOURCES.limits },
              requests: { ...OPERATOR_RESOURCES.requests },
            },
            livenessProbe: {
              httpGet: { path: "/healthz", port: "probes" },
              initialDelaySeconds: 10,
              periodSeconds: 20,
              timeoutSeconds: 5,
              failureThreshold: 3,
            },
            readinessProbe: {
              httpGet: { path: "/readyz", port: "probes" },
              periodSeconds: 10,
              timeoutSeconds: 5,
            },
            securityContext: {
              allowPrivilegeEscalation: false,
              readOnlyRootFilesystem: true,
              capabilities: { drop: ["ALL"] },
            },
            // The root filesystem is read-only; a scratch directory for what needs one.
            volumeMounts: [{ name: "tmp", mountPath: "/tmp" }],
          }],
          volumes: [{ name: "tmp", emptyDir: {} }],
        },
      },
    },
  };
}

/**
 * The manifests as one YAML stream, each object a document after `---`, the notes first
 * as comments.
 */
export function manifestsYaml(
  objects: readonly JsonObject[],
  notes: readonly string[] = [],
): string {
  const header = [
    "# Generated by `kopf manifests`: the operator's RBAC and Deployment, derived from its",
    "# handlers. Regenerate after changing what they serve; apply with kubectl apply -f.",
    ...notes.map((note) => `# NOTE: ${note}`),
  ].join("\n");
  const documents = objects.map((object) =>
    toYaml(object, { lineWidth: 0, aliasDuplicateObjects: false }).trimEnd()
  );
  return `${header}\n` + documents.map((document) => `---\n${document}\n`).join("");
}

/** Options of {@link dockerfile}. */
export interface DockerfileInput {
  /**
   * The operator's files, relative to the build context (the project's directory), and
   * its modules (`npm:…`, `jsr:…`), in the order `kopf run` would import them.
   */
  readonly operatorFiles: readonly string[];
  /** The Deno version of the build image. */
  readonly denoVersion: string;
  /** The module of the `kopf` command line, e.g. `@kopf/kopf/cli` (through the import map). */
  readonly cli: string;
  /** The Deno permission flags to compile in (the in-cluster plan of `kopf permissions`). */
  readonly permissions: readonly string[];
  /** The V8 flags argument of the operator's memory profile. */
  readonly v8Flags: string;
}

/** The entry module the recipe compiles, in the build context's root. */
export const ENTRY_FILE = "kopf-entry.ts";

/**
 * The entry module of the operator's binary: the operator's files imported statically
 * (their `kopf.on.*` calls register the handlers; compiled in, they need no read
 * permission), then `kopf run` with the binary's arguments.
 */
export function entrySource(operatorFiles: readonly string[], cli: string): string {
  return [
    ...operatorFiles.map((file) => `import ${JSON.stringify(importSpecifier(file))};`),
    `import { main } from ${JSON.stringify(cli)};`,
    'await main(["run", ...Deno.args]);',
    "",
  ].join("\n");
}

/** A file relative to the entry (`./file`); a module specifier (`npm:…`, `jsr:…`) as is. */
function importSpecifier(source: string): string {
  return /^[a-z][a-z0-9+.-]+:/i.test(source) ? source : `./${source.replace(/^\.\//, "")}`;
}

/**
 * The Dockerfile recipe: `deno compile` on the official Deno image (the operator's
 * files compiled in, the minimal permissions baked in), then only the binary on a
 * distroless base, run as a non-root user. The Deployment passes `kopf run`'s options.
 */
export function dockerfile(input: DockerfileInput): string {
  const entry = entrySource(input.operatorFiles, input.cli).trimEnd().split("\n");
  return [
    "# The operator as one binary, built with `deno compile` and run as a non-root user.",
    "# Generated by `kopf manifests --dockerfile`; build with: docker build -t IMAGE .",
    `FROM denoland/deno:${input.denoVersion} AS build`,
    `WORKDIR ${IMAGE_APP_DIR}`,
    "COPY . .",
    `RUN printf '%s\\n' \\`,
    ...entry.map((line) => `      ${shellQuote(line)} \\`),
    `      > ${ENTRY_FILE}`,
    `RUN deno compile --no-prompt --output=/operator ${input.v8Flags} \\`,
    ...input.permissions.map((flag) => `      ${flag} \\`),
    `      ${ENTRY_FILE}`,
    "",
    "FROM gcr.io/distroless/cc-debian12:nonroot",
    "COPY --from=build /operator /operator",
    "USER 65532:65532",
    'ENTRYPOINT ["/operator"]',
    "",
  ].join("\n");
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
