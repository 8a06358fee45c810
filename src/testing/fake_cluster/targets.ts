/**
 * What the verbs on objects take: the target of a request, and the options of lists,
 * writes and deletions as a request gives them.
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import type { ResourceType, ServedVersion } from "../../catalog/resource_types.ts";
import type { Selector } from "./selectors.ts";
import type { DuplicateField } from "./strict_json.ts";

/** What a request addresses: a type in one version, maybe a namespace, name, subresource. */
export interface Target {
  type: ResourceType;
  version: ServedVersion;
  namespace?: string;
  name?: string;
  subresource?: string;
}

/** The patch formats accepted. */
export type PatchType = "merge" | "json" | "strategic";

/** Options of deletions, as in the `DeleteOptions` body or query. */
export interface DeletionOptions {
  propagationPolicy?: "Foreground" | "Background" | "Orphan";
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

/** How unknown fields are treated (the `fieldValidation` query parameter). */
export type FieldValidation = "Strict" | "Warn" | "Ignore";

/** Options of writes. */
export interface WriteOptions {
  /** Check and answer, but store nothing (`dryRun=All`). */
  dryRun?: boolean;
  /** Unknown and repeated fields: fail (Strict), warn (Warn) or drop silently (Ignore). */
  fieldValidation?: FieldValidation;
  /** The fields the request's JSON body repeats, reported as `fieldValidation` says. */
  duplicates?: readonly DuplicateField[];
  /** Collects warnings for the `Warning` response header. */
  warnings?: string[];
  /** The uid for a created object (so admission's dry run and the write agree). */
  uid?: string;
  /**
   * Who writes, for `metadata.managedFields` (the `fieldManager` of the request, or its
   * user agent's product); writes without one (the direct API's) are not tracked.
   */
  fieldManager?: string;
  /** The body's `metadata.managedFields` are an apply's: stored as they are. */
  appliedFields?: boolean;
}

/** Options of list calls. */
export interface ListOptions {
  labelSelector?: Selector;
  fieldSelector?: Selector;
  limit?: number;
  continue?: string;
}

/** One page of a list. */
export interface ListResult {
  items: JsonObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}
