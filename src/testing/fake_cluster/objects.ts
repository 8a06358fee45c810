/**
 * The API verbs on objects — get, list, create, update, patch, delete, deletecollection —
 * with the rules of a real API server: resourceVersions and conflicts, generateName,
 * the status subresource, generation bumps, finalizers and `deletionTimestamp`,
 * dry runs, schema pruning of custom resources. Cascades (garbage collection,
 * namespace and CRD cleanup) are left to the lifecycle controllers, run after each
 * request.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import {
  apiVersionOf,
  compareVersions,
  type ResourceType,
  type ServedVersion,
  typeKey,
} from "../../catalog/resource_types.ts";
import type { Catalog } from "./catalog.ts";
import { checkWebhookConfiguration } from "./admission.ts";
import { checkLease } from "./leases.ts";
import { checkCrd, crdToType } from "../../catalog/custom_resource_definitions.ts";
import { CRD_CLEANUP_FINALIZER, crdStatus } from "./crds.ts";
import {
  alreadyExists,
  ApiError,
  badRequest,
  type Cause,
  conflict,
  invalid,
  notFound,
  type ObjectIdentity,
} from "./errors.ts";
import { clone, isObject, jsonEqual, jsonPatch, mergePatch } from "./patching.ts";
import { strategicMergePatch } from "./strategic_merge_patch.ts";
import { kindMessage } from "./builtin_messages.ts";
import {
  checkMeta,
  finalizersOf,
  GENERATE_NAME_ATTEMPTS,
  generatedName,
  metaOf,
  normalizeMeta,
  randomSuffix,
  timestamp,
} from "./metadata.ts";
import { scaleOf, setPath } from "./scale.ts";
import { applyDefaults, prune, validate } from "./schema.ts";
import { EVERYTHING, pinnedBy, type Selector } from "./selectors.ts";
import type { Store } from "./store.ts";

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
export interface DeleteOptions {
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
  /** Unknown fields of custom resources: fail (Strict), warn (Warn) or drop silently. */
  fieldValidation?: FieldValidation;
  /** Collects warnings for the `Warning` response header. */
  warnings?: string[];
  /** The uid for a created object (so admission's dry run and the write agree). */
  uid?: string;
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

const NAMESPACES = typeKey("", "namespaces");
const CRDS = typeKey("apiextensions.k8s.io", "customresourcedefinitions");
const LEASES = typeKey("coordination.k8s.io", "leases");
/** How many listings' snapshots are kept for their continuations. */
const KEPT_SNAPSHOTS = 32;
/** The message of a real API server for a continuation whose snapshot is compacted. */
const CONTINUE_EXPIRED = "The provided continue parameter is too old to display a consistent " +
  "list result. You can start a new list without the continue parameter.";

/** The key a listing is sorted and continued by: `namespace/name`. */
function keyOf(object: JsonObject): string {
  const meta = metaOf(object);
  return `${meta.namespace ?? ""}/${meta.name}`;
}

/** The largest object kept, like etcd's request limit. */
export const MAX_OBJECT_BYTES = 1_572_864;

function str(value: JsonValue | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The identity of an object for error messages. */
function identity(type: ResourceType, name: string): ObjectIdentity {
  return { name, group: type.group, plural: type.plural };
}

/** Stored objects with their storage apiVersion replaced by the requested one. */
export function served(object: JsonObject, type: ResourceType, version: ServedVersion): JsonObject {
  const apiVersion = apiVersionOf(type.group, version.name);
  return object.apiVersion === apiVersion ? object : { ...object, apiVersion };
}

/** The verbs on objects, over a catalog and a store. */
export class Objects {
  /** The random suffixes of generated names; tests replace it to make names collide. */
  nameSuffix: () => string = randomSuffix;

  constructor(readonly catalog: Catalog, readonly store: Store) {}

  /** The stored object, or a 404. */
  get(target: Target): JsonObject {
    const { type, version } = target;
    const name = target.name ?? "";
    const object = this.store.get(typeKey(type.group, type.plural), target.namespace ?? "", name);
    if (!object) throw notFound(identity(type, name));
    if (target.subresource === "scale") return scaleOf(version, object);
    return served(object, type, version);
  }

  /**
   * A page of the objects matching the selectors. As with etcd, a listing with a `limit`
   * is a consistent snapshot: the first page's resourceVersion is every page's, and the
   * `continue` token of each page leads to the next page of that same snapshot. The
   * snapshots of the last listings are kept for their continuations; one whose
   * resourceVersion the history has compacted away (or that is no longer kept) is
   * `410 Expired`, as a real server answers a continuation that etcd has compacted.
   */
  list(target: Target, options: ListOptions = {}): ListResult {
    const { type, version } = target;
    const labels = options.labelSelector ?? EVERYTHING;
    const fields = options.fieldSelector ?? EVERYTHING;
    let token: { rv: number; start: string } | undefined;
    if (options.continue) {
      try {
        const parsed = JSON.parse(atob(options.continue)) as { rv?: unknown; start?: unknown };
        if (typeof parsed.rv !== "number" || typeof parsed.start !== "string") throw new Error();
        token = { rv: parsed.rv, start: parsed.start };
      } catch {
        throw badRequest(`invalid continue token "${options.continue}"; start the list over`);
      }
    }
    // Only objects with the name and namespace the field selector requires can match:
    // a selector of one object (`metadata.name=x`) looks it up rather than listing all.
    const pinned = pinnedBy(fields);
    const key = typeKey(type.group, type.plural);
    const namespace = target.namespace ?? pinned.namespace;
    const snapshotKey = `${key}\u0000${namespace ?? "\u0000"}\u0000${pinned.name ?? "\u0000"}`;
    const rv = token?.rv ?? this.store.resourceVersion;
    let all = this.#snapshots.get(snapshotKey)?.get(rv);
    if (token !== undefined && (all === undefined || rv < this.store.history.compactedRv)) {
      throw new ApiError(410, CONTINUE_EXPIRED, { reason: "Expired" });
    }
    if (all === undefined) {
      all = pinned.name === undefined
        ? this.store.list(key, namespace)
        : this.store.named(key, namespace, pinned.name);
    }
    const limit = options.limit && options.limit > 0 ? options.limit : Infinity;
    // The first object after the token's key: the snapshot is sorted by `namespace/name`.
    let index = 0;
    if (token !== undefined) {
      let hi = all.length;
      while (index < hi) {
        const mid = (index + hi) >> 1;
        if (keyOf(all[mid]) <= token.start) index = mid + 1;
        else hi = mid;
      }
    }
    const page: JsonObject[] = [];
    for (; index < all.length && page.length < limit; index++) {
      const object = all[index];
      if (labels(object) && fields(object)) page.push(served(object, type, version));
    }
    const result: ListResult = { items: page, resourceVersion: String(rv) };
    if (index < all.length) {
      // More may follow: keep the snapshot for the continuation (the latest few only).
      this.#keepSnapshot(snapshotKey, rv, all);
      result.continue = btoa(JSON.stringify({ rv, start: keyOf(all[index - 1]) }));
      // As a real server, the count of the rest only when it is exact (no selectors).
      if (labels === EVERYTHING && fields === EVERYTHING) {
        result.remainingItemCount = all.length - index;
      }
    }
    return result;
  }

  /** The snapshots of listings that have pages to come: by scope, then by resourceVersion. */
  readonly #snapshots = new Map<string, Map<number, JsonObject[]>>();
  #snapshotCount = 0;

  #keepSnapshot(scope: string, rv: number, objects: JsonObject[]): void {
    let byRv = this.#snapshots.get(scope);
    if (byRv?.has(rv)) return;
    if (!byRv) this.#snapshots.set(scope, byRv = new Map());
    byRv.set(rv, objects);
    this.#snapshotCount++;
    // Forget the oldest beyond the limit: their continuations expire early (410).
    while (this.#snapshotCount > KEPT_SNAPSHOTS) {
      let oldest: [string, number] | undefined;
      for (const [s, versions] of this.#snapshots) {
        for (const v of versions.keys()) if (!oldest || v < oldest[1]) oldest = [s, v];
      }
      if (!oldest) break;
      const versions = this.#snapshots.get(oldest[0])!;
      versions.delete(oldest[1]);
      if (!versions.size) this.#snapshots.delete(oldest[0]);
      this.#snapshotCount--;
    }
  }

  /** Create an object; returns it as stored (or as it would be, in a dry run). */
  create(target: Target, body: JsonValue, options: WriteOptions = {}): JsonObject {
    const { type, version } = target;
    if (target.subresource) {
      throw new ApiError(
        405,
        `the ${target.subresource} subresource cannot be created; create the object itself`,
      );
    }
    if (!isObject(body)) throw badRequest("the request body must be a JSON object");
    const object = this.#checkKind(type, version, clone(body));
    const meta = { ...metaOf(object) };
    object.metadata = meta;
    this.#checkNamespace(type, target.namespace, meta);
    const key = typeKey(type.group, type.plural);
    if (!meta.name && typeof meta.generateName === "string" && meta.generateName) {
      // As API servers since 1.31: a generated name that is taken is generated anew, up
      // to 8 names in all; only then is the create refused as AlreadyExists.
      for (let attempt = 0; attempt < GENERATE_NAME_ATTEMPTS; attempt++) {
        meta.name = generatedName(meta.generateName, this.nameSuffix);
        if (!this.store.get(key, target.namespace ?? "", meta.name)) break;
      }
    }
    const name = str(meta.name) ?? "";
    if (!name) {
      throw invalid(type.kind, identity(type, ""), [{
        field: "metadata.name",
        reason: "FieldValueRequired",
        message: "Required value: name or generateName is required",
      }]);
    }
    if (target.namespace !== undefined) {
      const ns = this.store.get(NAMESPACES, "", target.namespace);
      if (!ns) throw notFound({ name: target.namespace, group: "", plural: "namespaces" });
      if (metaOf(ns).deletionTimestamp) {
        throw new ApiError(
          403,
          `${type.plural} "${name}" is forbidden: unable to create new content in namespace ${target.namespace} because it is being terminated`,
          { details: { name, kind: type.plural, ...(type.group ? { group: type.group } : {}) } },
        );
      }
    }
    if (this.store.get(key, target.namespace ?? "", name)) {
      throw alreadyExists(identity(type, name));
    }
    if (type.crd && metaOf(this.store.get(CRDS, "", type.crd) ?? {}).deletionTimestamp) {
      throw new ApiError(
        405,
        `create not allowed while custom resource definition ${type.crd} is terminating`,
      );
    }
    for (
      const field of [
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "managedFields",
        "selfLink",
      ]
    ) {
      delete meta[field];
    }
    meta.uid = options.uid ?? crypto.randomUUID();
    meta.creationTimestamp = timestamp();
    if (type.generation) meta.generation = 1;
    else delete meta.generation;
    if (target.namespace !== undefined) meta.namespace = target.namespace;
    else delete meta.namespace;
    if (target.version.status) delete object.status;
    this.#defaultsOnCreate(type, object);
    const result = this.#admit(type, version, object, undefined, options);
    if (options.dryRun) return served(result, type, version);
    return served(this.#store(type, result), type, version);
  }

  /** Replace an object (PUT), or its status with the `status` subresource. */
  update(target: Target, body: JsonValue, options: WriteOptions = {}): JsonObject {
    const { type, version } = target;
    if (!isObject(body)) throw badRequest("the request body must be a JSON object");
    if (target.subresource === "scale") return this.#scale(target, body, options);
    const incoming = this.#checkKind(type, version, clone(body));
    const name = target.name ?? "";
    const bodyName = str(metaOf(incoming).name);
    if (bodyName !== undefined && bodyName !== name) {
      throw badRequest(
        `the name of the object (${bodyName}) does not match the name on the URL (${name})`,
      );
    }
    this.#checkNamespace(type, target.namespace, metaOf(incoming));
    const old = this.#existing(target);
    // Custom resources allow no unconditional updates: a PUT must name its version.
    if (type.crd && !str(metaOf(incoming).resourceVersion)) {
      throw invalid(type.kind, identity(type, name), [{
        field: "metadata.resourceVersion",
        message: "Invalid value: 0x0: must be specified for an update",
      }]);
    }
    return this.#write(target, old, incoming, options);
  }

  /** Patch an object (or its status) in one of the patch formats. */
  patch(
    target: Target,
    patchType: PatchType,
    patch: JsonValue,
    options: WriteOptions = {},
  ): JsonObject {
    const { type, version } = target;
    const old = this.#existing(target);
    const scaling = target.subresource === "scale";
    const base = scaling ? scaleOf(version, old) : served(old, type, version);
    let patched: JsonValue;
    if (patchType === "json") patched = jsonPatch(base, patch);
    else if (!isObject(patch)) throw badRequest("a merge patch must be a JSON object");
    else if (patchType === "merge") patched = mergePatch(base, patch);
    else {
      if (!type.builtin && !scaling) {
        throw new ApiError(
          415,
          `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml (strategic merge patch is not supported for custom resources; use a merge or JSON patch)`,
        );
      }
      const root = scaling
        ? undefined
        : kindMessage(apiVersionOf(type.group, version.name), type.kind);
      patched = strategicMergePatch(base, patch, root);
    }
    if (!isObject(patched)) throw new ApiError(422, "the patched object is not a JSON object");
    if (scaling) return this.#scale(target, patched, options);
    const incoming = this.#checkKind(type, version, patched);
    const meta = metaOf(incoming);
    if (
      meta.name !== metaOf(old).name || (meta.namespace ?? "") !== (metaOf(old).namespace ?? "")
    ) {
      throw badRequest("the patch may not change the object's name or namespace");
    }
    return this.#write(target, old, incoming, options);
  }

  /**
   * Delete an object: at once when nothing holds it, else mark it with
   * `deletionTimestamp` and keep it until its finalizers are gone. Returns the object
   * while it is kept, `undefined` once it is gone.
   */
  delete(target: Target, options: DeleteOptions = {}): { object: JsonObject; gone: boolean } {
    const { type, version } = target;
    const old = this.#existing(target);
    const meta = metaOf(old);
    const pre = options.preconditions ?? {};
    const id = identity(type, String(meta.name));
    if (pre.uid && pre.uid !== meta.uid) {
      throw conflict(
        id,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid}`,
      );
    }
    if (pre.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
      throw conflict(
        id,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion}`,
      );
    }
    const finalizers = finalizersOf(old);
    const policy = options.propagationPolicy;
    if (policy === "Orphan" && !finalizers.includes("orphan")) finalizers.push("orphan");
    if (policy === "Foreground" && !finalizers.includes("foregroundDeletion")) {
      finalizers.push("foregroundDeletion");
    }
    const key = typeKey(type.group, type.plural);
    const specFinalizers =
      key === NAMESPACES && isObject(old.spec) && Array.isArray(old.spec.finalizers)
        ? old.spec.finalizers
        : [];
    if (finalizers.length || specFinalizers.length) {
      if (meta.deletionTimestamp && jsonEqual(finalizers, finalizersOf(old))) {
        return { object: served(old, type, version), gone: false };
      }
      const marked: JsonObject = {
        ...old,
        metadata: {
          ...meta,
          finalizers,
          deletionTimestamp: str(meta.deletionTimestamp) ?? timestamp(),
          deletionGracePeriodSeconds: 0,
        },
      };
      if (type.generation && !meta.deletionTimestamp) {
        (marked.metadata as JsonObject).generation = Number(meta.generation ?? 0) + 1;
      }
      if (key === NAMESPACES) {
        marked.status = { ...(isObject(old.status) ? old.status : {}), phase: "Terminating" };
      }
      if (options.dryRun) return { object: served(marked, type, version), gone: false };
      return { object: served(this.#store(type, marked), type, version), gone: false };
    }
    if (options.dryRun) return { object: served(old, type, version), gone: true };
    return { object: served(this.#remove(type, old), type, version), gone: true };
  }

  /** Delete every object matching the selectors; returns the objects as deleted/marked. */
  deleteCollection(target: Target, list: ListOptions, options: DeleteOptions = {}): JsonObject[] {
    const { items } = this.list(target, { ...list, limit: undefined, continue: undefined });
    return items.map((item) => {
      const meta = metaOf(item);
      const one = { ...target, namespace: str(meta.namespace), name: String(meta.name) };
      return this.delete(one, options).object;
    });
  }

  /**
   * A write by the server's own controllers (finalizers and owner references they
   * manage): no admission, no generation bump; the object goes when nothing holds it.
   */
  system(type: ResourceType, given: JsonObject): void {
    const meta = normalizeMeta({ ...metaOf(given) });
    const next: JsonObject = { ...given, metadata: meta };
    const specFinalizers = isObject(next.spec) && Array.isArray(next.spec.finalizers) &&
        typeKey(type.group, type.plural) === NAMESPACES
      ? next.spec.finalizers
      : [];
    if (meta.deletionTimestamp && !finalizersOf(next).length && !specFinalizers.length) {
      this.#remove(type, next);
    } else {
      this.#store(type, next);
    }
  }

  /** Set the replicas from a `Scale` (the `scale` subresource); returns the new `Scale`. */
  #scale(target: Target, scale: JsonObject, options: WriteOptions): JsonObject {
    const { type, version } = target;
    const old = this.#existing(target);
    const given = isObject(scale.metadata) ? scale.metadata : {};
    if (given.resourceVersion && given.resourceVersion !== metaOf(old).resourceVersion) {
      throw conflict(
        identity(type, String(metaOf(old).name)),
        "the object has been modified; please apply your changes to the latest version and try again",
      );
    }
    const replicas = isObject(scale.spec) ? scale.spec.replicas : undefined;
    if (typeof replicas !== "number" || !Number.isInteger(replicas) || replicas < 0) {
      throw invalid("Scale", identity(type, String(metaOf(old).name)), [{
        field: "spec.replicas",
        message: `Invalid value: ${JSON.stringify(replicas)}: must be a non-negative integer`,
      }]);
    }
    const next = setPath(served(old, type, version), version.scale!.specReplicasPath, replicas);
    const written = this.#write({ ...target, subresource: undefined }, old, next, options);
    return scaleOf(version, written);
  }

  /** Remove an object for good (its finalizers are gone); the final state, stamped. */
  #remove(type: ResourceType, old: JsonObject): JsonObject {
    const last = {
      ...old,
      metadata: { ...metaOf(old), resourceVersion: String(this.store.nextResourceVersion()) },
    };
    this.store.remove(typeKey(type.group, type.plural), last);
    if (typeKey(type.group, type.plural) === CRDS) this.#unregister(old);
    return last;
  }

  #existing(target: Target): JsonObject {
    const { type } = target;
    const name = target.name ?? "";
    const old = this.store.get(typeKey(type.group, type.plural), target.namespace ?? "", name);
    if (!old) throw notFound(identity(type, name));
    return old;
  }

  /** The update path shared by PUT and PATCH, on the object or its status. */
  #write(target: Target, old: JsonObject, incoming: JsonObject, options: WriteOptions): JsonObject {
    const dryRun = options.dryRun ?? false;
    const { type, version } = target;
    const oldMeta = metaOf(old);
    const id = identity(type, String(oldMeta.name));
    const givenRv = str(metaOf(incoming).resourceVersion);
    if (givenRv !== undefined && givenRv !== "" && givenRv !== oldMeta.resourceVersion) {
      throw conflict(
        id,
        "the object has been modified; please apply your changes to the latest version and try again",
      );
    }
    let next: JsonObject;
    if (target.subresource === "status") {
      next = { ...old, metadata: oldMeta };
      if (incoming.status === undefined) delete next.status;
      else next.status = incoming.status;
    } else if (target.subresource) {
      throw new ApiError(
        404,
        `the server could not find the requested resource (${target.subresource} of ${type.plural})`,
      );
    } else {
      next = { ...incoming };
      if (version.status) {
        if (old.status === undefined) delete next.status;
        else next.status = old.status;
      }
      next.metadata = this.#keptMeta(oldMeta, metaOf(incoming));
    }
    next.apiVersion = old.apiVersion ?? next.apiVersion;
    const finalizers = finalizersOf(next);
    if (oldMeta.deletionTimestamp) {
      const before = finalizersOf(old);
      const added = finalizers.filter((f) => !before.includes(f));
      if (added.length) {
        throw invalid(type.kind, id, [{
          field: "metadata.finalizers",
          reason: "FieldValueForbidden",
          message:
            `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${
              JSON.stringify(added)
            }`,
        }]);
      }
    }
    next = this.#admit(type, version, next, old, options);
    const nextMeta = metaOf(next);
    if (type.generation && this.#specChanged(type, old, next)) {
      nextMeta.generation = Number(oldMeta.generation ?? 0) + 1;
    }
    // A write that changes nothing is not a change: no new resourceVersion, no event.
    if (jsonEqual(next, old)) return served(old, type, version);
    const specFinalizers = isObject(next.spec) && Array.isArray(next.spec.finalizers) &&
        typeKey(type.group, type.plural) === NAMESPACES
      ? next.spec.finalizers
      : [];
    if (oldMeta.deletionTimestamp && !finalizers.length && !specFinalizers.length) {
      if (dryRun) return served(next, type, version);
      return served(this.#remove(type, next), type, version);
    }
    if (dryRun) return served(next, type, version);
    return served(this.#store(type, next), type, version);
  }

  /** Metadata after a write: the client's, with the server-owned fields kept. */
  #keptMeta(old: JsonObject, given: JsonObject): JsonObject {
    const meta: JsonObject = { ...given };
    for (
      const field of [
        "uid",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "generation",
        "resourceVersion",
        "name",
        "namespace",
      ]
    ) {
      if (old[field] === undefined) delete meta[field];
      else meta[field] = old[field];
    }
    delete meta.managedFields;
    delete meta.selfLink;
    return meta;
  }

  #specChanged(type: ResourceType, old: JsonObject, next: JsonObject): boolean {
    if (type.builtin && typeKey(type.group, type.plural) !== CRDS) {
      return !jsonEqual(old.spec, next.spec) ||
        (type.plural.endsWith("webhookconfigurations") && !jsonEqual(old.webhooks, next.webhooks));
    }
    const keys = new Set([...Object.keys(old), ...Object.keys(next)]);
    for (const key of keys) {
      if (key === "metadata" || key === "status" || key === "apiVersion" || key === "kind") {
        continue;
      }
      if (!jsonEqual(old[key], next[key])) return true;
    }
    return false;
  }

  /** Check kind/apiVersion; fill them in when absent. */
  #checkKind(type: ResourceType, version: ServedVersion, object: JsonObject): JsonObject {
    const apiVersion = apiVersionOf(type.group, version.name);
    if (object.kind !== undefined && object.kind !== type.kind) {
      throw badRequest(
        `the kind of the object (${object.kind}) does not match the resource (${type.kind} of ${type.plural})`,
      );
    }
    if (object.apiVersion !== undefined && object.apiVersion !== apiVersion) {
      throw badRequest(
        `the API version of the object (${object.apiVersion}) does not match the URL (${apiVersion})`,
      );
    }
    object.kind = type.kind;
    object.apiVersion = apiVersion;
    if (object.metadata !== undefined && !isObject(object.metadata)) {
      throw badRequest("metadata must be a JSON object");
    }
    return object;
  }

  #checkNamespace(type: ResourceType, namespace: string | undefined, meta: JsonObject): void {
    if (!type.namespaced) return;
    if (meta.namespace !== undefined && meta.namespace !== "" && meta.namespace !== namespace) {
      throw badRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      );
    }
  }

  #defaultsOnCreate(type: ResourceType, object: JsonObject): void {
    const key = typeKey(type.group, type.plural);
    if (key === NAMESPACES) {
      // Real namespaces carry their name as a label, for namespace selectors.
      const meta = metaOf(object);
      meta.labels = {
        ...(isObject(meta.labels) ? meta.labels : {}),
        "kubernetes.io/metadata.name": String(meta.name),
      };
      object.spec = { finalizers: ["kubernetes"], ...(isObject(object.spec) ? object.spec : {}) };
      object.status = { phase: "Active" };
    } else if (key === typeKey("", "services")) {
      this.#defaultService(object);
    } else if (key === typeKey("", "pods")) {
      object.status = { phase: "Pending", ...(isObject(object.status) ? object.status : {}) };
    } else if (key === CRDS) {
      const meta = metaOf(object);
      const finalizers = finalizersOf(object);
      if (!finalizers.includes(CRD_CLEANUP_FINALIZER)) finalizers.push(CRD_CLEANUP_FINALIZER);
      meta.finalizers = finalizers;
    }
  }

  /** Services get a type and a cluster IP of their own, as the API server allocates them. */
  #defaultService(object: JsonObject): void {
    const spec: JsonObject = { ...(isObject(object.spec) ? object.spec : {}) };
    spec.type ??= "ClusterIP";
    if (spec.type !== "ExternalName" && (spec.clusterIP === undefined || spec.clusterIP === "")) {
      const taken = new Set(
        this.store.list(typeKey("", "services")).map((s) => (s.spec as JsonObject)?.clusterIP),
      );
      let ip = "";
      for (let n = 1; !ip || taken.has(ip); n++) ip = `10.96.${(n >> 8) & 255}.${n & 255}`;
      spec.clusterIP = ip;
      spec.clusterIPs = [ip];
    }
    if (Array.isArray(spec.ports)) {
      spec.ports = spec.ports.map((p) =>
        isObject(p) ? { protocol: "TCP", targetPort: p.port ?? null, ...p } : p
      );
    }
    spec.sessionAffinity ??= "None";
    object.spec = spec;
  }

  /**
   * The checks and transformations of every write: metadata validity, schema pruning,
   * defaulting and validation (custom resources), CRD registration, size limits.
   */
  #admit(
    type: ResourceType,
    version: ServedVersion,
    object: JsonObject,
    old: JsonObject | undefined,
    options: WriteOptions,
  ): JsonObject {
    const meta = metaOf(object);
    normalizeMeta(meta);
    const name = String(meta.name ?? "");
    const causes: Cause[] = [...checkMeta(type, meta)];
    let result = object;
    if (!type.builtin && version.schema) {
      const { metadata, ...rest } = object;
      const dropped: string[] = [];
      const pruned = prune(rest, version.schema, true, dropped) as JsonObject;
      const unknown = dropped.map((field) => `unknown field "${field}"`);
      if (unknown.length && options.fieldValidation === "Strict") {
        throw badRequest(`strict decoding error: ${unknown.join(", ")}`);
      }
      if (unknown.length && options.fieldValidation !== "Ignore") {
        options.warnings?.push(...unknown);
      }
      result = applyDefaults({ ...pruned, metadata }, version.schema) as JsonObject;
      causes.push(...validate(result, version.schema));
    }
    const key = typeKey(type.group, type.plural);
    if (type.group === "admissionregistration.k8s.io") {
      causes.push(...checkWebhookConfiguration(result));
    }
    if (key === LEASES) causes.push(...checkLease(result));
    if (key === CRDS) {
      causes.push(...checkCrd(result));
      if (!causes.length) {
        const status = crdStatus(result, timestamp());
        if (old && isObject(old.status) && Array.isArray(old.status.conditions)) {
          status.conditions = old.status.conditions;
        }
        result = { ...result, status };
        const existing = this.catalog.get(
          str((result.spec as JsonObject).group) ?? "",
          str(((result.spec as JsonObject).names as JsonObject).plural) ?? "",
        );
        if (existing && !existing.crd) {
          causes.push({
            field: "spec.names.plural",
            message: `the resource ${existing.plural} of ${existing.group} is built in`,
          });
        }
      }
    }
    if (causes.length) throw invalid(type.kind, identity(type, name), causes);
    if (JSON.stringify(result).length > MAX_OBJECT_BYTES) {
      throw new ApiError(
        413,
        `the object ${name} is too large: the limit is ${MAX_OBJECT_BYTES} bytes`,
      );
    }
    return result;
  }

  #store(type: ResourceType, object: JsonObject): JsonObject {
    const stamped: JsonObject = {
      ...object,
      metadata: { ...metaOf(object), resourceVersion: String(this.store.nextResourceVersion()) },
    };
    const key = typeKey(type.group, type.plural);
    // Custom resources are kept in their storage version.
    const storage = type.versions.find((v) => v.storage) ?? type.versions[0];
    if (storage) stamped.apiVersion = apiVersionOf(type.group, storage.name);
    this.store.put(key, stamped);
    if (key === CRDS) this.register(stamped);
    return stamped;
  }

  /** Serve the resource a CRD defines (unless it is being deleted). */
  register(crd: JsonObject): void {
    const type = crdToType(crd, compareVersions);
    if (!type.versions.length) this.catalog.remove(type.group, type.plural);
    else this.catalog.put(type);
  }

  #unregister(crd: JsonObject): void {
    const spec = isObject(crd.spec) ? crd.spec : {};
    const group = str(spec.group) ?? "";
    const plural = str(isObject(spec.names) ? spec.names.plural : undefined) ?? "";
    const type = this.catalog.get(group, plural);
    if (type?.crd) {
      this.catalog.remove(group, plural);
      this.store.drop(typeKey(group, plural));
    }
  }
}
