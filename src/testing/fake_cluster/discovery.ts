/**
 * Discovery documents: `/version`, `/api`, `/apis`, and the resource lists of each
 * group version, built from the catalog (so CRDs show up as soon as they exist).
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import { apiVersionOf } from "../../catalog/resource_types.ts";
import type { Catalog } from "./catalog.ts";

/** The Kubernetes version the fake cluster claims to be. */
export const KUBERNETES_VERSION = { major: "1", minor: "32", gitVersion: "v1.32.0" };

/** The `/version` document. */
export function versionInfo(): JsonObject {
  return {
    major: KUBERNETES_VERSION.major,
    minor: KUBERNETES_VERSION.minor,
    gitVersion: `${KUBERNETES_VERSION.gitVersion}+kopf-fake-cluster`,
    gitCommit: "0000000000000000000000000000000000000000",
    gitTreeState: "clean",
    buildDate: "2025-01-01T00:00:00Z",
    goVersion: "go1.23",
    compiler: "gc",
    platform: "linux/amd64",
  };
}

/** The `/api` document (the core group's versions). */
export function coreVersions(serverAddress: string): JsonObject {
  return {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }],
  };
}

function groupOf(name: string, versions: string[]): JsonObject {
  const list = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: list, preferredVersion: list[0] };
}

/**
 * The `groupPriorityMinimum` of the built-in groups' APIServices, which orders `/apis`
 * (DefaultGenericAPIServicePriorities in pkg/controlplane/apiserver/aggregator.go and the
 * kube-apiserver's own in pkg/controlplane/apiserver/options); the aggregator's own group
 * comes first, and a CRD's group has 1000 (the crdregistration controller's).
 */
export const GROUP_PRIORITIES: Readonly<Record<string, number>> = {
  "apiregistration.k8s.io": 18100,
  "": 18000,
  "apps": 17800,
  "events.k8s.io": 17750,
  "authentication.k8s.io": 17700,
  "authorization.k8s.io": 17600,
  "autoscaling": 17500,
  "batch": 17400,
  "certificates.k8s.io": 17300,
  "networking.k8s.io": 17200,
  "policy": 17100,
  "rbac.authorization.k8s.io": 17000,
  "storage.k8s.io": 16800,
  "admissionregistration.k8s.io": 16700,
  "apiextensions.k8s.io": 16700,
  "scheduling.k8s.io": 16600,
  "coordination.k8s.io": 16500,
  "node.k8s.io": 16300,
  "discovery.k8s.io": 16200,
  "flowcontrol.apiserver.k8s.io": 16100,
};
const CRD_GROUP_PRIORITY = 1000;

/** Groups in the aggregator's order: by priority, highest first, then by name. */
function byPriority([a]: [string, string[]], [b]: [string, string[]]): number {
  const rank = (group: string) => GROUP_PRIORITIES[group] ?? CRD_GROUP_PRIORITY;
  return rank(b) - rank(a) || (a < b ? -1 : a > b ? 1 : 0);
}

/** The `/apis` document. */
export function groupList(catalog: Catalog): JsonObject {
  const groups = [...catalog.groups()].sort(byPriority).map(([name, versions]) =>
    groupOf(name, versions)
  );
  return { kind: "APIGroupList", apiVersion: "v1", groups };
}

/** The `/apis/<group>` document, or undefined when the group is not served. */
export function group(catalog: Catalog, name: string): JsonObject | undefined {
  const versions = catalog.groups().get(name);
  return versions ? { kind: "APIGroup", apiVersion: "v1", ...groupOf(name, versions) } : undefined;
}

/** The resource list of one group version, or undefined when it is not served. */
export function resourceList(
  catalog: Catalog,
  group: string,
  version: string,
): JsonObject | undefined {
  const resources: JsonObject[] = [];
  for (const type of catalog.all()) {
    if (type.group !== group) continue;
    const served = type.versions.find((v) => v.name === version);
    if (!served) continue;
    const resource: JsonObject = {
      name: type.plural,
      singularName: type.singular,
      namespaced: type.namespaced,
      kind: type.kind,
      verbs: [...type.verbs],
    };
    if (type.shortNames.length) resource.shortNames = [...type.shortNames];
    if (type.categories.length) resource.categories = [...type.categories];
    resources.push(resource);
    if (served.scale) {
      resources.push({
        name: `${type.plural}/scale`,
        singularName: "",
        namespaced: type.namespaced,
        group: "autoscaling",
        version: "v1",
        kind: "Scale",
        verbs: ["get", "patch", "update"],
      });
    }
    for (const sub of type.extraSubresources ?? []) {
      resources.push({
        name: `${type.plural}/${sub.name}`,
        singularName: "",
        namespaced: type.namespaced,
        ...(sub.group !== undefined ? { group: sub.group } : {}),
        ...(sub.version !== undefined ? { version: sub.version } : {}),
        kind: sub.kind,
        verbs: [...sub.verbs],
      });
    }
    if (served.status) {
      resources.push({
        name: `${type.plural}/status`,
        singularName: "",
        namespaced: type.namespaced,
        kind: type.kind,
        verbs: ["get", "patch", "update"],
      });
    }
  }
  if (!resources.length && !(group === "" && version === "v1")) return undefined;
  // As the API installer registers them: sorted by path (apiserver/pkg/endpoints/installer.go).
  resources.sort((a, b) => {
    const [x, y] = [String(a.name), String(b.name)];
    return x < y ? -1 : x > y ? 1 : 0;
  });
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: apiVersionOf(group, version),
    resources,
  };
}

/**
 * The media type of aggregated discovery in a version, as asked for in `Accept` and answered
 * as `Content-Type` (`apidiscovery.k8s.io/v2`, GA in 1.30; `v2beta1`, its beta).
 */
export function aggregatedDiscoveryType(version: "v2" | "v2beta1"): string {
  return `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}

/**
 * A group version's resources as aggregated discovery lists them: each subresource within
 * its resource (apiserver's `ConvertGroupVersionIntoToDiscovery` in endpoints/installer.go,
 * from the same list as the group version's own document). A built-in's `responseKind`
 * names its group and version only where they differ (a scale's `autoscaling/v1`); a CRD's
 * names them always, its status before its scale (apiextensions-apiserver's
 * `DiscoveryController.sync`).
 */
function aggregatedResources(catalog: Catalog, group: string, version: string): JsonObject[] {
  const entries = (resourceList(catalog, group, version)?.resources ?? []) as JsonObject[];
  const resources = new Map<string, JsonObject>();
  const kindOf = (entry: JsonObject, crd: boolean) => ({
    group: String(entry.group ?? (crd ? group : "")),
    version: String(entry.version ?? (crd ? version : "")),
    kind: String(entry.kind ?? ""),
  });
  const crd = (plural: string) => catalog.get(group, plural)?.crd !== undefined;
  for (const entry of entries) {
    const name = String(entry.name);
    if (name.includes("/")) continue;
    resources.set(name, {
      resource: name,
      responseKind: kindOf(entry, crd(name)),
      scope: entry.namespaced ? "Namespaced" : "Cluster",
      singularResource: entry.singularName,
      verbs: entry.verbs,
      ...(entry.shortNames ? { shortNames: entry.shortNames } : {}),
      ...(entry.categories ? { categories: entry.categories } : {}),
    });
  }
  for (const entry of entries) {
    const [name, subresource] = String(entry.name).split("/", 2);
    const parent = resources.get(name);
    if (subresource === undefined || parent === undefined) continue;
    const subresources = (parent.subresources ??= []) as JsonObject[];
    const item = { subresource, responseKind: kindOf(entry, crd(name)), verbs: entry.verbs };
    if (crd(name) && subresource === "status") subresources.unshift(item);
    else subresources.push(item);
  }
  return [...resources.values()];
}

/**
 * `/api` (the core group alone, `legacy`) or `/apis` as one aggregated document: every
 * group, in `/apis`'s order, with every version's resources, the preferred version first
 * (apiserver's `resourceDiscoveryManager` in endpoints/discovery/aggregated/handler.go;
 * `/api`'s from genericapiserver's `AggregatedLegacyDiscoveryGroupManager`), in `served`,
 * the version of `apidiscovery.k8s.io` asked for. Every version is `Current`: the fake
 * cluster has no aggregated API servers that could be down.
 */
export function aggregatedDiscovery(
  catalog: Catalog,
  legacy: boolean,
  served: "v2" | "v2beta1" = "v2",
): JsonObject {
  const groups: [string, string[]][] = legacy
    ? [["", ["v1"]]]
    : [...catalog.groups()].sort(byPriority);
  const items = groups.map(([name, versions]) => ({
    metadata: { creationTimestamp: null, ...(name ? { name } : {}) },
    versions: versions.map((version) => ({
      version,
      resources: aggregatedResources(catalog, name, version),
      freshness: "Current",
    })),
  }));
  // v2beta1 has the same fields as v2: only the apiVersion differs.
  const apiVersion = `apidiscovery.k8s.io/${served}`;
  return { kind: "APIGroupDiscoveryList", apiVersion, metadata: {}, items };
}
