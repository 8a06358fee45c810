/**
 * Resource selectors: what the handlers ask for (`"kopfexamples"`, `"apps", "v1",
 * "deployments"`, `EVERYTHING`, a predicate, keyword criteria), resolved against the
 * resources that the cluster actually serves.
 *
 * @module
 */
import { EVERYTHING, type Marker } from "./markers.ts";
import type { Resource } from "./resources.ts";
import type { ReadonlyJsonObject } from "./views.ts";

/** A predicate deciding whether a discovered resource is served. */
export type ResourcePredicate = (resource: Resource) => boolean;

/** A name in the selector's name position: any name of a resource, or `EVERYTHING`. */
export type ResourceName = string | Marker<"everything">;

/** Keyword criteria of a selector; each narrows the resources that match. */
export interface SelectorKeywords {
  /** The API group, `""` for the core group. */
  group?: string;
  /** The API version; without it, only the group's preferred version is served. */
  version?: string;
  /** The kind, e.g. `KopfExample`. */
  kind?: string;
  /** The plural name, e.g. `kopfexamples`. */
  plural?: string;
  /** The singular name, e.g. `kopfexample`. */
  singular?: string;
  /** One of the short names, e.g. `kex`. */
  shortcut?: string;
  /** One of the categories, e.g. `all`. */
  category?: string;
}

/** The positional part of a selector, as given before the options and the function. */
export type SelectorArgs =
  | readonly []
  | readonly [name: ResourceName]
  | readonly [group: string, name: ResourceName]
  | readonly [group: string, version: string, name: ResourceName]
  | readonly [predicate: ResourcePredicate];

/** What {@link Selector.select} found: the resources to serve and why some are not. */
export interface Selection {
  /** The resources to serve. */
  readonly resources: readonly Resource[];
  /** Human-readable warnings, e.g. about ambiguous names that serve nothing. */
  readonly warnings: readonly string[];
}

const VERSION_RE = /^v\d+(?:(?:alpha|beta)\d+)?$/;
const KEYWORDS = [
  "group",
  "version",
  "kind",
  "plural",
  "singular",
  "shortcut",
  "category",
] as const;

function isCoreEvents(resource: Resource): boolean {
  return resource.group === "" && resource.plural === "events";
}

function singularOf(resource: Resource): string {
  return resource.singular || resource.kind.toLowerCase();
}

/**
 * An error in how a resource is specified; the message says what to write instead.
 *
 * @example A resource named on the command line, checked where it is read
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * const name = Deno.args[0] ?? "kopfexamples";
 * try {
 *   const watched = kopf.resource(name);
 *   kopf.on.event(watched, ({ type, name }) => console.log(`${type} ${name}`));
 * } catch (error) {
 *   if (!(error instanceof kopf.SelectorError)) throw error;
 *   console.error(`The resource to watch: ${error.message}`);
 * }
 * ```
 */
export class SelectorError extends TypeError {
  /** The error class name. */
  override name = "SelectorError";
}

/** Which resources a handler serves. Build it with {@link Selector.parse}. */
export class Selector {
  /** The API group, if restricted. */
  readonly group: string | undefined;
  /** The API version, if restricted (otherwise preferred versions only). */
  readonly version: string | undefined;
  /** The kind, if given as a keyword. */
  readonly kind: string | undefined;
  /** The plural name, if given as a keyword. */
  readonly plural: string | undefined;
  /** The singular name, if given as a keyword. */
  readonly singular: string | undefined;
  /** A short name, if given as a keyword. */
  readonly shortcut: string | undefined;
  /** A category, if given as a keyword. */
  readonly category: string | undefined;
  /** A name of any sort (plural, singular, kind, short name), or `EVERYTHING`. */
  readonly anyName: ResourceName | undefined;
  /** A predicate, if the selector is callable. */
  readonly predicate: ResourcePredicate | undefined;

  private constructor(
    fields: SelectorKeywords & {
      anyName?: ResourceName;
      predicate?: ResourcePredicate;
    },
  ) {
    this.group = fields.group;
    this.version = fields.version;
    this.kind = fields.kind;
    this.plural = fields.plural;
    this.singular = fields.singular;
    this.shortcut = fields.shortcut;
    this.category = fields.category;
    this.anyName = fields.anyName;
    this.predicate = fields.predicate;
    Object.freeze(this);
  }

  /**
   * Interpret positional selector arguments (0-3 strings, `EVERYTHING`, or one
   * predicate) together with keyword criteria, with kubectl-like rules:
   * `"plural.group"`, `"name.version.group"`, `"group/version", name`, `"v1", name` for
   * the core group. Throws a {@link SelectorError} saying how to fix a bad spec.
   */
  static parse(args: readonly unknown[], keywords: SelectorKeywords = {}): Selector {
    const fields: SelectorKeywords & { anyName?: ResourceName; predicate?: ResourcePredicate } = {};
    if (args.length > 3) {
      throw new SelectorError(
        `Too many selector arguments (${args.length}): give at most group, version and name.`,
      );
    }
    if (args.some((a) => typeof a === "function")) {
      if (args.length > 1) {
        throw new SelectorError(
          "A resource predicate must be the only positional selector; " +
            "narrow it with keyword options (group, version, \u2026), not with names.",
        );
      }
      fields.predicate = args[0] as ResourcePredicate;
    } else {
      args.forEach((arg, i) => {
        const last = i === args.length - 1;
        if (typeof arg === "string" || (last && arg === EVERYTHING)) return;
        throw new SelectorError(
          `Selector argument #${i + 1} is ${describe(arg)}; expected ${
            last ? "a resource name or kopf.EVERYTHING" : "an API group or version string"
          }.`,
        );
      });
      const [a1, a2, a3] = args as (string | Marker<"everything">)[];
      if (args.length === 3) {
        Object.assign(fields, { group: a1 as string, version: a2 as string, anyName: a3 });
      } else if (args.length === 2 && (a1 as string).includes("/")) {
        const slash = (a1 as string).lastIndexOf("/");
        fields.group = (a1 as string).slice(0, slash);
        fields.version = (a1 as string).slice(slash + 1);
        fields.anyName = a2;
      } else if (args.length === 2 && a1 === "v1") {
        Object.assign(fields, { group: "", version: "v1", anyName: a2 });
      } else if (args.length === 2) {
        Object.assign(fields, { group: a1 as string, anyName: a2 });
      } else if (args.length === 1 && typeof a1 === "string" && a1.includes(".")) {
        const [name, ...rest] = a1.split(".");
        if (VERSION_RE.test(rest[0])) {
          Object.assign(fields, {
            anyName: name,
            version: rest[0],
            group: rest.slice(1).join("."),
          });
        } else {
          Object.assign(fields, { anyName: name, group: rest.join(".") });
        }
      } else if (args.length === 1) {
        fields.anyName = a1;
      }
    }
    for (const key of KEYWORDS) {
      const value = keywords[key];
      if (value === undefined || value === null) continue;
      if (typeof value !== "string") {
        throw new SelectorError(`Selector option ${key} must be a string, got ${describe(value)}.`);
      }
      if (fields[key] !== undefined && fields[key] !== value) {
        throw new SelectorError(
          `The ${key} is given twice, as "${fields[key]}" and as "${value}"; keep one.`,
        );
      }
      fields[key] = value;
    }
    for (const key of ["version", "kind", "plural", "singular", "shortcut", "category"] as const) {
      if (fields[key] === "") throw new SelectorError(`Selector ${key} must not be empty.`);
    }
    if (fields.anyName === "") throw new SelectorError("The resource name must not be empty.");
    if (fields.group !== undefined && fields.group.includes("/")) {
      throw new SelectorError(`Invalid API group "${fields.group}": "/" separates the version.`);
    }
    const names = (["kind", "plural", "singular", "shortcut", "category", "anyName"] as const)
      .filter((key) => fields[key] !== undefined);
    if (names.length > 1) {
      throw new SelectorError(
        `Ambiguous resource specification with several names (${
          names.map((n) => `${n === "anyName" ? "name" : n}=${String(fields[n])}`).join(", ")
        }); give only one.`,
      );
    }
    if (names.length === 0 && fields.predicate === undefined) {
      throw new SelectorError(
        'No resource is specified: give a name (e.g. "kopfexamples"), kopf.EVERYTHING, ' +
          "a predicate, or one of the options kind, plural, singular, shortcut, category.",
      );
    }
    return new Selector(fields);
  }

  /** Whether it names one resource (and so must not be ambiguous). */
  get isSpecific(): boolean {
    return this.kind !== undefined || this.plural !== undefined || this.singular !== undefined ||
      this.shortcut !== undefined || (this.anyName !== undefined && this.anyName !== EVERYTHING);
  }

  /** Whether the resource matches all criteria (before ambiguity rules). */
  check(resource: Resource): boolean {
    if (resource.plural.includes("/")) return false; // a subresource, not a resource
    if (this.group !== undefined && this.group !== resource.group) return false;
    if (this.version !== undefined) {
      if (this.version !== resource.version) return false;
    } else if (this.predicate === undefined && !resource.preferred) {
      return false;
    }
    if (this.kind !== undefined && this.kind !== resource.kind) return false;
    if (this.plural !== undefined && this.plural !== resource.plural) return false;
    if (this.singular !== undefined && this.singular !== singularOf(resource)) return false;
    if (this.shortcut !== undefined && !resource.shortcuts.includes(this.shortcut)) return false;
    if (this.category !== undefined && !resource.categories.includes(this.category)) return false;
    const name = this.anyName;
    if (name === EVERYTHING || this.predicate !== undefined) {
      if (isCoreEvents(resource)) return false;
    } else if (typeof name === "string") {
      if (
        name !== resource.plural && name !== singularOf(resource) && name !== resource.kind &&
        !resource.shortcuts.includes(name)
      ) return false;
    }
    if (this.predicate === undefined) return true;
    let verdict: unknown;
    try {
      verdict = this.predicate(resource);
    } catch (e) {
      throw new SelectorError(
        `The resource predicate ${this.predicate.name || "(anonymous)"} failed for ${resource}: ${
          e instanceof Error ? e.message : String(e)
        }`,
        { cause: e },
      );
    }
    return verdict === true;
  }

  /**
   * The resources to serve among the discovered ones. For a specific name, core v1
   * wins over other groups; if several remain, none is served and a warning says so.
   */
  select(resources: Iterable<Resource>): Selection {
    let result = [...resources].filter((r) => this.check(r));
    if (!this.isSpecific) return { resources: result, warnings: [] };
    const core = result.filter((r) => r.group === "" && r.version === "v1");
    if (core.length > 0) result = core;
    if (result.length > 1) {
      const found = result.map((r) => r.toString()).join(", ");
      return {
        resources: [],
        warnings: [
          `The selector ${this} is ambiguous: it matches ${found}; none of them is served. ` +
          `Name the API group to pick one (e.g. "${result[0].plural}.${result[0].group}").`,
        ],
      };
    }
    return { resources: result, warnings: [] };
  }

  /** A readable form for messages and generated ids, e.g. `kopfexamples.v1.kopf.dev`. */
  toString(): string {
    const parts: string[] = [];
    if (this.predicate !== undefined) parts.push(this.predicate.name || "predicate");
    if (this.anyName === EVERYTHING) parts.push("everything");
    else if (typeof this.anyName === "string") parts.push(this.anyName);
    for (const key of ["kind", "plural", "singular", "shortcut", "category"] as const) {
      if (this[key] !== undefined) parts.push(`${key}=${this[key]}`);
    }
    if (this.version !== undefined) parts.push(this.version);
    if (this.group) parts.push(this.group);
    return parts.join(".");
  }
}

function describe(value: unknown): string {
  if (typeof value === "symbol") return value.toString();
  if (typeof value === "string") return JSON.stringify(value);
  if (value === null || typeof value !== "object") return String(value);
  return Array.isArray(value) ? "an array" : "an object";
}

/**
 * The type of `spec` or `status` (`P`) for objects typed `T`: `T[P]` without `undefined`,
 * since handlers get an empty one when it is absent; the untyped default when `T` has none.
 */
export type PartOf<T, P extends "spec" | "status"> = P extends keyof T
  ? NonNullable<T[Extract<keyof T, P>]>
  : ReadonlyJsonObject;

/**
 * A resource selector that carries the type of its objects; `kopf.resource<T>(...)` makes
 * it. Handlers registered with it get `spec`, `status`, `patch` and `body` typed from `T`
 * (see {@link PartOf}), with no type arguments at each registration.
 */
export class TypedResource<T = unknown> {
  /** The selector's positional arguments: `[name]`, `[group, name]` or `[group, version, name]`. */
  readonly args: readonly string[];
  /** Never set: the property only carries the type `T` to the registration functions. */
  declare readonly type?: T;

  /** A typed selector; the arguments are checked as any selector's are. */
  constructor(args: readonly string[]) {
    if (args.length === 0 || args.some((arg) => typeof arg !== "string")) {
      throw new SelectorError(
        `kopf.resource() takes a resource name, optionally preceded by the group and version ` +
          `(e.g. "kopf.dev", "v1", "kopfexamples"); got ${args.length} argument(s) of other types.`,
      );
    }
    Selector.parse(args); // fail here, where the resource is declared, not at each use
    this.args = Object.freeze([...args]);
    Object.freeze(this);
  }

  /** How it was made, e.g. `kopf.resource("kopf.dev", "v1", "kopfexamples")`. */
  toString(): string {
    return `kopf.resource(${this.args.map((arg) => JSON.stringify(arg)).join(", ")})`;
  }
}

/**
 * A resource selector typed with `T`, the type of its objects (such as what `kopf types`
 * generates from a CRD, or a model of `@kubernetes/client-node`): pass it to `kopf.on.*`
 * instead of the names, and the handlers' `spec`, `status`, `patch` and `body` are typed.
 * The arguments are those of any selector: a name, a group and a name, or a group, a
 * version and a name.
 *
 * @example Type the handlers of a custom resource once
 * ```ts
 * import { kopf } from "@kopf/kopf";
 *
 * interface KopfExampleV1 {
 *   spec?: { duration: string; replicas?: number };
 *   status?: { ready?: boolean };
 * }
 * const kex = kopf.resource<KopfExampleV1>("kopf.dev", "v1", "kopfexamples");
 *
 * kopf.on.create(kex, ({ spec, patch }) => {
 *   patch.status.ready = (spec.replicas ?? 1) > 0; // a misspelt field does not compile
 * });
 * ```
 */
export function resource<T = unknown>(name: string): TypedResource<T>;
/** A typed selector of the resource with this name in the group (or `group/version`). */
export function resource<T = unknown>(group: string, name: string): TypedResource<T>;
/** A typed selector of the resource with this name in the group and version. */
export function resource<T = unknown>(
  group: string,
  version: string,
  name: string,
): TypedResource<T>;
export function resource<T = unknown>(...args: string[]): TypedResource<T> {
  return new TypedResource<T>(args);
}
