/**
 * The catalog of served resource types: the built-ins at start, plus whatever the
 * custom resource definitions add. Objects are stored per group and plural, whatever
 * version they were written in; each type knows which versions it serves.
 *
 * @module
 */
import {
  compareVersions,
  type ResourceType,
  type ServedVersion,
  typeKey,
} from "../../catalog/resource_types.ts";

/** Every served type, by `group/plural`. */
export class Catalog {
  readonly #types = new Map<string, ResourceType>();

  /** Add or replace a type. */
  put(type: ResourceType): void {
    this.#types.set(typeKey(type.group, type.plural), type);
  }

  /** Remove a type. */
  remove(group: string, plural: string): void {
    this.#types.delete(typeKey(group, plural));
  }

  /** The type with this group and plural, if any. */
  get(group: string, plural: string): ResourceType | undefined {
    return this.#types.get(typeKey(group, plural));
  }

  /** The type served at this group/version/plural, with the version record. */
  lookup(
    group: string,
    version: string,
    plural: string,
  ): { type: ResourceType; version: ServedVersion } | undefined {
    const type = this.get(group, plural);
    const served = type?.versions.find((v) => v.name === version);
    return type && served ? { type, version: served } : undefined;
  }

  /** The type of objects with this apiVersion and kind. */
  byKind(apiVersion: string, kind: string): ResourceType | undefined {
    const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
    for (const type of this.#types.values()) {
      if (
        type.group === group && type.kind === kind && type.versions.some((v) => v.name === version)
      ) {
        return type;
      }
    }
    return undefined;
  }

  /** All types, in insertion order. */
  all(): ResourceType[] {
    return [...this.#types.values()];
  }

  /** The groups served, each with its versions (preferred first), core group excluded. */
  groups(): Map<string, string[]> {
    const groups = new Map<string, string[]>();
    for (const type of this.#types.values()) {
      if (!type.group) continue;
      const versions = groups.get(type.group) ?? [];
      for (const v of type.versions) if (!versions.includes(v.name)) versions.push(v.name);
      groups.set(type.group, versions);
    }
    for (const versions of groups.values()) versions.sort(compareVersions);
    return groups;
  }
}
