/**
 * Resource records: what the cluster serves, as learned from discovery.
 *
 * @module
 */
import { UsageError } from "./errors.ts";

/** The fields of a {@link Resource}, for constructing one. */
export interface ResourceInit {
  /** The API group, `""` for the core group. */
  group: string;
  /** The API version within the group, e.g. `v1`. */
  version: string;
  /** The plural name used in URLs, e.g. `kopfexamples`. */
  plural: string;
  /** The kind, e.g. `KopfExample`; empty when unknown. */
  kind?: string;
  /** The singular name; empty when unknown. */
  singular?: string;
  /** Short names, e.g. `["kex"]`. */
  shortcuts?: readonly string[];
  /** Categories, e.g. `["all"]`. */
  categories?: readonly string[];
  /** Subresources served, e.g. `["status", "scale"]`. */
  subresources?: readonly string[];
  /** Whether objects live in namespaces. */
  namespaced?: boolean;
  /** Whether this is the group's preferred version. */
  preferred?: boolean;
  /** The verbs served, e.g. `["get", "list", "watch", "patch"]`. */
  verbs?: readonly string[];
}

/**
 * A resource served by the cluster: one group/version/plural with its discovery facts.
 *
 * Two resources are the same when group, version and plural are the same.
 *
 * @example Address a resource by its group, version and plural, e.g. with the client
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * const deployments = new kopf.Resource({
 *   group: "apps",
 *   version: "v1",
 *   plural: "deployments",
 *   namespaced: true,
 * });
 * console.log(deployments.getUrl({ namespace: "default", name: "web" }));
 * // /apis/apps/v1/namespaces/default/deployments/web
 * ```
 */
export class Resource {
  /** The API group, `""` for the core group. */
  readonly group: string;
  /** The API version within the group. */
  readonly version: string;
  /** The plural name used in URLs. */
  readonly plural: string;
  /** The kind; empty when unknown. */
  readonly kind: string;
  /** The singular name; empty when unknown. */
  readonly singular: string;
  /** Short names. */
  readonly shortcuts: readonly string[];
  /** Categories. */
  readonly categories: readonly string[];
  /** Subresources served. */
  readonly subresources: readonly string[];
  /** Whether objects live in namespaces. */
  readonly namespaced: boolean;
  /** Whether this is the group's preferred version. */
  readonly preferred: boolean;
  /** The verbs served. */
  readonly verbs: readonly string[];
  // Built once: the key is read for every event (queues, indices), a string each time else.
  readonly #key: string;

  /** Build a resource record from its fields. */
  constructor(init: ResourceInit) {
    this.group = init.group;
    this.version = init.version;
    this.plural = init.plural;
    this.kind = init.kind ?? "";
    this.singular = init.singular ?? "";
    this.shortcuts = Object.freeze([...(init.shortcuts ?? [])]);
    this.categories = Object.freeze([...(init.categories ?? [])]);
    this.subresources = Object.freeze([...(init.subresources ?? [])]);
    this.namespaced = init.namespaced ?? true;
    this.preferred = init.preferred ?? true;
    this.verbs = Object.freeze([...(init.verbs ?? [])]);
    this.#key = `${this.group}/${this.version}/${this.plural}`;
    Object.freeze(this);
  }

  /** `group/version`, or just `version` for the core group. */
  get apiVersion(): string {
    return this.group ? `${this.group}/${this.version}` : this.version;
  }

  /** `plural.group`, or just `plural` for the core group: how kubectl names it. */
  get name(): string {
    return this.group ? `${this.plural}.${this.group}` : this.plural;
  }

  /** A stable key that identifies the resource: `group/version/plural`. */
  get key(): string {
    return this.#key;
  }

  /** Whether the resource serves the given subresource, e.g. `status`. */
  has(subresource: string): boolean {
    return this.subresources.includes(subresource);
  }

  /** Whether two records denote the same resource. */
  equals(other: Resource): boolean {
    return this.group === other.group && this.version === other.version &&
      this.plural === other.plural;
  }

  /**
   * The API path (or full URL with `server`) of the collection, an object or its
   * subresource. A name, namespace or subresource that cannot be one path segment (empty,
   * `.` or `..`, or with `/` or `%`, as client-go refuses them) is a {@link UsageError}:
   * URL parsers would resolve or split it into another path than meant.
   */
  getUrl(
    options: {
      /** The API server's base URL; when omitted, the path alone is returned. */
      server?: string;
      /** The namespace, for namespaced resources; omitted means cluster-wide. */
      namespace?: string;
      /** The object's name; omitted means the collection. */
      name?: string;
      /** A subresource of the named object, e.g. `status`. */
      subresource?: string;
      /** Query parameters; `undefined` values are skipped. */
      params?: Record<string, string | number | boolean | undefined>;
    } = {},
  ): string {
    const { server, namespace, name, subresource, params } = options;
    if (subresource !== undefined && name === undefined) {
      throw new UsageError(`A subresource (${subresource}) needs an object name.`);
    }
    if (namespace !== undefined && !this.namespaced) {
      throw new UsageError(`${this.name} is cluster-scoped; do not pass a namespace for it.`);
    }
    if (namespace !== undefined) this.#checkSegment("namespace", namespace);
    if (name !== undefined) this.#checkSegment("name", name);
    if (subresource !== undefined) this.#checkSegment("subresource", subresource);
    let url = this.group ? `/apis/${this.group}/${this.version}` : `/api/${this.version}`;
    if (namespace !== undefined) url += `/namespaces/${encodeURIComponent(namespace)}`;
    url += `/${this.plural}`;
    if (name !== undefined) url += `/${encodeURIComponent(name)}`;
    if (subresource !== undefined) url += `/${subresource}`;
    if (params !== undefined) {
      const query = new URLSearchParams();
      for (const [k, v] of Object.entries(params)) {
        if (v !== undefined) query.set(k, String(v));
      }
      const qs = query.toString();
      if (qs) url += `?${qs}`;
    }
    return server ? server.replace(/\/+$/, "") + url : url;
  }

  /** Refuse what cannot be one segment of a path (client-go's `IsValidPathSegmentName`). */
  #checkSegment(what: string, value: string): void {
    const why = value === ""
      ? "it is empty"
      : value === "." || value === ".."
      ? `it is "${value}"`
      : value.includes("/")
      ? 'it contains "/"'
      : value.includes("%")
      ? 'it contains "%"'
      : undefined;
    if (why === undefined) return;
    throw new UsageError(
      `The ${what} ${JSON.stringify(value)} for ${this} cannot be used: ${why}; ` +
        `a ${what} may not be empty, "." or "..", nor contain "/" or "%".`,
    );
  }

  /** A human-readable form, e.g. `kopfexamples.v1.kopf.dev`. */
  toString(): string {
    return this.group
      ? `${this.plural}.${this.version}.${this.group}`
      : `${this.plural}.${this.version}`;
  }
}
