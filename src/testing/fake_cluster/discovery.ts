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

/** The `/apis` document. */
export function groupList(catalog: Catalog): JsonObject {
  const groups = [...catalog.groups()].map(([name, versions]) => groupOf(name, versions));
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
        group: sub.group,
        version: sub.version,
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
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: apiVersionOf(group, version),
    resources,
  };
}
