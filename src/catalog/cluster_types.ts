/**
 * The rest of what a default kube-apiserver v1.32 serves: the core group's other resources
 * and the GA groups, with the names, scope, verbs, short names, categories and subresources
 * of its discovery documents (kubernetes/kubernetes api/discovery/, the resources a 1.32
 * server enables by default).
 *
 * @module
 */
import type { JsonObject } from "../structs/bodies.ts";
import type { ResourceType } from "./resource_types.ts";
import {
  at,
  builtin,
  col,
  computed,
  EDIT_VERBS,
  PROXY_VERBS,
  replicaColumns,
  sub,
} from "./builtin_specs.ts";

const workloads = ["all"];
const extensions = ["api-extensions"];

/** A node's Ready condition as `kubectl get nodes` shows it. */
function nodeStatus(node: JsonObject): string {
  const conditions = at(node, "status", "conditions");
  const ready = Array.isArray(conditions)
    ? conditions.find((c) =>
      !!c && typeof c === "object" && !Array.isArray(c) && c.type === "Ready"
    )
    : undefined;
  const status = ready && typeof ready === "object" && !Array.isArray(ready) ? ready.status : "";
  const shown = status === "True" ? "Ready" : status === "False" ? "NotReady" : "Unknown";
  return at(node, "spec", "unschedulable") === true ? `${shown},SchedulingDisabled` : shown;
}

/** A node's roles, from its `node-role.kubernetes.io/<role>` labels. */
function nodeRoles(node: JsonObject): string {
  const labels = at(node, "metadata", "labels");
  const roles = labels && typeof labels === "object" && !Array.isArray(labels)
    ? Object.keys(labels).filter((key) => key.startsWith("node-role.kubernetes.io/"))
      .map((key) => key.slice("node-role.kubernetes.io/".length))
    : [];
  return roles.length ? roles.sort().join(",") : "<none>";
}

/** The core group's resources beyond the ones a kopf operator uses most. */
export function coreTypes(): ResourceType[] {
  return [
    builtin("", "v1", "bindings", { kind: "Binding", verbs: ["create"], virtual: true }),
    builtin("", "v1", "componentstatuses", {
      kind: "ComponentStatus",
      shortNames: ["cs"],
      namespaced: false,
      verbs: ["get", "list"],
      virtual: true,
      columns: ["Status", "Message", "Error"].map((name) =>
        computed(name, (o) => {
          const conditions = o.conditions;
          const first = Array.isArray(conditions) ? conditions[0] : undefined;
          const condition = first && typeof first === "object" && !Array.isArray(first)
            ? first
            : {};
          if (name === "Status") return condition.status === "True" ? "Healthy" : "Unhealthy";
          return String(name === "Message" ? condition.message ?? "" : condition.error ?? "");
        })
      ),
    }),
    builtin("", "v1", "endpoints", { kind: "Endpoints", shortNames: ["ep"] }),
    builtin("", "v1", "limitranges", { kind: "LimitRange", shortNames: ["limits"] }),
    builtin("", "v1", "nodes", {
      kind: "Node",
      shortNames: ["no"],
      namespaced: false,
      status: true,
      subresources: [sub("proxy", "NodeProxyOptions", PROXY_VERBS)],
      columns: [
        computed("Status", nodeStatus),
        computed("Roles", nodeRoles),
        col("Age", ".metadata.creationTimestamp", "date"),
        col("Version", ".status.nodeInfo.kubeletVersion"),
      ],
      selectableFields: ["spec.unschedulable"],
    }),
    builtin("", "v1", "persistentvolumes", {
      kind: "PersistentVolume",
      shortNames: ["pv"],
      namespaced: false,
      status: true,
      columns: [
        col("Capacity", ".spec.capacity.storage"),
        col("Status", ".status.phase"),
        col("StorageClass", ".spec.storageClassName"),
      ],
    }),
    builtin("", "v1", "podtemplates", { kind: "PodTemplate" }),
    builtin("", "v1", "replicationcontrollers", {
      kind: "ReplicationController",
      shortNames: ["rc"],
      categories: workloads,
      status: true,
      scale: true,
      generation: true,
      columns: replicaColumns(),
      selectableFields: ["status.replicas"],
    }),
    builtin("", "v1", "resourcequotas", {
      kind: "ResourceQuota",
      shortNames: ["quota"],
      status: true,
    }),
  ];
}

/** The GA groups' resources of admission, registration, apps, autoscaling, certificates. */
export function groupTypes(): ResourceType[] {
  return [
    builtin("admissionregistration.k8s.io", "v1", "validatingadmissionpolicies", {
      kind: "ValidatingAdmissionPolicy",
      categories: extensions,
      namespaced: false,
      status: true,
      generation: true,
    }),
    builtin("admissionregistration.k8s.io", "v1", "validatingadmissionpolicybindings", {
      kind: "ValidatingAdmissionPolicyBinding",
      categories: extensions,
      namespaced: false,
      generation: true,
    }),
    builtin("apiregistration.k8s.io", "v1", "apiservices", {
      kind: "APIService",
      categories: extensions,
      namespaced: false,
      status: true,
      columns: [
        computed("Service", (o) => {
          const service = at(o, "spec", "service");
          return service && typeof service === "object" && !Array.isArray(service)
            ? `${service.namespace}/${service.name}`
            : "Local";
        }),
        computed("Available", (o) => {
          const conditions = at(o, "status", "conditions");
          const available = Array.isArray(conditions)
            ? conditions.find((c) =>
              !!c && typeof c === "object" && !Array.isArray(c) && c.type === "Available"
            )
            : undefined;
          return available && typeof available === "object" && !Array.isArray(available)
            ? String(available.status)
            : "Unknown";
        }),
      ],
    }),
    builtin("apps", "v1", "controllerrevisions", {
      kind: "ControllerRevision",
      columns: [col("Revision", ".revision", "integer")],
    }),
    builtin("autoscaling", "v2", "horizontalpodautoscalers", {
      kind: "HorizontalPodAutoscaler",
      shortNames: ["hpa"],
      categories: workloads,
      status: true,
      generation: true,
      columns: [
        computed(
          "Reference",
          (o) =>
            `${at(o, "spec", "scaleTargetRef", "kind") ?? ""}/${
              at(o, "spec", "scaleTargetRef", "name") ?? ""
            }`,
        ),
        col("MinPods", ".spec.minReplicas", "integer"),
        col("MaxPods", ".spec.maxReplicas", "integer"),
        col("Replicas", ".status.currentReplicas", "integer"),
      ],
    }),
    builtin("certificates.k8s.io", "v1", "certificatesigningrequests", {
      kind: "CertificateSigningRequest",
      shortNames: ["csr"],
      namespaced: false,
      status: true,
      subresources: [sub("approval", "CertificateSigningRequest", EDIT_VERBS)],
      columns: [
        col("SignerName", ".spec.signerName"),
        col("Requestor", ".spec.username"),
      ],
    }),
    builtin("discovery.k8s.io", "v1", "endpointslices", {
      kind: "EndpointSlice",
      columns: [col("AddressType", ".addressType")],
    }),
    ...["FlowSchema", "PriorityLevelConfiguration"].map((kind) =>
      builtin("flowcontrol.apiserver.k8s.io", "v1", `${kind.toLowerCase()}s`, {
        kind,
        namespaced: false,
        status: true,
        generation: true,
      })
    ),
  ];
}

/** The GA groups' resources of networking, nodes, policy, scheduling and storage. */
export function infrastructureTypes(): ResourceType[] {
  return [
    builtin("networking.k8s.io", "v1", "ingressclasses", {
      kind: "IngressClass",
      namespaced: false,
      columns: [col("Controller", ".spec.controller")],
    }),
    builtin("networking.k8s.io", "v1", "ingresses", {
      kind: "Ingress",
      shortNames: ["ing"],
      status: true,
      generation: true,
      columns: [col("Class", ".spec.ingressClassName")],
    }),
    builtin("networking.k8s.io", "v1", "networkpolicies", {
      kind: "NetworkPolicy",
      shortNames: ["netpol"],
      generation: true,
    }),
    builtin("node.k8s.io", "v1", "runtimeclasses", {
      kind: "RuntimeClass",
      namespaced: false,
      columns: [col("Handler", ".handler")],
    }),
    builtin("policy", "v1", "poddisruptionbudgets", {
      kind: "PodDisruptionBudget",
      shortNames: ["pdb"],
      status: true,
      generation: true,
      columns: [
        col("Min Available", ".spec.minAvailable"),
        col("Max Unavailable", ".spec.maxUnavailable"),
        col("Allowed Disruptions", ".status.disruptionsAllowed", "integer"),
      ],
    }),
    builtin("scheduling.k8s.io", "v1", "priorityclasses", {
      kind: "PriorityClass",
      shortNames: ["pc"],
      namespaced: false,
      columns: [
        col("Value", ".value", "integer"),
        col("Global-Default", ".globalDefault", "boolean"),
      ],
    }),
    ...["CSIDriver", "CSINode"].map((kind) =>
      builtin("storage.k8s.io", "v1", `${kind.toLowerCase()}s`, { kind, namespaced: false })
    ),
    builtin("storage.k8s.io", "v1", "csistoragecapacities", { kind: "CSIStorageCapacity" }),
    builtin("storage.k8s.io", "v1", "storageclasses", {
      kind: "StorageClass",
      shortNames: ["sc"],
      namespaced: false,
      columns: [col("Provisioner", ".provisioner")],
    }),
    builtin("storage.k8s.io", "v1", "volumeattachments", {
      kind: "VolumeAttachment",
      namespaced: false,
      status: true,
      columns: [col("Attacher", ".spec.attacher"), col("Attached", ".status.attached", "boolean")],
    }),
  ];
}
