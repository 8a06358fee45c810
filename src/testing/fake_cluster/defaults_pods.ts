/**
 * The defaults of pods and pod templates, as kube-apiserver fills them in: the scheme's
 * `SetDefaults_PodSpec`, `SetDefaults_Container`, `SetDefaults_Probe` and the volume
 * sources' (pkg/apis/core/v1/defaults.go, with zz_generated.defaults.go's declared ones),
 * then for Pods alone `SetDefaults_Pod`; and after the managed fields are taken (so that
 * no manager owns them, as create.go runs admission and the registry after the field
 * manager), the admission plugins that a default
 * kube-apiserver runs on a pod's creation (ServiceAccount, Priority,
 * DefaultTolerationSeconds: plugin/pkg/admission/...) and the pod strategy's
 * `PrepareForCreate` (pkg/registry/core/pod/strategy.go: a Pending status with its QoS class).
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import { at, child, fill, items, templateMeta, unset } from "./default_values.ts";
import { isObject } from "./patching.ts";

const PROBES = ["livenessProbe", "readinessProbe", "startupProbe"];
const CONTAINER_LISTS = ["initContainers", "containers", "ephemeralContainers"];
/** A volume source's `defaultMode` when none is given: 0644. */
const DEFAULT_MODE = 420;
const MODED_SOURCES = ["secret", "configMap", "downwardAPI", "projected"];

/** The tag of an image reference as `parsers.ParseImageName` sees it: `latest` if none. */
function imageTag(image: string): string {
  const [named, digest] = image.split("@", 2);
  const last = named.slice(named.lastIndexOf("/") + 1);
  const colon = last.indexOf(":");
  if (colon >= 0) return last.slice(colon + 1);
  return digest === undefined && image ? "latest" : "";
}

function defaultProbe(probe: JsonObject): void {
  fill(probe, { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
  const httpGet = at(probe, "httpGet");
  if (httpGet) fill(httpGet, { path: "/", scheme: "HTTP" });
}

/** `SetDefaults_Container`, its probes, ports and env; `resources: {}` always serialises. */
function defaultContainer(container: JsonObject): void {
  if (unset(container.imagePullPolicy)) {
    const tag = imageTag(typeof container.image === "string" ? container.image : "");
    container.imagePullPolicy = tag === "latest" ? "Always" : "IfNotPresent";
  }
  fill(container, {
    terminationMessagePath: "/dev/termination-log",
    terminationMessagePolicy: "File",
  });
  child(container, "resources");
  for (const port of items(container, "ports")) fill(port, { protocol: "TCP" });
  for (const name of PROBES) {
    if (isObject(container[name])) defaultProbe(container[name] as JsonObject);
  }
  for (const hook of ["postStart", "preStop"]) {
    const httpGet = at(container, "lifecycle", hook, "httpGet");
    if (httpGet) fill(httpGet, { path: "/", scheme: "HTTP" });
  }
  for (const env of items(container, "env")) {
    const fieldRef = at(env, "valueFrom", "fieldRef");
    if (fieldRef) fill(fieldRef, { apiVersion: "v1" });
  }
}

/** `SetDefaults_Volume` and the volume sources' modes. */
function defaultVolume(volume: JsonObject): void {
  const sources = Object.keys(volume).filter((key) => key !== "name");
  if (!sources.length) volume.emptyDir = {};
  for (const source of MODED_SOURCES) {
    if (isObject(volume[source])) fill(volume[source] as JsonObject, { defaultMode: DEFAULT_MODE });
  }
  const hostPath = at(volume, "hostPath");
  if (hostPath && hostPath.type === undefined) hostPath.type = "";
  for (const source of items(at(volume, "projected") ?? {}, "sources")) {
    const token = at(source, "serviceAccountToken");
    if (token) fill(token, { expirationSeconds: 3600 });
  }
}

/** `SetDefaults_PodSpec` and what it holds, for pods and pod templates alike. */
export function defaultPodSpec(spec: JsonObject): void {
  fill(spec, {
    restartPolicy: "Always",
    terminationGracePeriodSeconds: 30,
    dnsPolicy: "ClusterFirst",
    schedulerName: "default-scheduler",
  });
  child(spec, "securityContext");
  for (const list of CONTAINER_LISTS) for (const c of items(spec, list)) defaultContainer(c);
  for (const volume of items(spec, "volumes")) defaultVolume(volume);
}

/** A pod template (`spec.template` of the workloads): its metadata and spec. */
export function defaultPodTemplate(template: JsonObject): void {
  templateMeta(template);
  defaultPodSpec(child(template, "spec"));
}

/** `SetDefaults_Pod`: requests from limits, service links, host ports of host networking. */
function defaultPodOnly(spec: JsonObject): void {
  for (const list of ["containers", "initContainers"]) {
    for (const container of items(spec, list)) {
      const resources = child(container, "resources");
      if (!isObject(resources.limits)) continue;
      resources.requests = { ...resources.limits, ...(at(resources, "requests") ?? {}) };
    }
  }
  fill(spec, { enableServiceLinks: true });
  if (spec.hostNetwork === true) {
    for (const list of ["containers", "initContainers"]) {
      for (const container of items(spec, list)) {
        for (const port of items(container, "ports")) {
          if (!port.hostPort) port.hostPort = port.containerPort ?? 0;
        }
      }
    }
  }
}

/** The taints a pod tolerates for 300 s unless it says otherwise (DefaultTolerationSeconds). */
const TOLERATED_TAINTS = ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"];

/** What the admission plugins of a default kube-apiserver add to a new pod's spec. */
function admitPod(spec: JsonObject): void {
  // ServiceAccount: the namespace's `default`, under both spellings (v1's deprecated one).
  fill(spec, { serviceAccountName: "default" });
  spec.serviceAccount = spec.serviceAccountName;
  // Priority: no class named and no global default class, so priority 0.
  if (unset(spec.priorityClassName)) fill(spec, { priority: 0 });
  fill(spec, { preemptionPolicy: "PreemptLowerPriority" });
  const tolerations = items(spec, "tolerations");
  for (const key of TOLERATED_TAINTS) {
    const tolerated = tolerations.some((t) =>
      (t.key === key || unset(t.key)) &&
      (unset(t.effect) || t.effect === "NoExecute")
    );
    if (!tolerated) {
      tolerations.push({
        key,
        operator: "Exists",
        effect: "NoExecute",
        tolerationSeconds: 300,
      });
    }
  }
  spec.tolerations = tolerations;
}

/** `qos.GetPodQOS`: BestEffort without requests and limits, Guaranteed when they match. */
function qosClass(spec: JsonObject): string {
  const containers = ["containers", "initContainers"].flatMap((list) => items(spec, list));
  let any = false;
  let guaranteed = containers.length > 0;
  for (const container of containers) {
    const requests = at(container, "resources", "requests") ?? {};
    const limits = at(container, "resources", "limits") ?? {};
    for (const resource of ["cpu", "memory"]) {
      if (requests[resource] !== undefined || limits[resource] !== undefined) any = true;
      if (limits[resource] === undefined || requests[resource] !== limits[resource]) {
        guaranteed = false;
      }
    }
  }
  return !any ? "BestEffort" : guaranteed ? "Guaranteed" : "Burstable";
}

/** A Pod's scheme defaults: its spec's, and `SetDefaults_Pod`'s. */
export function defaultPod(pod: JsonObject): void {
  const spec = child(pod, "spec");
  defaultPodSpec(spec);
  defaultPodOnly(spec);
}

/** What a new Pod gets after its managed fields: admission's additions, a Pending status. */
export function admitNewPod(pod: JsonObject): void {
  const spec = child(pod, "spec");
  admitPod(spec);
  pod.status = { phase: "Pending", qosClass: qosClass(spec) };
}
