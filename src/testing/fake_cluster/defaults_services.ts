/**
 * The defaults of Services: the scheme's `SetDefaults_Service` (pkg/apis/core/v1/defaults.go)
 * and what the service REST storage adds (pkg/registry/core/service/storage/alloc.go:
 * `initIPFamilyFields`, `allocClusterIPs`, `initNodePorts`; storage.go's
 * `patchAllocatedValues` keeping the allocated values across updates), on a single-stack
 * IPv4 cluster with kubeadm's service CIDR 10.96.0.0/12 and the default NodePort range.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import { typeKey } from "../../catalog/resource_types.ts";
import { at, child, fill, items, unset } from "./default_values.ts";
import { isObject } from "./patching.ts";
import type { Store } from "./store.ts";

const SERVICES = typeKey("", "services");
/** 10.96.0.0/12 as a number, and its size. */
const CIDR_BASE = (10 << 24) + (96 << 16);
const CIDR_SIZE = 1 << 20;
/**
 * The addresses below this are left to static allocation (ipallocator's
 * `calculateRangeOffset`: 256 for a range this large; 10.96.0.1 is the `kubernetes`
 * service's); dynamic allocation picks at random above.
 */
const STATIC_BAND = 256;
const NODE_PORTS = { first: 30000, last: 32767 };
const HOURS_3 = 10800;

function ipOf(n: number): string {
  return [24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join(".");
}

function randomIn(first: number, last: number): number {
  return first + Math.floor(Math.random() * (last - first + 1));
}

/** Every cluster IP and node port the stored Services hold. */
function taken(store: Store): { ips: Set<string>; ports: Set<number> } {
  const ips = new Set<string>();
  const ports = new Set<number>();
  for (const service of store.list(SERVICES)) {
    const spec = at(service, "spec") ?? {};
    for (const ip of Array.isArray(spec.clusterIPs) ? spec.clusterIPs : []) ips.add(String(ip));
    for (const port of items(spec, "ports")) {
      if (typeof port.nodePort === "number") ports.add(port.nodePort);
    }
  }
  return { ips, ports };
}

function freeIp(used: Set<string>): string {
  for (;;) {
    // Neither the network address nor the broadcast one.
    const ip = ipOf(CIDR_BASE + randomIn(STATIC_BAND, CIDR_SIZE - 2));
    if (!used.has(ip)) return ip;
  }
}

function freePort(used: Set<number>): number {
  for (;;) {
    const port = randomIn(NODE_PORTS.first, NODE_PORTS.last);
    if (!used.has(port)) return port;
  }
}

/** `SetDefaults_Service`: affinity, type, ports, traffic policies. */
function schemeDefaults(spec: JsonObject): void {
  fill(spec, { sessionAffinity: "None", type: "ClusterIP" });
  if (spec.sessionAffinity === "None") delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === "ClientIP") {
    const clientIP = child(child(spec, "sessionAffinityConfig"), "clientIP");
    fill(clientIP, { timeoutSeconds: HOURS_3 });
  }
  for (const port of items(spec, "ports")) {
    fill(port, { protocol: "TCP" });
    if (unset(port.targetPort) || port.targetPort === 0) port.targetPort = port.port ?? 0;
  }
  const external = spec.type === "NodePort" || spec.type === "LoadBalancer";
  const externalIPs = Array.isArray(spec.externalIPs) && spec.externalIPs.length > 0;
  if (external || externalIPs) fill(spec, { externalTrafficPolicy: "Cluster" });
  if (external || spec.type === "ClusterIP") fill(spec, { internalTrafficPolicy: "Cluster" });
  if (spec.type === "LoadBalancer") fill(spec, { allocateLoadBalancerNodePorts: true });
}

/** An update keeps the allocated IPs and node ports the client left out. */
function keepAllocated(spec: JsonObject, old: JsonObject): void {
  const before = at(old, "spec") ?? {};
  if (spec.type === "ExternalName") return;
  if (unset(spec.clusterIP) && !unset(before.clusterIP)) {
    spec.clusterIP = before.clusterIP;
    if (unset(spec.clusterIPs as JsonValue)) spec.clusterIPs = before.clusterIPs ?? null;
  }
  const oldPorts = items(before, "ports");
  for (const port of items(spec, "ports")) {
    if (port.nodePort !== undefined) continue;
    const same = oldPorts.find((p) => p.port === port.port && p.protocol === port.protocol);
    if (same?.nodePort !== undefined) port.nodePort = same.nodePort;
  }
}

/** `initIPFamilyFields` and `allocClusterIPs` of a single-stack IPv4 cluster. */
function ipFields(spec: JsonObject, store: Store): void {
  if (spec.type === "ExternalName") return;
  const ips = Array.isArray(spec.clusterIPs) ? spec.clusterIPs.map(String) : [];
  if (!unset(spec.clusterIP) && !ips.length) ips.push(String(spec.clusterIP));
  const headless = ips[0] === "None";
  const selectorless = !isObject(spec.selector) || !Object.keys(spec.selector).length;
  fill(spec, { ipFamilyPolicy: headless && selectorless ? "RequireDualStack" : "SingleStack" });
  const families = Array.isArray(spec.ipFamilies) ? [...spec.ipFamilies] : [];
  for (const [i, ip] of ips.entries()) {
    if (ip !== "None" && i >= families.length) families.push(ip.includes(":") ? "IPv6" : "IPv4");
  }
  if (!families.length) families.push("IPv4");
  if (headless && selectorless && families.length < 2 && spec.ipFamilyPolicy !== "SingleStack") {
    families.push(families[0] === "IPv4" ? "IPv6" : "IPv4");
  }
  spec.ipFamilies = families;
  if (!headless && !ips.length) ips.push(freeIp(taken(store).ips));
  spec.clusterIPs = ips;
  spec.clusterIP = ips[0];
}

/** `initNodePorts`: NodePort and LoadBalancer Services get a node port for each port. */
function nodePorts(spec: JsonObject, store: Store): void {
  if (spec.type !== "NodePort" && spec.type !== "LoadBalancer") return;
  if (spec.type === "LoadBalancer" && spec.allocateLoadBalancerNodePorts === false) return;
  const used = taken(store).ports;
  const byPort = new Map<JsonValue | undefined, number>();
  for (const port of items(spec, "ports")) {
    if (typeof port.nodePort === "number" && port.nodePort) {
      byPort.set(port.port, port.nodePort);
      continue;
    }
    const chosen = byPort.get(port.port) ?? freePort(used);
    used.add(chosen);
    byPort.set(port.port, chosen);
    port.nodePort = chosen;
  }
}

/** A Service's scheme defaults (`SetDefaults_Service`). */
export function defaultService(service: JsonObject): void {
  schemeDefaults(child(service, "spec"));
}

/**
 * A Service's allocations, after its managed fields (the registry's, owned by no manager):
 * the IP family fields, the cluster IPs and node ports; on update (`old`), the ones kept.
 */
export function allocateService(service: JsonObject, store: Store, old?: JsonObject): void {
  const spec = child(service, "spec");
  if (old) keepAllocated(spec, old);
  ipFields(spec, store);
  nodePorts(spec, store);
  // ServiceStatus and its LoadBalancerStatus are structs: `status: {loadBalancer: {}}`.
  child(child(service, "status"), "loadBalancer");
}
