/**
 * The built-in resource types a fresh fake cluster serves, with the discovery facts
 * (kind, short names, categories, scope) and `kubectl get` columns of a real cluster.
 *
 * @module
 */
import type { JsonObject } from "../structs/bodies.ts";
import { ALL_VERBS, type ResourceType } from "./resource_types.ts";
import {
  at,
  builtin,
  col,
  computed,
  count,
  EDIT_VERBS,
  num,
  PROXY_VERBS,
  replicaColumns,
  STREAM_VERBS,
  sub,
} from "./builtin_specs.ts";
import { coreTypes, groupTypes, infrastructureTypes } from "./cluster_types.ts";

const ready = computed(
  "Ready",
  (o) => `${num(at(o, "status", "readyReplicas"))}/${num(at(o, "spec", "replicas") ?? 1)}`,
);
const dataCount = computed(
  "Data",
  (o) => count(at(o, "data")) + count(at(o, "binaryData")),
  "integer",
);
/**
 * The column of the kinds that kube-apiserver tables with its default convertor (CRDs,
 * roles): the creation time as RFC 3339, where other kinds have an age. It stands for
 * the Age column, which such tables do not have.
 */
export const CREATED_AT = "Created At";
const createdAt = computed(
  CREATED_AT,
  (o) => String(at(o, "metadata", "creationTimestamp") ?? "0001-01-01T00:00:00Z"),
  "date",
);
const workloads = ["all"];

function containerStatuses(o: JsonObject): JsonObject[] {
  const list = at(o, "status", "containerStatuses");
  return Array.isArray(list)
    ? list.filter((c): c is JsonObject => !!c && typeof c === "object" && !Array.isArray(c))
    : [];
}

/** A fresh list of the built-in types (callers may keep and change it). */
export function builtinTypes(): ResourceType[] {
  return [
    builtin("", "v1", "namespaces", {
      kind: "Namespace",
      shortNames: ["ns"],
      namespaced: false,
      status: true,
      verbs: ALL_VERBS.filter((verb) => verb !== "deletecollection"),
      subresources: [sub("finalize", "Namespace", ["update"])],
      columns: [col("Status", ".status.phase")],
      selectableFields: ["status.phase"],
    }),
    builtin("", "v1", "pods", {
      kind: "Pod",
      shortNames: ["po"],
      categories: workloads,
      status: true,
      generation: true,
      subresources: [
        sub("attach", "PodAttachOptions", STREAM_VERBS),
        sub("binding", "Binding", ["create"]),
        sub("ephemeralcontainers", "Pod", EDIT_VERBS),
        { name: "eviction", group: "policy", version: "v1", kind: "Eviction", verbs: ["create"] },
        sub("exec", "PodExecOptions", STREAM_VERBS),
        sub("log", "Pod", ["get"]),
        sub("portforward", "PodPortForwardOptions", STREAM_VERBS),
        sub("proxy", "PodProxyOptions", PROXY_VERBS),
      ],
      columns: [
        computed("Ready", (o) => {
          const statuses = containerStatuses(o);
          const total = count(at(o, "spec", "containers"));
          return `${statuses.filter((c) => c.ready === true).length}/${total}`;
        }),
        col("Status", ".status.phase"),
        computed(
          "Restarts",
          (o) => containerStatuses(o).reduce((n, c) => n + num(c.restartCount), 0),
          "integer",
        ),
      ],
      selectableFields: [
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.schedulerName",
        "spec.serviceAccountName",
        "spec.hostNetwork",
        "status.phase",
        "status.podIP",
        "status.nominatedNodeName",
      ],
    }),
    builtin("", "v1", "services", {
      kind: "Service",
      shortNames: ["svc"],
      categories: workloads,
      status: true,
      subresources: [sub("proxy", "ServiceProxyOptions", PROXY_VERBS)],
      columns: [
        col("Type", ".spec.type"),
        col("Cluster-IP", ".spec.clusterIP"),
        computed("Port(s)", (o) => {
          const ports = at(o, "spec", "ports");
          if (!Array.isArray(ports) || !ports.length) return "<none>";
          return ports.map((p) => {
            const port = p && typeof p === "object" && !Array.isArray(p) ? p : {};
            return `${port.port ?? ""}/${port.protocol ?? "TCP"}`;
          }).join(",");
        }),
      ],
    }),
    builtin("", "v1", "configmaps", {
      kind: "ConfigMap",
      shortNames: ["cm"],
      columns: [dataCount],
    }),
    builtin("", "v1", "secrets", {
      kind: "Secret",
      columns: [col("Type", ".type"), dataCount],
      selectableFields: ["type"],
    }),
    builtin("", "v1", "serviceaccounts", { kind: "ServiceAccount", shortNames: ["sa"] }),
    builtin("", "v1", "persistentvolumeclaims", {
      kind: "PersistentVolumeClaim",
      shortNames: ["pvc"],
      status: true,
      columns: [
        col("Status", ".status.phase"),
        col("Volume", ".spec.volumeName"),
        col("Capacity", ".status.capacity.storage"),
        col("StorageClass", ".spec.storageClassName"),
      ],
    }),
    builtin("", "v1", "events", {
      kind: "Event",
      shortNames: ["ev"],
      columns: [
        col("Type", ".type"),
        col("Reason", ".reason"),
        computed(
          "Object",
          (o) =>
            `${String(at(o, "involvedObject", "kind") ?? "").toLowerCase()}/${
              at(o, "involvedObject", "name") ?? ""
            }`,
        ),
        col("Message", ".message"),
      ],
      selectableFields: [
        "involvedObject.kind",
        "involvedObject.namespace",
        "involvedObject.name",
        "involvedObject.uid",
        "involvedObject.apiVersion",
        "involvedObject.resourceVersion",
        "involvedObject.fieldPath",
        "reason",
        "reportingComponent",
        "source",
        "type",
      ],
    }),
    builtin("apps", "v1", "deployments", {
      kind: "Deployment",
      scale: true,
      shortNames: ["deploy"],
      categories: workloads,
      status: true,
      generation: true,
      columns: [
        ready,
        col("Up-to-date", ".status.updatedReplicas", "integer"),
        col("Available", ".status.availableReplicas", "integer"),
      ],
    }),
    builtin("apps", "v1", "replicasets", {
      kind: "ReplicaSet",
      scale: true,
      shortNames: ["rs"],
      categories: workloads,
      status: true,
      generation: true,
      columns: replicaColumns(),
      selectableFields: ["status.replicas"],
    }),
    builtin("apps", "v1", "statefulsets", {
      kind: "StatefulSet",
      scale: true,
      shortNames: ["sts"],
      categories: workloads,
      status: true,
      generation: true,
      columns: [ready],
    }),
    builtin("apps", "v1", "daemonsets", {
      kind: "DaemonSet",
      shortNames: ["ds"],
      categories: workloads,
      status: true,
      generation: true,
      columns: [
        col("Desired", ".status.desiredNumberScheduled", "integer"),
        col("Current", ".status.currentNumberScheduled", "integer"),
        col("Ready", ".status.numberReady", "integer"),
        col("Up-to-date", ".status.updatedNumberScheduled", "integer"),
        col("Available", ".status.numberAvailable", "integer"),
      ],
    }),
    builtin("batch", "v1", "jobs", {
      kind: "Job",
      categories: workloads,
      status: true,
      generation: true,
      columns: [
        computed(
          "Completions",
          (o) => `${num(at(o, "status", "succeeded"))}/${num(at(o, "spec", "completions") ?? 1)}`,
        ),
      ],
      selectableFields: ["status.successful"],
    }),
    builtin("batch", "v1", "cronjobs", {
      kind: "CronJob",
      shortNames: ["cj"],
      categories: workloads,
      status: true,
      generation: true,
      columns: [
        col("Schedule", ".spec.schedule"),
        col("Suspend", ".spec.suspend", "boolean"),
        computed("Active", (o) => count(at(o, "status", "active")), "integer"),
        col("Last Schedule", ".status.lastScheduleTime", "date"),
      ],
    }),
    builtin("coordination.k8s.io", "v1", "leases", {
      kind: "Lease",
      columns: [col("Holder", ".spec.holderIdentity")],
    }),
    builtin("events.k8s.io", "v1", "events", {
      kind: "Event",
      shortNames: ["ev"],
      columns: [col("Type", ".type"), col("Reason", ".reason"), col("Note", ".note")],
    }),
    builtin("apiextensions.k8s.io", "v1", "customresourcedefinitions", {
      kind: "CustomResourceDefinition",
      shortNames: ["crd", "crds"],
      categories: ["api-extensions"],
      namespaced: false,
      status: true,
      generation: true,
      columns: [createdAt],
    }),
    ...["ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"].map((kind) =>
      builtin("admissionregistration.k8s.io", "v1", `${kind.toLowerCase()}s`, {
        kind,
        categories: ["api-extensions"],
        namespaced: false,
        generation: true,
        columns: [computed("Webhooks", (o) => count(at(o, "webhooks")), "integer")],
      })
    ),
    ...[["Role", true], ["ClusterRole", false], ["RoleBinding", true], [
      "ClusterRoleBinding",
      false,
    ]]
      .map(([kind, namespaced]) =>
        builtin("rbac.authorization.k8s.io", "v1", `${String(kind).toLowerCase()}s`, {
          kind: String(kind),
          namespaced: Boolean(namespaced),
          columns: String(kind).endsWith("Binding")
            ? [
              computed("Role", (o) =>
                `${at(o, "roleRef", "kind") ?? ""}/${at(o, "roleRef", "name") ?? ""}`),
            ]
            : [createdAt],
        })
      ),
    ...coreTypes(),
    ...groupTypes(),
    ...infrastructureTypes(),
  ];
}

/**
 * Whether a resource of the group is one of Kubernetes' own rather than a custom resource:
 * the group is one that no custom resource can have -- the core group and the other groups
 * without a dot (a CRD's group needs one: `apps`, `batch`, `policy`, `autoscaling`, ...), and
 * the groups that Kubernetes keeps for its own APIs (`k8s.io`, `kubernetes.io` and their
 * subdomains: `networking.k8s.io`, `storage.k8s.io`, ...). Every one of {@link builtinTypes}
 * is in such a group (its test keeps it so): the answer needs no table, and a watch's start
 * makes none.
 */
export function isBuiltinResource(group: string): boolean {
  if (!group.includes(".")) return true;
  return group === "k8s.io" || group.endsWith(".k8s.io") || group === "kubernetes.io" ||
    group.endsWith(".kubernetes.io");
}
