/**
 * What the observation needs from the API -- discovery and continuous watching -- and the
 * resources it watches besides the served ones: namespaces (to know which exist) and
 * CustomResourceDefinitions (to notice resources appearing and disappearing).
 *
 * @module
 */

import { Resource } from "../../structs/resources.ts";
import type { ApiClient } from "../../client/api.ts";
import { currentVersion } from "../../client/current_versions.ts";
import { type DiscoveredGroup, Discovery } from "../../client/discovery.ts";
import {
  type ObjectVersion,
  type WatchItem,
  watchObjects,
  type WatchRecoveryOptions,
} from "../../client/watch.ts";
import { readSameObjectOrFail } from "../../client/same_objects.ts";
import type { BodySource } from "../../structs/bodies.ts";

/** Core v1 namespaces, watched to know which namespaces exist. */
export const NAMESPACES: Resource = new Resource({
  group: "",
  version: "v1",
  plural: "namespaces",
  kind: "Namespace",
  singular: "namespace",
  namespaced: false,
  verbs: ["get", "list", "watch"],
});

/** CustomResourceDefinitions, watched to notice resources appearing and disappearing. */
export const CUSTOM_RESOURCE_DEFINITIONS: Resource = new Resource({
  group: "apiextensions.k8s.io",
  version: "v1",
  plural: "customresourcedefinitions",
  kind: "CustomResourceDefinition",
  singular: "customresourcedefinition",
  namespaced: false,
  verbs: ["get", "list", "watch"],
});

/** What observation needs from the API: discovery and continuous watching. */
export interface ObservationClient {
  /**
   * The resources the cluster serves. `fresh` asks to bypass any cache (it is set when
   * CRDs have changed since the last call).
   */
  discover(options: { fresh: boolean; signal: AbortSignal }): Promise<readonly Resource[]>;
  /**
   * Whether the last discovery skipped group-versions it could not fetch (their resources
   * are missing until a later one fetches them); never, if not given.
   */
  incomplete?(): boolean;
  /**
   * Whether a discovery would show the resource if the cluster served it: its group is asked,
   * in this version (or, asked without one, as its preferred version). Every resource, if not
   * given.
   */
  covers?(resource: Resource): boolean;
  /**
   * Watch a resource (in one namespace, or cluster-wide when `undefined`) until the signal
   * aborts: a `LISTED` item first and after every re-listing, live events in between.
   * See {@link WatchOptions} for the listings in parts, selectors and recovery.
   */
  watch(
    resource: Resource,
    namespace: string | undefined,
    signal: AbortSignal,
    options?: WatchOptions,
  ): AsyncIterable<WatchItem>;
  /**
   * Where the whole objects of a resource's metadata-only watch are read (`fetchBody`).
   */
  wholeSource(resource: Resource): BodySource;
  /**
   * The current `resourceVersion` of a resource's objects (in one namespace, or
   * cluster-wide when `undefined`) with these selectors: a watch from it misses nothing
   * made afterwards.
   */
  currentVersion(
    resource: Resource,
    namespace: string | undefined,
    options: Pick<WatchOptions, "labelSelector" | "fieldSelector" | "metadataOnly"> & {
      signal: AbortSignal;
    },
  ): Promise<string>;
}

/**
 * The observation client backed by the framework's API client and discovery; `groups` says
 * which groups to discover (asked at each discovery; all of them if it gives `undefined`).
 */
export function observationClient(
  api: ApiClient,
  discovery?: Discovery,
  groups?: () => readonly DiscoveredGroup[] | undefined,
): ObservationClient {
  const cache = discovery ?? new Discovery(api);
  return {
    discover: ({ fresh, signal }) => {
      if (fresh) cache.refresh();
      const wanted = groups?.();
      return wanted === undefined ? cache.resources(signal) : cache.resourcesIn(wanted, signal);
    },
    incomplete: () => cache.skipped.length > 0,
    covers: (resource) => {
      const wanted = groups?.();
      return wanted === undefined || wanted.some((asked) =>
        asked.group === resource.group &&
        (asked.version === undefined ? resource.preferred : asked.version === resource.version)
      );
    },
    watch: (resource, namespace, signal, options = {}) => {
      const items = watchObjects(api, resource, {
        ...options.recovery,
        namespace,
        signal,
        listParts: options.parts,
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        metadataOnly: options.metadataOnly,
        knows: options.knows,
        resourceVersion: options.since,
        persistent: true,
      });
      return items;
    },
    // Read by handlers, not by the watch: the watch's stop must not cut their reads short.
    // A namesake made since is not the handler's object: the read fails as for a deleted one.
    wholeSource: (resource) => ({ read: (body) => readSameObjectOrFail(api, resource, body) }),
    currentVersion: (resource, namespace, options) =>
      currentVersion(api, resource, { ...options, namespace }),
  };
}

/** How {@link ObservationClient.watch} watches. */
export interface WatchOptions {
  /**
   * A listing may come in `LISTING` parts before its `LISTED` item, as it arrives (the
   * objects' watches ask for that; namespaces and CRDs take whole listings).
   */
  readonly parts?: boolean;
  /**
   * The watch recovers from failures itself -- reports them, pauses, lists again -- as this
   * says; it ends early only with a failure for which `onFailure` returned true, thrown.
   */
  readonly recovery?: WatchRecoveryOptions;
  /** The label selector of the listings and the watch, if any. */
  readonly labelSelector?: string;
  /** The field selector of the listings and the watch, if any. */
  readonly fieldSelector?: string;
  /**
   * Watch and list the objects' metadata only; they come in the resource's `apiVersion`
   * and `kind`, with `metadata` only, and can read their whole object on demand.
   */
  readonly metadataOnly?: boolean;
  /**
   * Begin with a watch from this `resourceVersion`, not with a listing (see
   * {@link ObservationClient.currentVersion}); it lists once the version is gone (410).
   */
  readonly since?: string;
  /**
   * The live states taken from their text, with no item: called with a `MODIFIED` event's
   * object's identity and version, read from its text before it is parsed, and the text;
   * the event is not parsed if it says so (see `WatchObjectsOptions.knows`).
   */
  readonly knows?: (object: ObjectVersion, text: string) => boolean;
}

/** One watch: a resource in a namespace, or cluster-wide (`namespace` undefined). */
export interface WatchedDimension {
  /** The watched resource. */
  readonly resource: Resource;
  /** The namespace, or `undefined` for a cluster-wide watch. */
  readonly namespace: string | undefined;
}
