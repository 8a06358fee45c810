/**
 * What `kopf manifests` prints: everything to run an operator in a cluster, derived from
 * what the operator does -- its handlers (by the resources they serve, as resolved against
 * the cluster's resource types) and its settings -- so that the RBAC is exactly what it
 * needs, no more:
 *
 * - a ServiceAccount;
 * - the rules of what the operator does (`operator_rbac.ts`): as a ClusterRole with a
 *   ClusterRoleBinding when serving the whole cluster or namespace patterns, else as a
 *   Role with a RoleBinding in each namespace (and a ClusterRole for the cluster-wide
 *   part);
 * - a Deployment: non-root, a read-only root filesystem, no privilege escalation, no
 *   capabilities, resources sized from the benchmarks, liveness (`/healthz`) and readiness
 *   (`/readyz`) probes, a termination grace period that fits the operator's exit timeout,
 *   the command of the image the Dockerfile recipe builds, and Deno's root store emptied
 *   (unless the runtime's public roots are kept: {@link ManifestInput.publicRoots});
 * - Kopf's peering CRDs when a peering is named.
 *
 * The output is stable (the same input gives the same bytes), to be committed and diffed.
 *
 * @module
 */
import { stringify as toYaml } from "yaml";
import type { JsonObject } from "../structs/bodies.ts";
import type { OperatorSettings } from "../settings/operator_settings.ts";
import { literalNamespaces } from "../structs/namespace_scopes.ts";
import { DEFAULT_WEBHOOK_PORT } from "../kits/webhooks.ts";
import {
  coordinated,
  hasWebhooks,
  type ManifestInput,
  type RbacRule,
  replicasOf,
} from "./manifest_inputs.ts";
import { clusterScoped, leaseRules, leasesRoleName, merged, rbacRules } from "./operator_rbac.ts";

/** The port of the liveness and readiness probes in the Deployment. */
export const PROBES_PORT = 8080;

/**
 * The variable that empties Deno's root store, in the Deployment unless public roots are
 * kept: Deno's clients trust a CA given to them *besides* that store (`ca_pinning.ts`),
 * so with it empty they trust the cluster's CA alone, on every connection. A compiled
 * binary reads it at run time as `deno run` does: Deno's standalone runtime builds its
 * store from the stores fixed at compile time, which no flag sets, else from the variable.
 */
export const EMPTY_ROOT_STORE: { readonly name: string; readonly value: string } = {
  name: "DENO_TLS_CA_STORE",
  value: "",
};

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
 * files are compiled in; see `entrySource` in `dockerfile_recipe.ts`).
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
            env: [
              // The pod's name is the operator's identity (in peering records and Leases).
              { name: "POD_ID", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
              ...(input.publicRoots ? [] : [{ ...EMPTY_ROOT_STORE }]),
            ],
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
