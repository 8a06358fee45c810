/**
 * The documents discovery reads, as the API server sends them: those of old (`/api`,
 * `/apis`, a group's, a group version's resource list) and the aggregated one
 * (`apidiscovery.k8s.io/v2`, served since Kubernetes 1.26 and GA in 1.30), which holds every
 * group's versions and resources in one answer of `/apis` (and the core group's of `/api`).
 *
 * @module
 */

/** One entry of a group version's resource list: a resource, or `resource/subresource`. */
export interface APIResourceEntry {
  name: string;
  singularName?: string;
  namespaced?: boolean;
  kind?: string;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
}

/** A group version's resource list (`/api/v1`, `/apis/<group>/<version>`). */
export interface APIResourceList {
  groupVersion?: string;
  resources?: APIResourceEntry[];
}

/** A group's versions and the one it prefers (`/apis/<group>`, an item of `/apis`). */
export interface APIGroup {
  name: string;
  versions?: { groupVersion: string; version: string }[];
  preferredVersion?: { groupVersion: string; version: string };
}

/** `/apis` of old. */
export interface APIGroupList {
  kind?: string;
  groups?: APIGroup[];
}

/** `/api` of old: the core group's versions. */
export interface APIVersions {
  kind?: string;
  versions?: string[];
}

/** One resource of aggregated discovery, its subresources within it. */
interface APIResourceDiscovery {
  resource: string;
  responseKind?: { kind?: string };
  scope?: string;
  singularResource?: string;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: { subresource: string; verbs?: string[] }[];
}

/** `/api` or `/apis` aggregated: every group, its versions in order of preference. */
export interface APIGroupDiscoveryList {
  kind: "APIGroupDiscoveryList";
  items?: {
    metadata?: { name?: string };
    versions?: { version: string; resources?: APIResourceDiscovery[]; freshness?: string }[];
  }[];
}

/**
 * What `/api` and `/apis` are asked for, as client-go asks: the aggregated document (v2, or
 * v2beta1 of the servers of 1.26 to 1.29, the same fields), else those of old.
 */
export const AGGREGATED_ACCEPT = [
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
  "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
  "application/json",
].join(",");

/** Whether the server answered with the aggregated document. */
export function isAggregated(document: { kind?: string }): document is APIGroupDiscoveryList {
  return document.kind === "APIGroupDiscoveryList";
}

/** A group version of an aggregated document, as the resource list of old would list it. */
export interface AggregatedVersion {
  readonly group: string;
  readonly version: string;
  /** The first version of its group that is not stale, as client-go takes it. */
  readonly preferred: boolean;
  /**
   * The aggregator could not refresh it (an aggregated API server that is down): its
   * resources may be out of date, and client-go reports it as failed rather than use them.
   */
  readonly stale: boolean;
  readonly list: APIResourceList;
}

/** The group versions of an aggregated document, in its order. */
export function aggregatedVersions(document: APIGroupDiscoveryList): AggregatedVersion[] {
  const out: AggregatedVersion[] = [];
  for (const item of document.items ?? []) {
    const group = item.metadata?.name ?? "";
    let preferredTaken = false;
    for (const v of item.versions ?? []) {
      const stale = v.freshness === "Stale";
      const preferred: boolean = !stale && !preferredTaken;
      preferredTaken ||= preferred;
      out.push({ group, version: v.version, preferred, stale, list: listOf(v.resources ?? []) });
    }
  }
  return out;
}

/** Aggregated resources as a resource list of old: the subresources as `resource/sub`. */
function listOf(resources: readonly APIResourceDiscovery[]): APIResourceList {
  const entries: APIResourceEntry[] = [];
  for (const r of resources) {
    const namespaced = r.scope === "Namespaced";
    entries.push({
      name: r.resource,
      singularName: r.singularResource,
      namespaced,
      kind: r.responseKind?.kind,
      verbs: r.verbs,
      shortNames: r.shortNames,
      categories: r.categories,
    });
    for (const sub of r.subresources ?? []) {
      entries.push({ name: `${r.resource}/${sub.subresource}`, namespaced, verbs: sub.verbs });
    }
  }
  return { resources: entries };
}
