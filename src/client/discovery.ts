/**
 * Discovery: which resources the cluster serves -- all of them (from the two aggregated
 * documents where the server has them, else group-version by group-version), or those of
 * some groups only (each group's document, then the versions wanted). The answer is cached --
 * events never trigger a re-discovery -- and refreshed explicitly when CRDs come and go.
 *
 * @module
 */
import { getLogger } from "../platform/log_routing.ts";
import { Resource } from "../structs/resources.ts";
import type { ApiClient } from "./api.ts";
import { APIError, APINotFoundError, APITooManyRequestsError } from "./api_errors.ts";
import { APIConnectionError } from "./connection_errors.ts";
import {
  AGGREGATED_ACCEPT,
  aggregatedVersions,
  type APIGroup,
  type APIGroupDiscoveryList,
  type APIGroupList,
  type APIResourceList,
  type APIVersions,
  isAggregated,
} from "./discovery_documents.ts";

/** The API server's `/version`. */
export interface ServerVersion {
  /** The major version, e.g. `1`. */
  major: string;
  /** The minor version, e.g. `32`. */
  minor: string;
  /** The full version, e.g. `v1.32.2`. */
  gitVersion: string;
  /** Other fields, as sent. */
  [key: string]: unknown;
}

/**
 * A group whose resources a discovery covers: in one version, or, with `version` undefined,
 * in the version the group prefers.
 */
export interface DiscoveredGroup {
  /** The API group, `""` for the core group. */
  readonly group: string;
  /** The version; the group's preferred one if undefined. */
  readonly version?: string;
}

/** One group-version's document to fetch. */
interface Job {
  readonly group: string;
  readonly version: string;
  readonly preferred: boolean;
  readonly path: string;
  /** Its document, when the aggregated one held it: nothing to fetch. */
  readonly list?: APIResourceList;
  /** The aggregated document holds it stale: skipped as one that cannot be fetched. */
  readonly stale?: boolean;
}

const logger = getLogger(["kopf", "client", "discovery"]);

/** How many group-versions are fetched at once. */
const CONCURRENCY = 8;

/** Group-version documents get one quick retry: aggregated APIs are often down. */
const GROUP_VERSION_BACKOFFS: readonly number[] = [0.5];

/** Turn a group-version's resource list into resource records. */
export function resourcesFromList(
  group: string,
  version: string,
  list: APIResourceList,
  preferred: boolean,
): Resource[] {
  const entries = list.resources ?? [];
  const subresources = new Map<string, string[]>();
  for (const entry of entries) {
    const [main, sub] = entry.name.split("/", 2);
    if (sub !== undefined) subresources.set(main, [...(subresources.get(main) ?? []), sub]);
  }
  return entries.filter((entry) => !entry.name.includes("/")).map((entry) =>
    new Resource({
      group,
      version,
      plural: entry.name,
      kind: entry.kind,
      singular: entry.singularName || (entry.kind ?? "").toLowerCase(),
      shortcuts: entry.shortNames,
      categories: entry.categories,
      subresources: subresources.get(entry.name),
      namespaced: entry.namespaced ?? false,
      preferred,
      verbs: entry.verbs,
    })
  );
}

/** A group version that aggregated discovery holds stale: as one that cannot be fetched. */
class StaleDiscoveryError extends Error {
  constructor(path: string) {
    super(`aggregated discovery holds ${path} stale (its API server may be down)`);
  }
}

function job(group: string, version: string, preferred: boolean): Job {
  const path = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
  return { group, version, preferred, path };
}

/** The group versions of `/api` (`core`) or `/apis`: held in it when aggregated, else to fetch. */
function jobsOf(
  document: APIVersions | APIGroupList | APIGroupDiscoveryList,
  core: boolean,
): Job[] {
  if (isAggregated(document)) {
    return aggregatedVersions(document).map((v) => ({
      ...job(v.group, v.version, v.preferred),
      list: v.list,
      stale: v.stale,
    }));
  }
  if (core) {
    return ((document as APIVersions).versions ?? []).map((v) => job("", v, v === "v1"));
  }
  return ((document as APIGroupList).groups ?? []).flatMap((group) => {
    const preferred = group.preferredVersion?.version ?? group.versions?.[0]?.version;
    return (group.versions ?? []).map((v) => job(group.name, v.version, v.version === preferred));
  });
}

/** What the cluster serves, discovered once and kept until {@link Discovery.refresh}. */
export class Discovery {
  readonly #api: ApiClient;
  #resources: Promise<Resource[]> | undefined;
  #version: Promise<ServerVersion> | undefined;
  /** The group-versions the last discovery skipped. */
  #skipped: readonly string[] = [];
  /** The resources of single group-versions, as {@link resourceOf} asked for them. */
  readonly #groupVersions = new Map<string, Promise<Resource[]>>();
  /** The resources of some groups only, as {@link resourcesIn} asked for them, by the groups. */
  readonly #narrowed = new Map<string, Promise<Resource[]>>();
  /**
   * The documents fetched, by path: the discoveries of some groups (the peering's, the
   * handlers') share a group's document and its versions' instead of asking again.
   */
  readonly #documents = new Map<string, Promise<unknown>>();

  /** Discover through the given client. */
  constructor(api: ApiClient) {
    this.#api = api;
  }

  /** The API server's version (cached). */
  version(signal?: AbortSignal): Promise<ServerVersion> {
    this.#version ??= this.#api.request<ServerVersion>("GET", "/version", { signal });
    this.#version.catch(() => (this.#version = undefined));
    return this.#version;
  }

  /**
   * Every resource served by every group-version (cached). Group-versions that cannot be
   * fetched (an aggregated API that is down) are skipped with a warning.
   */
  resources(signal?: AbortSignal): Promise<Resource[]> {
    if (!this.#resources) {
      const pending = this.#discover(signal);
      this.#resources = pending;
      pending.catch(() => {
        if (this.#resources === pending) this.#resources = undefined;
      });
    }
    return this.#resources;
  }

  /**
   * The resource that serves `kind` in `apiVersion` (`v1`, `apps/v1`, `kopf.dev/v1`), or
   * `undefined` if that group-version does not serve it (or is not served at all). Asks
   * only for that group-version's document, once (cached beside {@link resources}), and
   * again when the kind is not in the cached one: a CRD may have come since.
   */
  async resourceOf(
    apiVersion: string,
    kind: string,
    signal?: AbortSignal,
  ): Promise<Resource | undefined> {
    const slash = apiVersion.indexOf("/");
    const group = slash < 0 ? "" : apiVersion.slice(0, slash);
    const version = apiVersion.slice(slash + 1);
    const find = (resources: readonly Resource[]) =>
      resources.find((r) => r.group === group && r.version === version && r.kind === kind);
    const cached = this.#groupVersions.get(apiVersion);
    if (cached !== undefined) {
      const found = find(await cached);
      if (found !== undefined) return found;
    }
    const pending = this.#groupVersion(group, version, signal);
    this.#groupVersions.set(apiVersion, pending);
    pending.catch(() => {
      if (this.#groupVersions.get(apiVersion) === pending) this.#groupVersions.delete(apiVersion);
    });
    return find(await pending);
  }

  async #groupVersion(group: string, version: string, signal?: AbortSignal): Promise<Resource[]> {
    const path = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
    try {
      const list = await this.#api.request<APIResourceList>("GET", path, { signal });
      // Which version the group prefers is not in this document; it does not matter here.
      return resourcesFromList(group, version, list, true);
    } catch (e) {
      if (e instanceof APINotFoundError) return []; // the group-version is not served
      throw e;
    }
  }

  /** Forget what was discovered; the next call discovers again (after CRD changes). */
  refresh(): void {
    this.#resources = undefined;
    this.#version = undefined;
    this.#groupVersions.clear();
    this.#narrowed.clear();
    this.#documents.clear();
  }

  /** A document by its path, fetched once until {@link refresh} (not kept if it fails). */
  #document<T>(path: string, fetch: () => Promise<T>): Promise<T> {
    let pending = this.#documents.get(path) as Promise<T> | undefined;
    if (pending === undefined) {
      const started = pending = fetch();
      this.#documents.set(path, started);
      started.catch(() => {
        if (this.#documents.get(path) === started) this.#documents.delete(path);
      });
    }
    return pending;
  }

  /**
   * `/api` and `/apis`, both at once, asking for the aggregated form: where the server
   * serves it, these two requests hold every resource; where it does not, they list the
   * group versions, whose documents are fetched then.
   */
  async #discover(signal?: AbortSignal): Promise<Resource[]> {
    const [core, groups] = await Promise.all([
      this.#api.request<APIVersions | APIGroupDiscoveryList>("GET", "/api", {
        signal,
        accept: AGGREGATED_ACCEPT,
      }),
      this.#api.request<APIGroupList | APIGroupDiscoveryList>("GET", "/apis", {
        signal,
        accept: AGGREGATED_ACCEPT,
      }),
    ]);
    const jobs = [...jobsOf(core, true), ...jobsOf(groups, false)];
    return await this.#fetch(jobs, signal);
  }

  /**
   * The resources of only these groups (cached until {@link refresh}, as {@link resources}):
   * a group's document (`/apis/<group>`, for its versions and the preferred one), then the
   * documents of the versions wanted -- for a group and a version named, two requests instead
   * of one per group-version served. The core group has one version, `v1`, asked directly.
   * A group not served yields nothing; group-versions that cannot be fetched are skipped
   * as by {@link resources}.
   */
  resourcesIn(groups: readonly DiscoveredGroup[], signal?: AbortSignal): Promise<Resource[]> {
    const key = JSON.stringify(groups.map((g) => [g.group, g.version ?? ""]).sort());
    let pending = this.#narrowed.get(key);
    if (pending === undefined) {
      const started = pending = this.#discoverIn(groups, signal);
      this.#narrowed.set(key, started);
      started.catch(() => {
        if (this.#narrowed.get(key) === started) this.#narrowed.delete(key);
      });
    }
    return pending;
  }

  async #discoverIn(groups: readonly DiscoveredGroup[], signal?: AbortSignal): Promise<Resource[]> {
    const wanted = new Map<string, { versions: Set<string>; preferred: boolean }>();
    for (const { group, version } of groups) {
      const entry = wanted.get(group) ?? { versions: new Set<string>(), preferred: false };
      wanted.set(group, entry);
      if (version === undefined) entry.preferred = true;
      else entry.versions.add(version);
    }
    const jobs = await Promise.all(
      [...wanted].map(async ([group, { versions, preferred }]) => {
        // The core group has only ever served v1: its `/api` is asked for another only.
        const coreV1 = group === "" && [...versions].every((v) => v === "v1");
        const served = coreV1
          ? { versions: ["v1"], preferred: "v1" }
          : await this.#servedVersions(group, signal);
        return served === undefined ? [] : served.versions
          .filter((v) => versions.has(v) || (preferred && v === served.preferred))
          .map((v) => job(group, v, v === served.preferred));
      }),
    );
    return await this.#fetch(jobs.flat(), signal);
  }

  /** The versions a group serves and the one it prefers; undefined if it is not served. */
  #servedVersions(
    group: string,
    signal?: AbortSignal,
  ): Promise<{ versions: string[]; preferred: string | undefined } | undefined> {
    return this.#document(group === "" ? "/api" : `/apis/${group}`, async () => {
      try {
        if (group === "") {
          const found = await this.#api.request<APIVersions>("GET", "/api", { signal });
          return { versions: found.versions ?? [], preferred: "v1" };
        }
        const found = await this.#api.request<APIGroup>("GET", `/apis/${group}`, { signal });
        const versions = (found.versions ?? []).map((v) => v.version);
        return { versions, preferred: found.preferredVersion?.version ?? versions[0] };
      } catch (e) {
        if (e instanceof APINotFoundError) return undefined; // the group is not served
        throw e;
      }
    });
  }

  /**
   * Fetch the group-versions' documents, some at once, into resource records. Those that
   * cannot be fetched are skipped with a warning, once while it lasts (see `skipped`).
   */
  async #fetch(jobs: readonly Job[], signal?: AbortSignal): Promise<Resource[]> {
    const results: Resource[][] = new Array(jobs.length);
    let next = 0;
    const worker = async () => {
      while (next < jobs.length) {
        const index = next++;
        const job = jobs[index];
        try {
          if (job.stale) throw new StaleDiscoveryError(job.path);
          const list = job.list ?? await this.#document(
            job.path,
            () => this.#groupVersionList(job.path, signal),
          );
          results[index] = resourcesFromList(job.group, job.version, list, job.preferred);
        } catch (e) {
          const skippable = e instanceof APIError || e instanceof APIConnectionError ||
            e instanceof StaleDiscoveryError;
          if (!skippable) throw e;
          skipped.push(job.path);
          // Told once while it lasts: a group-version down for hours is discovered again
          // and again (see `skipped`).
          if (!this.#skipped.includes(job.path)) {
            logger.warn("Skipping {path} in discovery: {error}", {
              path: job.path,
              error: e.message,
            });
          }
          results[index] = [];
        }
      }
    };
    const skipped: string[] = [];
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, jobs.length) }, worker));
    for (const path of this.#skipped) {
      if (!skipped.includes(path) && jobs.some((job) => job.path === path)) {
        logger.info("{path} is discovered again.", { path });
      }
    }
    this.#skipped = skipped;
    return results.flat();
  }

  /**
   * A group-version's document: one quick retry, as aggregated APIs are often down -- but a
   * 429 says "later", not "down" (the server's flow control, API Priority and Fairness): then
   * it goes on along the client's own backoffs, honouring `Retry-After`, rather than being
   * skipped with its resources missing until a later discovery.
   */
  async #groupVersionList(path: string, signal?: AbortSignal): Promise<APIResourceList> {
    try {
      return await this.#api.request<APIResourceList>("GET", path, {
        signal,
        errorBackoffs: GROUP_VERSION_BACKOFFS,
      });
    } catch (e) {
      if (!(e instanceof APITooManyRequestsError)) throw e;
      return await this.#api.request<APIResourceList>("GET", path, { signal });
    }
  }

  /**
   * The group-versions that the last discovery of {@link resources} could not fetch (an
   * aggregated API that is down, a 429 or 5xx that outlasted the retry): their resources
   * are missing until a later discovery fetches them.
   */
  get skipped(): readonly string[] {
    return this.#skipped;
  }
}
