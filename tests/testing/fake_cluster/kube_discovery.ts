/**
 * What a default kube-apiserver v1.32 lists in discovery, per group version: each resource
 * and subresource with its kind, scope, verbs, short names and categories. Derived from
 * kubernetes/kubernetes api/discovery/ (api__v1.json, apis__<group>__<version>.json,
 * aggregated_v2.json), kept to the group versions and resources a 1.32 server enables by
 * default (no alpha or beta APIs, nothing added after 1.32 such as `pods/resize`).
 */

/** One entry of an APIResourceList, as the test compares it. */
export interface DiscoveredResource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs: readonly string[];
  shortNames?: readonly string[];
  categories?: readonly string[];
  group?: string;
  version?: string;
}

const ALL = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
const NO_COLLECTION = ["create", "delete", "get", "list", "patch", "update", "watch"];
const EDIT = ["get", "patch", "update"];
const STREAM = ["create", "get"];
const PROXY = ["create", "delete", "get", "patch", "update"];

/** The resources of each group version (`v1` is the core group's), in discovery's order. */
export const KUBE_1_32_DISCOVERY: Readonly<Record<string, readonly DiscoveredResource[]>> = {
  "v1": [
    { name: "bindings", kind: "Binding", namespaced: true, verbs: ["create"] },
    {
      name: "componentstatuses",
      kind: "ComponentStatus",
      namespaced: false,
      verbs: ["get", "list"],
      shortNames: ["cs"],
    },
    { name: "configmaps", kind: "ConfigMap", namespaced: true, verbs: ALL, shortNames: ["cm"] },
    { name: "endpoints", kind: "Endpoints", namespaced: true, verbs: ALL, shortNames: ["ep"] },
    { name: "events", kind: "Event", namespaced: true, verbs: ALL, shortNames: ["ev"] },
    {
      name: "limitranges",
      kind: "LimitRange",
      namespaced: true,
      verbs: ALL,
      shortNames: ["limits"],
    },
    {
      name: "namespaces",
      kind: "Namespace",
      namespaced: false,
      verbs: NO_COLLECTION,
      shortNames: ["ns"],
    },
    { name: "namespaces/finalize", kind: "Namespace", namespaced: false, verbs: ["update"] },
    { name: "namespaces/status", kind: "Namespace", namespaced: false, verbs: EDIT },
    { name: "nodes", kind: "Node", namespaced: false, verbs: ALL, shortNames: ["no"] },
    { name: "nodes/proxy", kind: "NodeProxyOptions", namespaced: false, verbs: PROXY },
    { name: "nodes/status", kind: "Node", namespaced: false, verbs: EDIT },
    {
      name: "persistentvolumeclaims",
      kind: "PersistentVolumeClaim",
      namespaced: true,
      verbs: ALL,
      shortNames: ["pvc"],
    },
    {
      name: "persistentvolumeclaims/status",
      kind: "PersistentVolumeClaim",
      namespaced: true,
      verbs: EDIT,
    },
    {
      name: "persistentvolumes",
      kind: "PersistentVolume",
      namespaced: false,
      verbs: ALL,
      shortNames: ["pv"],
    },
    { name: "persistentvolumes/status", kind: "PersistentVolume", namespaced: false, verbs: EDIT },
    {
      name: "pods",
      kind: "Pod",
      namespaced: true,
      verbs: ALL,
      shortNames: ["po"],
      categories: ["all"],
    },
    { name: "pods/attach", kind: "PodAttachOptions", namespaced: true, verbs: STREAM },
    { name: "pods/binding", kind: "Binding", namespaced: true, verbs: ["create"] },
    { name: "pods/ephemeralcontainers", kind: "Pod", namespaced: true, verbs: EDIT },
    {
      name: "pods/eviction",
      kind: "Eviction",
      namespaced: true,
      verbs: ["create"],
      group: "policy",
      version: "v1",
    },
    { name: "pods/exec", kind: "PodExecOptions", namespaced: true, verbs: STREAM },
    { name: "pods/log", kind: "Pod", namespaced: true, verbs: ["get"] },
    { name: "pods/portforward", kind: "PodPortForwardOptions", namespaced: true, verbs: STREAM },
    { name: "pods/proxy", kind: "PodProxyOptions", namespaced: true, verbs: PROXY },
    { name: "pods/status", kind: "Pod", namespaced: true, verbs: EDIT },
    { name: "podtemplates", kind: "PodTemplate", namespaced: true, verbs: ALL },
    {
      name: "replicationcontrollers",
      kind: "ReplicationController",
      namespaced: true,
      verbs: ALL,
      shortNames: ["rc"],
      categories: ["all"],
    },
    {
      name: "replicationcontrollers/scale",
      kind: "Scale",
      namespaced: true,
      verbs: EDIT,
      group: "autoscaling",
      version: "v1",
    },
    {
      name: "replicationcontrollers/status",
      kind: "ReplicationController",
      namespaced: true,
      verbs: EDIT,
    },
    {
      name: "resourcequotas",
      kind: "ResourceQuota",
      namespaced: true,
      verbs: ALL,
      shortNames: ["quota"],
    },
    { name: "resourcequotas/status", kind: "ResourceQuota", namespaced: true, verbs: EDIT },
    { name: "secrets", kind: "Secret", namespaced: true, verbs: ALL },
    {
      name: "serviceaccounts",
      kind: "ServiceAccount",
      namespaced: true,
      verbs: ALL,
      shortNames: ["sa"],
    },
    {
      name: "serviceaccounts/token",
      kind: "TokenRequest",
      namespaced: true,
      verbs: ["create"],
      group: "authentication.k8s.io",
      version: "v1",
    },
    {
      name: "services",
      kind: "Service",
      namespaced: true,
      verbs: ALL,
      shortNames: ["svc"],
      categories: ["all"],
    },
    { name: "services/proxy", kind: "ServiceProxyOptions", namespaced: true, verbs: PROXY },
    { name: "services/status", kind: "Service", namespaced: true, verbs: EDIT },
  ],
  "admissionregistration.k8s.io/v1": [
    {
      name: "mutatingwebhookconfigurations",
      kind: "MutatingWebhookConfiguration",
      namespaced: false,
      verbs: ALL,
      categories: ["api-extensions"],
    },
    {
      name: "validatingadmissionpolicies",
      kind: "ValidatingAdmissionPolicy",
      namespaced: false,
      verbs: ALL,
      categories: ["api-extensions"],
    },
    {
      name: "validatingadmissionpolicies/status",
      kind: "ValidatingAdmissionPolicy",
      namespaced: false,
      verbs: EDIT,
    },
    {
      name: "validatingadmissionpolicybindings",
      kind: "ValidatingAdmissionPolicyBinding",
      namespaced: false,
      verbs: ALL,
      categories: ["api-extensions"],
    },
    {
      name: "validatingwebhookconfigurations",
      kind: "ValidatingWebhookConfiguration",
      namespaced: false,
      verbs: ALL,
      categories: ["api-extensions"],
    },
  ],
  "apiextensions.k8s.io/v1": [
    {
      name: "customresourcedefinitions",
      kind: "CustomResourceDefinition",
      namespaced: false,
      verbs: ALL,
      shortNames: ["crd", "crds"],
      categories: ["api-extensions"],
    },
    {
      name: "customresourcedefinitions/status",
      kind: "CustomResourceDefinition",
      namespaced: false,
      verbs: EDIT,
    },
  ],
  "apiregistration.k8s.io/v1": [
    {
      name: "apiservices",
      kind: "APIService",
      namespaced: false,
      verbs: ALL,
      categories: ["api-extensions"],
    },
    { name: "apiservices/status", kind: "APIService", namespaced: false, verbs: EDIT },
  ],
  "apps/v1": [
    { name: "controllerrevisions", kind: "ControllerRevision", namespaced: true, verbs: ALL },
    {
      name: "daemonsets",
      kind: "DaemonSet",
      namespaced: true,
      verbs: ALL,
      shortNames: ["ds"],
      categories: ["all"],
    },
    { name: "daemonsets/status", kind: "DaemonSet", namespaced: true, verbs: EDIT },
    {
      name: "deployments",
      kind: "Deployment",
      namespaced: true,
      verbs: ALL,
      shortNames: ["deploy"],
      categories: ["all"],
    },
    {
      name: "deployments/scale",
      kind: "Scale",
      namespaced: true,
      verbs: EDIT,
      group: "autoscaling",
      version: "v1",
    },
    { name: "deployments/status", kind: "Deployment", namespaced: true, verbs: EDIT },
    {
      name: "replicasets",
      kind: "ReplicaSet",
      namespaced: true,
      verbs: ALL,
      shortNames: ["rs"],
      categories: ["all"],
    },
    {
      name: "replicasets/scale",
      kind: "Scale",
      namespaced: true,
      verbs: EDIT,
      group: "autoscaling",
      version: "v1",
    },
    { name: "replicasets/status", kind: "ReplicaSet", namespaced: true, verbs: EDIT },
    {
      name: "statefulsets",
      kind: "StatefulSet",
      namespaced: true,
      verbs: ALL,
      shortNames: ["sts"],
      categories: ["all"],
    },
    {
      name: "statefulsets/scale",
      kind: "Scale",
      namespaced: true,
      verbs: EDIT,
      group: "autoscaling",
      version: "v1",
    },
    { name: "statefulsets/status", kind: "StatefulSet", namespaced: true, verbs: EDIT },
  ],
  "authentication.k8s.io/v1": [
    { name: "selfsubjectreviews", kind: "SelfSubjectReview", namespaced: false, verbs: ["create"] },
    { name: "tokenreviews", kind: "TokenReview", namespaced: false, verbs: ["create"] },
  ],
  "authorization.k8s.io/v1": [
    {
      name: "localsubjectaccessreviews",
      kind: "LocalSubjectAccessReview",
      namespaced: true,
      verbs: ["create"],
    },
    {
      name: "selfsubjectaccessreviews",
      kind: "SelfSubjectAccessReview",
      namespaced: false,
      verbs: ["create"],
    },
    {
      name: "selfsubjectrulesreviews",
      kind: "SelfSubjectRulesReview",
      namespaced: false,
      verbs: ["create"],
    },
    {
      name: "subjectaccessreviews",
      kind: "SubjectAccessReview",
      namespaced: false,
      verbs: ["create"],
    },
  ],
  "autoscaling/v2": [
    {
      name: "horizontalpodautoscalers",
      kind: "HorizontalPodAutoscaler",
      namespaced: true,
      verbs: ALL,
      shortNames: ["hpa"],
      categories: ["all"],
    },
    {
      name: "horizontalpodautoscalers/status",
      kind: "HorizontalPodAutoscaler",
      namespaced: true,
      verbs: EDIT,
    },
  ],
  "autoscaling/v1": [
    {
      name: "horizontalpodautoscalers",
      kind: "HorizontalPodAutoscaler",
      namespaced: true,
      verbs: ALL,
      shortNames: ["hpa"],
      categories: ["all"],
    },
    {
      name: "horizontalpodautoscalers/status",
      kind: "HorizontalPodAutoscaler",
      namespaced: true,
      verbs: EDIT,
    },
  ],
  "batch/v1": [
    {
      name: "cronjobs",
      kind: "CronJob",
      namespaced: true,
      verbs: ALL,
      shortNames: ["cj"],
      categories: ["all"],
    },
    { name: "cronjobs/status", kind: "CronJob", namespaced: true, verbs: EDIT },
    { name: "jobs", kind: "Job", namespaced: true, verbs: ALL, categories: ["all"] },
    { name: "jobs/status", kind: "Job", namespaced: true, verbs: EDIT },
  ],
  "certificates.k8s.io/v1": [
    {
      name: "certificatesigningrequests",
      kind: "CertificateSigningRequest",
      namespaced: false,
      verbs: ALL,
      shortNames: ["csr"],
    },
    {
      name: "certificatesigningrequests/approval",
      kind: "CertificateSigningRequest",
      namespaced: false,
      verbs: EDIT,
    },
    {
      name: "certificatesigningrequests/status",
      kind: "CertificateSigningRequest",
      namespaced: false,
      verbs: EDIT,
    },
  ],
  "coordination.k8s.io/v1": [
    { name: "leases", kind: "Lease", namespaced: true, verbs: ALL },
  ],
  "discovery.k8s.io/v1": [
    { name: "endpointslices", kind: "EndpointSlice", namespaced: true, verbs: ALL },
  ],
  "events.k8s.io/v1": [
    { name: "events", kind: "Event", namespaced: true, verbs: ALL, shortNames: ["ev"] },
  ],
  "flowcontrol.apiserver.k8s.io/v1": [
    { name: "flowschemas", kind: "FlowSchema", namespaced: false, verbs: ALL },
    { name: "flowschemas/status", kind: "FlowSchema", namespaced: false, verbs: EDIT },
    {
      name: "prioritylevelconfigurations",
      kind: "PriorityLevelConfiguration",
      namespaced: false,
      verbs: ALL,
    },
    {
      name: "prioritylevelconfigurations/status",
      kind: "PriorityLevelConfiguration",
      namespaced: false,
      verbs: EDIT,
    },
  ],
  "networking.k8s.io/v1": [
    { name: "ingressclasses", kind: "IngressClass", namespaced: false, verbs: ALL },
    { name: "ingresses", kind: "Ingress", namespaced: true, verbs: ALL, shortNames: ["ing"] },
    { name: "ingresses/status", kind: "Ingress", namespaced: true, verbs: EDIT },
    {
      name: "networkpolicies",
      kind: "NetworkPolicy",
      namespaced: true,
      verbs: ALL,
      shortNames: ["netpol"],
    },
  ],
  "node.k8s.io/v1": [
    { name: "runtimeclasses", kind: "RuntimeClass", namespaced: false, verbs: ALL },
  ],
  "policy/v1": [
    {
      name: "poddisruptionbudgets",
      kind: "PodDisruptionBudget",
      namespaced: true,
      verbs: ALL,
      shortNames: ["pdb"],
    },
    {
      name: "poddisruptionbudgets/status",
      kind: "PodDisruptionBudget",
      namespaced: true,
      verbs: EDIT,
    },
  ],
  "rbac.authorization.k8s.io/v1": [
    { name: "clusterrolebindings", kind: "ClusterRoleBinding", namespaced: false, verbs: ALL },
    { name: "clusterroles", kind: "ClusterRole", namespaced: false, verbs: ALL },
    { name: "rolebindings", kind: "RoleBinding", namespaced: true, verbs: ALL },
    { name: "roles", kind: "Role", namespaced: true, verbs: ALL },
  ],
  "scheduling.k8s.io/v1": [
    {
      name: "priorityclasses",
      kind: "PriorityClass",
      namespaced: false,
      verbs: ALL,
      shortNames: ["pc"],
    },
  ],
  "storage.k8s.io/v1": [
    { name: "csidrivers", kind: "CSIDriver", namespaced: false, verbs: ALL },
    { name: "csinodes", kind: "CSINode", namespaced: false, verbs: ALL },
    { name: "csistoragecapacities", kind: "CSIStorageCapacity", namespaced: true, verbs: ALL },
    {
      name: "storageclasses",
      kind: "StorageClass",
      namespaced: false,
      verbs: ALL,
      shortNames: ["sc"],
    },
    { name: "volumeattachments", kind: "VolumeAttachment", namespaced: false, verbs: ALL },
    { name: "volumeattachments/status", kind: "VolumeAttachment", namespaced: false, verbs: EDIT },
  ],
};
