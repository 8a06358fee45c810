/**
 * Built-in objects defaulted as kube-apiserver defaults them on every create and update
 * (patches included): the scheme's `SetDefaults_*` functions of each group
 * (pkg/apis/<group>/<version>/defaults.go), the registries' `PrepareForCreate`
 * (pkg/registry/<group>/<resource>/strategy.go: a new object's status), and the Go
 * types' structs that serialise even when empty (`status: {}`, `spec: {}`). Pods and
 * Services have modules of their own; this one dispatches by resource.
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import { type ResourceType, typeKey } from "../../catalog/resource_types.ts";
import { at, child, fill, items, templateMeta } from "./default_values.ts";
import { admitNewPod, defaultPod, defaultPodTemplate } from "./defaults_pods.ts";
import { allocateService, defaultService } from "./defaults_services.ts";
import {
  defaultAdmissionPolicy,
  defaultAdmissionPolicyBinding,
  defaultWebhooks,
} from "./defaults_admission.ts";
import {
  csiDriver,
  customResourceDefinition,
  endpointSlice,
  networkPolicy,
  nodeStatus,
  priorityClass,
  roleBinding,
  storageClass,
} from "./defaults_cluster.ts";
import { metaOf } from "./metadata.ts";
import { isObject } from "./patching.ts";
import type { Store } from "./store.ts";

/** What a defaulting function may need beyond the object. */
export interface Defaulting {
  readonly store: Store;
  /** The stored object an update replaces; none on creation. */
  readonly old?: JsonObject;
}

type Defaulter = (object: JsonObject) => void;
type Preparer = (object: JsonObject, context: Defaulting) => void;

/**
 * The status with the fields its Go struct writes even at zero (no `omitempty`); an
 * object without a status gets the empty one, as the struct always serialises.
 */
function zeroStatus(object: JsonObject, zero: JsonObject): void {
  object.status = { ...zero, ...(isObject(object.status) ? object.status : {}) };
}

/** Template labels as the labels and selector of a ReplicationController. */
function replicationController(rc: JsonObject): void {
  const spec = child(rc, "spec");
  const template = at(spec, "template");
  const labels = template ? at(template, "metadata", "labels") : undefined;
  if (labels && Object.keys(labels).length) {
    if (!isObject(spec.selector) || !Object.keys(spec.selector).length) spec.selector = labels;
    const meta = metaOf(rc);
    if (!isObject(meta.labels) || !Object.keys(meta.labels).length) meta.labels = labels;
  }
  fill(spec, { replicas: 1 });
  if (template) defaultPodTemplate(template);
}

function deployment(object: JsonObject): void {
  const spec = child(object, "spec");
  fill(spec, { replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 });
  const strategy = child(spec, "strategy");
  fill(strategy, { type: "RollingUpdate" });
  if (strategy.type === "RollingUpdate") {
    fill(child(strategy, "rollingUpdate"), { maxUnavailable: "25%", maxSurge: "25%" });
  }
  defaultPodTemplate(child(spec, "template"));
}

function replicaSet(object: JsonObject): void {
  const spec = child(object, "spec");
  fill(spec, { replicas: 1 });
  defaultPodTemplate(child(spec, "template"));
}

function statefulSet(object: JsonObject): void {
  const spec = child(object, "spec");
  fill(spec, { podManagementPolicy: "OrderedReady", replicas: 1, revisionHistoryLimit: 10 });
  const strategy = child(spec, "updateStrategy");
  if (!strategy.type) {
    strategy.type = "RollingUpdate";
    child(strategy, "rollingUpdate");
  }
  const rolling = at(strategy, "rollingUpdate");
  if (strategy.type === "RollingUpdate" && rolling) fill(rolling, { partition: 0 });
  // StatefulSetAutoDeletePVC is on by default since 1.27.
  fill(child(spec, "persistentVolumeClaimRetentionPolicy"), {
    whenDeleted: "Retain",
    whenScaled: "Retain",
  });
  defaultPodTemplate(child(spec, "template"));
  for (const claim of items(spec, "volumeClaimTemplates")) {
    fill(claim, { apiVersion: "v1", kind: "PersistentVolumeClaim" });
    templateMeta(claim);
    fill(child(claim, "spec"), { volumeMode: "Filesystem" });
    fill(child(claim, "status"), { phase: "Pending" });
  }
}

function daemonSet(object: JsonObject): void {
  const spec = child(object, "spec");
  fill(spec, { revisionHistoryLimit: 10 });
  const strategy = child(spec, "updateStrategy");
  fill(strategy, { type: "RollingUpdate" });
  if (strategy.type === "RollingUpdate") {
    fill(child(strategy, "rollingUpdate"), { maxUnavailable: 1, maxSurge: 0 });
  }
  defaultPodTemplate(child(spec, "template"));
}

/** The Job strategy's `generateSelector`: the pods' labels, and a selector of its uid. */
function jobSelector(job: JsonObject): void {
  const spec = child(job, "spec");
  const meta = metaOf(job);
  const labels = child(child(child(spec, "template"), "metadata"), "labels");
  const name = String(meta.name ?? "");
  const uid = String(meta.uid ?? "");
  fill(labels, { "batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": name });
  fill(labels, { "controller-uid": uid, "job-name": name });
  fill(child(child(spec, "selector"), "matchLabels"), {
    "batch.kubernetes.io/controller-uid": uid,
  });
}

function job(object: JsonObject): void {
  const spec = child(object, "spec");
  if (spec.completions == null && spec.parallelism == null) spec.completions = 1;
  fill(spec, { parallelism: 1 });
  // An index-bound backoff limit makes the global one unbounded (math.MaxInt32).
  fill(spec, { backoffLimit: spec.backoffLimitPerIndex != null ? 2147483647 : 6 });
  const templateLabels = at(spec, "template", "metadata", "labels");
  const meta = metaOf(object);
  if (templateLabels && (!isObject(meta.labels) || !Object.keys(meta.labels).length)) {
    meta.labels = { ...templateLabels };
  }
  fill(spec, {
    completionMode: "NonIndexed",
    suspend: false,
    podReplacementPolicy: spec.podFailurePolicy != null ? "Failed" : "TerminatingOrFailed",
    manualSelector: false,
  });
  defaultPodTemplate(child(spec, "template"));
}

function cronJob(object: JsonObject): void {
  const spec = child(object, "spec");
  fill(spec, {
    concurrencyPolicy: "Allow",
    suspend: false,
    successfulJobsHistoryLimit: 3,
    failedJobsHistoryLimit: 1,
  });
  const jobTemplate = child(spec, "jobTemplate");
  templateMeta(jobTemplate);
  defaultPodTemplate(child(child(jobTemplate, "spec"), "template"));
}

/** `SetDefaults_Namespace`: the namespace's name as a label. */
function namespace(object: JsonObject): void {
  const meta = metaOf(object);
  if (!meta.name) return;
  meta.labels = { ...(at(meta, "labels") ?? {}), "kubernetes.io/metadata.name": meta.name };
}

/** The namespace strategy's `PrepareForCreate`: the `kubernetes` finalizer, and `Active`. */
function newNamespace(object: JsonObject, context: Defaulting): void {
  if (context.old) return;
  const spec = child(object, "spec");
  const finalizers = Array.isArray(spec.finalizers) ? spec.finalizers : [];
  if (!finalizers.includes("kubernetes")) finalizers.push("kubernetes");
  spec.finalizers = finalizers;
  object.status = { phase: "Active" };
}

/** Volumes and claims start `Pending` (`SetDefaults_PersistentVolume(Claim)`). */
function pendingVolume(object: JsonObject): void {
  fill(child(object, "status"), { phase: "Pending" });
}

/** core/v1 Events: the structs and times with no `omitempty` a struct heeds. */
function coreEvent(object: JsonObject): void {
  child(object, "involvedObject");
  child(object, "source");
  for (const time of ["firstTimestamp", "lastTimestamp", "eventTime"]) {
    if (object[time] === undefined) object[time] = null;
  }
  for (const field of ["reportingComponent", "reportingInstance"]) {
    if (object[field] === undefined) object[field] = "";
  }
}

/** events.k8s.io/v1 Events, likewise. */
function eventsEvent(object: JsonObject): void {
  if (object.eventTime === undefined) object.eventTime = null;
  child(object, "regarding");
  child(object, "deprecatedSource");
  for (const time of ["deprecatedFirstTimestamp", "deprecatedLastTimestamp"]) {
    if (object[time] === undefined) object[time] = null;
  }
}

/** The scheme's defaulting of each built-in resource, by `group/plural`. */
const DEFAULTERS: Record<string, Defaulter> = {
  [typeKey("", "pods")]: defaultPod,
  [typeKey("", "podtemplates")]: (object) => defaultPodTemplate(child(object, "template")),
  [typeKey("", "services")]: defaultService,
  [typeKey("", "replicationcontrollers")]: replicationController,
  [typeKey("", "namespaces")]: namespace,
  [typeKey("", "secrets")]: (secret) => void fill(secret, { type: "Opaque" }),
  [typeKey("", "persistentvolumeclaims")]: (claim) => {
    fill(child(claim, "spec"), { volumeMode: "Filesystem" });
    pendingVolume(claim);
  },
  [typeKey("", "persistentvolumes")]: (volume) => {
    fill(child(volume, "spec"), {
      persistentVolumeReclaimPolicy: "Retain",
      volumeMode: "Filesystem",
    });
    pendingVolume(volume);
  },
  [typeKey("", "endpoints")]: (object) => {
    for (const subset of items(object, "subsets")) {
      for (const port of items(subset, "ports")) fill(port, { protocol: "TCP" });
    }
  },
  [typeKey("", "events")]: coreEvent,
  [typeKey("events.k8s.io", "events")]: eventsEvent,
  [typeKey("apps", "deployments")]: deployment,
  [typeKey("apps", "replicasets")]: replicaSet,
  [typeKey("apps", "statefulsets")]: statefulSet,
  [typeKey("apps", "daemonsets")]: daemonSet,
  [typeKey("batch", "jobs")]: job,
  [typeKey("batch", "cronjobs")]: cronJob,
  // LeaseSpec is a struct: `spec: {}`.
  [typeKey("coordination.k8s.io", "leases")]: (lease) => void child(lease, "spec"),
  // PolicyRule lists have no `omitempty`: `rules: null`.
  [typeKey("rbac.authorization.k8s.io", "roles")]: rules,
  [typeKey("rbac.authorization.k8s.io", "clusterroles")]: rules,
  [typeKey("rbac.authorization.k8s.io", "rolebindings")]: roleBinding,
  [typeKey("rbac.authorization.k8s.io", "clusterrolebindings")]: roleBinding,
  [typeKey("admissionregistration.k8s.io", "mutatingwebhookconfigurations")]: (object) =>
    defaultWebhooks(object, true),
  [typeKey("admissionregistration.k8s.io", "validatingwebhookconfigurations")]: (object) =>
    defaultWebhooks(object, false),
  [typeKey("admissionregistration.k8s.io", "validatingadmissionpolicies")]: defaultAdmissionPolicy,
  [typeKey("admissionregistration.k8s.io", "validatingadmissionpolicybindings")]:
    defaultAdmissionPolicyBinding,
  [typeKey("apiextensions.k8s.io", "customresourcedefinitions")]: customResourceDefinition,
  [typeKey("storage.k8s.io", "storageclasses")]: storageClass,
  [typeKey("storage.k8s.io", "csidrivers")]: csiDriver,
  [typeKey("scheduling.k8s.io", "priorityclasses")]: priorityClass,
  [typeKey("networking.k8s.io", "networkpolicies")]: networkPolicy,
  [typeKey("discovery.k8s.io", "endpointslices")]: endpointSlice,
  [typeKey("", "nodes")]: nodeStatus,
};

function rules(role: JsonObject): void {
  if (role.rules === undefined) role.rules = null;
}

/** A status that always serialises, with these fields at zero unless set. */
function zeroed(zero: JsonObject): Preparer {
  return (object) => zeroStatus(object, zero);
}

/**
 * What the registries add after the managed fields are taken, so that no manager owns it:
 * strategies' `PrepareForCreate`, admission, allocations, and the statuses that serialise.
 */
const PREPARERS: Record<string, Preparer> = {
  [typeKey("", "pods")]: (pod, context) => {
    if (!context.old) admitNewPod(pod);
  },
  [typeKey("", "services")]: (service, context) =>
    allocateService(service, context.store, context.old),
  [typeKey("", "namespaces")]: newNamespace,
  [typeKey("", "replicationcontrollers")]: zeroed({ replicas: 0 }),
  [typeKey("apps", "deployments")]: zeroed({}),
  [typeKey("apps", "replicasets")]: zeroed({ replicas: 0 }),
  [typeKey("apps", "statefulsets")]: zeroed({ replicas: 0, availableReplicas: 0 }),
  [typeKey("apps", "daemonsets")]: zeroed({
    currentNumberScheduled: 0,
    numberMisscheduled: 0,
    desiredNumberScheduled: 0,
    numberReady: 0,
  }),
  [typeKey("batch", "jobs")]: (object, context) => {
    if (!context.old && at(object, "spec")?.manualSelector !== true) jobSelector(object);
    zeroStatus(object, {});
  },
  [typeKey("batch", "cronjobs")]: zeroed({}),
  [typeKey("policy", "poddisruptionbudgets")]: zeroed({
    disruptionsAllowed: 0,
    currentHealthy: 0,
    desiredHealthy: 0,
    expectedPods: 0,
  }),
};

/** The kinds whose new objects keep the status they are created with (a kubelet's Node). */
const STATUS_ON_CREATE = new Set([typeKey("", "nodes")]);

/** Whether a create of this type keeps the status it is given (its strategy resets none). */
export function keepsStatusOnCreate(type: ResourceType): boolean {
  return STATUS_ON_CREATE.has(typeKey(type.group, type.plural));
}

/** Whether kube-apiserver defaults objects of this type (custom resources have schemas). */
function defaulted(type: ResourceType): boolean {
  return type.builtin && !type.crd;
}

/**
 * Default a built-in object in place as the scheme does when it decodes a request's body:
 * before the managed fields are taken, which own these defaults as the client's.
 */
export function defaultBuiltin(type: ResourceType, object: JsonObject): void {
  if (defaulted(type)) DEFAULTERS[typeKey(type.group, type.plural)]?.(object);
}

/** Finish a built-in object in place as its registry does before storing it. */
export function prepareBuiltin(type: ResourceType, object: JsonObject, context: Defaulting): void {
  if (defaulted(type)) PREPARERS[typeKey(type.group, type.plural)]?.(object, context);
}
