/**
 * Resource types as the API server knows them: their names, scope, verbs and served
 * versions (with their subresources and printer columns), and how versions are ordered.
 * The fake cluster serves these; `kopf manifests` resolves handlers against them without a
 * cluster.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../structs/bodies.ts";
import { Resource } from "../structs/resources.ts";

/** The verbs of an ordinary read-write resource. */
export const ALL_VERBS: readonly string[] = [
  "create",
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "update",
  "watch",
];

/** One column of `kubectl get` output, as in CRDs' `additionalPrinterColumns`. */
export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
  /** Computes the cell when a JSONPath cannot (built-in columns only). */
  cell?: (object: JsonObject) => JsonValue;
}

/** Where the `scale` subresource finds its numbers, as JSONPaths like `.spec.replicas`. */
export interface ScaleSpec {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** One served version of a resource type. */
export interface ServedVersion {
  name: string;
  /** Whether objects are kept in this version (exactly one per type). */
  storage: boolean;
  /** The OpenAPI v3 schema (custom resources only). */
  schema?: JsonObject;
  /** Whether the `status` subresource is served. */
  status: boolean;
  /** The `scale` subresource, when served: where the replica counts live. */
  scale?: ScaleSpec;
  /** Columns for `kubectl get` beyond the name and age. */
  columns: readonly PrinterColumn[];
  /** Extra field selectors besides `metadata.name` and `metadata.namespace`. */
  selectableFields: readonly string[];
}

/** A resource type served by an API server. */
export interface ResourceType {
  group: string;
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  shortNames: readonly string[];
  categories: readonly string[];
  namespaced: boolean;
  verbs: readonly string[];
  /** Served versions, the preferred one first. */
  versions: readonly ServedVersion[];
  /** Built-in types accept strategic merge patches; custom resources do not. */
  builtin: boolean;
  /** Whether `metadata.generation` is kept and bumped on spec changes. */
  generation: boolean;
  /** The CRD's name (`plural.group`) for custom resources. */
  crd?: string;
  /** Served by a handler of its own and never stored, like the access reviews. */
  virtual?: boolean;
  /** Subresources served by handlers of their own, for discovery (e.g. `token`). */
  extraSubresources?: readonly ExtraSubresource[];
}

/**
 * A subresource besides `status` and `scale`, answered by a handler of its own, e.g.
 * `serviceaccounts/token` or `pods/log`; its group and version when not the resource's.
 */
export interface ExtraSubresource {
  name: string;
  group?: string;
  version?: string;
  kind: string;
  verbs: readonly string[];
}

/** `group/plural`: the key of a type in the catalog and of its objects in the store. */
export function typeKey(group: string, plural: string): string {
  return `${group}/${plural}`;
}

/** The apiVersion string of a group and version. */
export function apiVersionOf(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

/** Kubernetes version priority: GA > beta > alpha, higher numbers first. */
export function compareVersions(a: string, b: string): number {
  const rank = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [3, 0, 0];
    const stage = m[2] === "alpha" ? 2 : m[2] === "beta" ? 1 : 0;
    return [stage, -Number(m[1]), -Number(m[3] ?? 0)];
  };
  const [ra, rb] = [rank(a), rank(b)];
  for (let i = 0; i < 3; i++) if (ra[i] !== rb[i]) return ra[i] - rb[i];
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Every version of each type as a resource, the preferred version first. */
export function resourcesOf(types: readonly ResourceType[]): Resource[] {
  return types.flatMap((type) =>
    type.versions.map((version, index) =>
      new Resource({
        group: type.group,
        version: version.name,
        plural: type.plural,
        kind: type.kind,
        singular: type.singular,
        shortcuts: type.shortNames,
        categories: type.categories,
        subresources: [
          ...(version.status ? ["status"] : []),
          ...(version.scale ? ["scale"] : []),
        ],
        namespaced: type.namespaced,
        preferred: index === 0,
        verbs: type.verbs,
      })
    )
  );
}
