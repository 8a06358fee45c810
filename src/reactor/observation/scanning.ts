/**
 * Scanning: the watches of what the served set depends on. Namespaces, when the scope has
 * patterns: they start and stop being served as they appear and disappear (without the
 * permission to list them, the literal names among the patterns are served as they are).
 * CustomResourceDefinitions: when one is created, changed or deleted in a way that matters
 * to discovery, the observer discovers again.
 *
 * @module
 */

import type { RawBody } from "../../structs/bodies.ts";
import { objectKey } from "../../structs/identities.ts";
import type { Logger } from "../../structs/loggers.ts";
import {
  isServedNamespace,
  literalNamespaces,
  type Scope,
} from "../../structs/namespace_scopes.ts";
import { APIForbiddenError } from "../../client/api_errors.ts";
import type { Resource } from "../../structs/resources.ts";
import type { JsonObject } from "../../structs/bodies.ts";
import { checkCrd, crdToType } from "../../catalog/custom_resource_definitions.ts";
import { compareVersions, resourcesOf } from "../../catalog/resource_types.ts";
import { CUSTOM_RESOURCE_DEFINITIONS, NAMESPACES } from "./observation_client.ts";
import type { WatchConsumer } from "./watch_consumer.ts";

/** The namespaces and CRDs, watched; see the module docs. */
export class Scanning {
  /** Served namespaces; `undefined` until known. Ignored for a cluster-wide scope. */
  namespaces: Set<string> | undefined;
  readonly #consumer: WatchConsumer;
  readonly #scope: Scope;
  readonly #logger: Logger;
  /** Fingerprints of the CRDs seen, to ignore changes that do not affect discovery. */
  readonly #crds = new Map<string, string>();
  /** The resources of the established CRDs of the first listing, until asked for once. */
  #listedResources: Resource[] | undefined = [];

  /** The scanning of a scope, through the consumer. */
  constructor(consumer: WatchConsumer, scope: Scope, logger: Logger) {
    this.#consumer = consumer;
    this.#scope = scope;
    this.#logger = logger;
  }

  /** Watch the namespaces; `known` is called once the served namespaces are known. */
  async watchNamespaces(
    signal: AbortSignal,
    known: () => void,
    changed: () => void,
  ): Promise<void> {
    const scope = this.#scope;
    if (scope.clusterwide) return;
    const served = (body: RawBody) => {
      const name = body.metadata?.name;
      return name !== undefined && isServedNamespace(name, scope) ? name : undefined;
    };
    await this.#consumer.consume(NAMESPACES, signal, (item) => {
      if (item.type === "LISTING") return; // never asked for: namespaces are listed whole
      if (item.type === "LISTED") {
        this.namespaces = new Set(item.objects.map(served).filter((n) => n !== undefined));
        known();
      } else {
        const name = served(item.object);
        if (name === undefined || this.namespaces === undefined) return;
        if (item.type === "DELETED") this.namespaces.delete(name);
        else this.namespaces.add(name);
      }
      changed();
    }, (error) => {
      if (!(error instanceof APIForbiddenError)) return false;
      if (this.namespaces === undefined) {
        const literal = literalNamespaces(scope.namespaces);
        this.#logger.warning(
          `No permission to list namespaces; serving the namespaces named literally: ` +
            `${literal.length ? literal.join(", ") : "none"}.`,
        );
        this.namespaces = new Set(literal);
        known();
        changed();
      } else {
        this.#logger.warning(
          "No permission to watch namespaces any more; new or deleted namespaces will not " +
            "be noticed until the operator restarts.",
        );
      }
      return true;
    });
  }

  /** Watch the CRDs; `listed` is called after their first listing (or failure). */
  async watchCrds(signal: AbortSignal, listed: () => void, rediscover: () => void): Promise<void> {
    let first = true;
    await this.#consumer.consume(CUSTOM_RESOURCE_DEFINITIONS, signal, (item) => {
      if (item.type === "LISTING") return; // never asked for: CRDs are listed whole
      let changed = false;
      if (item.type === "LISTED") {
        const seen = new Set<string>();
        for (const crd of item.objects) {
          const key = objectKey(crd);
          seen.add(key);
          changed = this.#rememberCrd(key, crd) || changed;
          if (first) this.#listedResources?.push(...resourcesOfCrd(crd));
        }
        for (const key of [...this.#crds.keys()]) {
          if (!seen.has(key)) changed = this.#crds.delete(key) || changed;
        }
      } else if (item.type === "DELETED") {
        changed = this.#crds.delete(objectKey(item.object));
      } else {
        changed = this.#rememberCrd(objectKey(item.object), item.object);
      }
      if (first) {
        // The initial discovery is checked against this first listing (`missedBy`).
        first = false;
        listed();
      } else if (changed) {
        rediscover();
      }
    }, (error) => {
      if (first) {
        first = false;
        listed(); // do not hold the start; a later listing triggers a fresh discovery
      }
      if (!(error instanceof APIForbiddenError)) return false;
      this.#logger.warning(
        "No permission to watch CustomResourceDefinitions; resources created or deleted " +
          "later will not be noticed until the operator restarts.",
      );
      return true;
    });
  }

  /**
   * The resources of the first listing's established CRDs that the discovery does not show:
   * made between the two, which run at once and end in either order. Asked once, after both.
   */
  missedBy(discovered: readonly Resource[]): Resource[] {
    const listed = this.#listedResources ?? [];
    this.#listedResources = undefined;
    const shown = new Set(discovered.map((resource) => resource.key));
    return listed.filter((resource) => !shown.has(resource.key));
  }

  /** Remember a CRD's discovery-relevant state; true if it differs from before. */
  #rememberCrd(key: string, crd: RawBody): boolean {
    const fingerprint = discoveryFingerprint(crd);
    if (this.#crds.get(key) === fingerprint) return false;
    this.#crds.set(key, fingerprint);
    return true;
  }
}

/**
 * A CRD as the discovery shows it: all of it but its schemas (the versions' `schema`, and
 * `validation` of old), which are most of a CRD's size -- tens of KB each, for the many CRDs
 * of a cluster -- and change nothing the discovery shows.
 */
function discoveryFingerprint(crd: RawBody): string {
  const spec = crd.spec as { versions?: unknown } | undefined;
  const versions = spec?.versions;
  const shown = typeof spec === "object" && spec !== null
    ? {
      ...spec,
      validation: undefined,
      versions: Array.isArray(versions)
        ? versions.map((v) => typeof v === "object" && v !== null ? { ...v, schema: undefined } : v)
        : versions,
    }
    : spec;
  const status = (crd.status ?? {}) as { acceptedNames?: unknown; conditions?: unknown };
  const conditions = Array.isArray(status.conditions)
    ? (status.conditions as { type?: unknown; status?: unknown }[])
      .map((c) => `${c.type}=${c.status}`).sort()
    : [];
  return JSON.stringify([shown, status.acceptedNames, conditions]);
}

/**
 * The resources an established CRD serves, one per served version, as discovery shows them
 * (the catalog's reading of a CRD); none if it is not established or not a valid CRD.
 */
function resourcesOfCrd(crd: RawBody): Resource[] {
  const conditions = (crd.status as { conditions?: unknown } | undefined)?.conditions;
  const established = Array.isArray(conditions) &&
    conditions.some((c) => c?.type === "Established" && c?.status === "True");
  const definition = crd as JsonObject;
  if (!established || checkCrd(definition).length > 0) return [];
  return resourcesOf([crdToType(definition, compareVersions)]);
}
