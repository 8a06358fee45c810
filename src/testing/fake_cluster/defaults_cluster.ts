/**
 * The defaults of the cluster's other built-ins: storage classes and CSI drivers
 * (pkg/apis/storage/v1/defaults.go), priority classes (pkg/apis/scheduling/v1), network
 * policies (pkg/apis/networking/v1), endpoint slices (pkg/apis/discovery/v1), role
 * bindings' references (pkg/apis/rbac/v1), CRDs' names and conversion
 * (apiextensions-apiserver/pkg/apis/apiextensions/v1/defaults.go), and the node status'
 * structs that always serialise.
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import { at, child, fill, items } from "./default_values.ts";

const RBAC_GROUP = "rbac.authorization.k8s.io";

export function storageClass(object: JsonObject): void {
  fill(object, { reclaimPolicy: "Delete", volumeBindingMode: "Immediate" });
}

export function csiDriver(object: JsonObject): void {
  fill(child(object, "spec"), {
    attachRequired: true,
    podInfoOnMount: false,
    storageCapacity: false,
    fsGroupPolicy: "ReadWriteOnceWithFSType",
    volumeLifecycleModes: ["Persistent"],
    requiresRepublish: false,
  });
}

export function priorityClass(object: JsonObject): void {
  fill(object, { preemptionPolicy: "PreemptLowerPriority" });
}

/** Ingress alone unless there are egress rules; ports' protocol. */
export function networkPolicy(object: JsonObject): void {
  const spec = child(object, "spec");
  if (!Array.isArray(spec.policyTypes) || !spec.policyTypes.length) {
    const egress = Array.isArray(spec.egress) && spec.egress.length > 0;
    spec.policyTypes = egress ? ["Ingress", "Egress"] : ["Ingress"];
  }
  for (const direction of ["ingress", "egress"]) {
    for (const rule of items(spec, direction)) {
      for (const port of items(rule, "ports")) fill(port, { protocol: "TCP" });
    }
  }
}

export function endpointSlice(object: JsonObject): void {
  for (const port of items(object, "ports")) {
    if (port.name === undefined) port.name = "";
    fill(port, { protocol: "TCP" });
  }
}

/** The group of a binding's role and of its users and groups (`SetDefaults_Subject`). */
export function roleBinding(object: JsonObject): void {
  fill(child(object, "roleRef"), { apiGroup: RBAC_GROUP });
  for (const subject of items(object, "subjects")) {
    if (subject.apiGroup !== undefined) continue;
    subject.apiGroup = subject.kind === "ServiceAccount" ? "" : RBAC_GROUP;
  }
}

/** A CRD's singular and list kind from its kind, and no conversion. */
export function customResourceDefinition(object: JsonObject): void {
  const spec = child(object, "spec");
  const names = child(spec, "names");
  if (typeof names.kind === "string" && names.kind) {
    fill(names, { singular: names.kind.toLowerCase(), listKind: `${names.kind}List` });
  }
  fill(child(spec, "conversion"), { strategy: "None" });
  const webhook = at(spec, "conversion", "webhook", "clientConfig", "service");
  if (webhook) fill(webhook, { port: 443 });
}

/** NodeStatus' structs: the kubelet's endpoint and the node's system info, at zero. */
export function nodeStatus(node: JsonObject): void {
  const status = child(node, "status");
  const endpoint = child(child(status, "daemonEndpoints"), "kubeletEndpoint");
  fill(endpoint, { Port: 0 });
  const info = child(status, "nodeInfo");
  for (
    const field of [
      "machineID",
      "systemUUID",
      "bootID",
      "kernelVersion",
      "osImage",
      "containerRuntimeVersion",
      "kubeletVersion",
      "kubeProxyVersion",
      "operatingSystem",
      "architecture",
    ]
  ) if (info[field] === undefined) info[field] = "";
  // SetDefaults_NodeStatus: allocatable as the capacity when not given.
  if (status.allocatable === undefined && status.capacity !== undefined) {
    status.allocatable = structuredClone(status.capacity);
  }
}
