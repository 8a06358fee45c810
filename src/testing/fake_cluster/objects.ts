/**
 * The API verbs on objects -- get, list, create, update, patch, delete, deletecollection --
 * with the rules of a real API server: resourceVersions and conflicts, generateName,
 * the status subresource, generation bumps, finalizers and `deletionTimestamp`,
 * dry runs, schema pruning of custom resources. The rules themselves are in
 * `object_rules.ts` and `deletion.ts`, listing in `listing.ts`. Cascades (garbage
 * collection, namespace and CRD cleanup) are left to the lifecycle controllers, run after
 * each request.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import {
  apiVersionOf,
  compareVersions,
  type ResourceType,
  typeKey,
} from "../../catalog/resource_types.ts";
import { crdToType } from "../../catalog/custom_resource_definitions.ts";
import type { Catalog } from "./catalog.ts";
import {
  checkNoNewFinalizers,
  checkPreconditions,
  markedForDeletion,
  released,
} from "./deletion.ts";
import {
  alreadyExists,
  ApiError,
  badRequest,
  conflict,
  forbidden,
  invalid,
  notFound,
} from "./errors.ts";
import { kindMessage } from "./builtin_messages.ts";
import { defaultBuiltin, keepsStatusOnCreate, prepareBuiltin } from "./defaults.ts";
import { Listings } from "./listing.ts";
import {
  GENERATE_NAME_ATTEMPTS,
  generatedName,
  metaOf,
  normalizeMeta,
  randomSuffix,
  timestamp,
} from "./metadata.ts";
import {
  checkNamespace,
  checkWrite,
  CRDS,
  decodeBody,
  defaultsOnCreate,
  identity,
  inWireOrder,
  keptMeta,
  NAMESPACES,
  served,
  specChanged,
  str,
} from "./object_rules.ts";
import { clone, isObject, jsonEqual, jsonPatch, mergePatch } from "./patching.ts";
import { scaleOf, setPath } from "./scale.ts";
import { decodeScale } from "./builtin_decoding.ts";
import { fieldContext, withManagedFields } from "./field_tracking.ts";
import { applyConfiguration, type ApplyRequest, checkConfiguration } from "./server_side_apply.ts";
import { strategicMergePatch } from "./strategic_merge_patch.ts";
import type { Store } from "./store.ts";
import { checkNoUidOnCreate, checkUidKept, checkUidPrecondition } from "./uids.ts";
import type {
  DeletionOptions,
  ListOptions,
  ListResult,
  PatchType,
  Target,
  WriteOptions,
} from "./targets.ts";

/** Fields a client may not set on creation: the server's own. */
const NOT_CREATABLE_META = [
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "managedFields",
  "selfLink",
];

const MODIFIED = "the object has been modified; please apply your changes to the latest version " +
  "and try again";

/** The verbs on objects, over a catalog and a store. */
export class Objects {
  /** The random suffixes of generated names; tests replace it to make names collide. */
  nameSuffix: () => string = randomSuffix;

  readonly #listings: Listings;

  constructor(readonly catalog: Catalog, readonly store: Store) {
    this.#listings = new Listings(store);
  }

  /** The stored object, or a 404. */
  get(target: Target): JsonObject {
    const object = this.#existing(target);
    if (target.subresource === "scale") return scaleOf(target.version, object);
    return served(object, target.type, target.version);
  }

  /** A page of the objects matching the selectors, of one snapshot per listing. */
  list(target: Target, options: ListOptions = {}): ListResult {
    return this.#listings.list(target, options);
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
    const object = decodeBody(type, version, clone(body), options);
    const meta = { ...metaOf(object) };
    object.metadata = meta;
    checkNamespace(type, target.namespace, meta);
    const name = this.#nameOf(target, meta);
    this.#checkCreatable(target, name);
    const givenFields = meta.managedFields;
    for (const field of NOT_CREATABLE_META) delete meta[field];
    meta.uid = options.uid ?? crypto.randomUUID();
    meta.creationTimestamp = timestamp();
    if (type.generation) meta.generation = 1;
    else delete meta.generation;
    if (target.namespace !== undefined) meta.namespace = target.namespace;
    else delete meta.namespace;
    if (version.status && !keepsStatusOnCreate(type)) delete object.status;
    defaultsOnCreate(type, object);
    defaultBuiltin(type, object);
    const checked = checkWrite(this.catalog, target, object, undefined, options);
    const result = withManagedFields(target, undefined, checked, givenFields, options);
    prepareBuiltin(type, result, { store: this.store });
    if (options.dryRun) return served(inWireOrder(type, result), type, version);
    return served(this.#store(type, result), type, version);
  }

  /** The name of a new object: its own, or one generated from `generateName`. */
  #nameOf(target: Target, meta: JsonObject): string {
    const { type } = target;
    if (!meta.name && typeof meta.generateName === "string" && meta.generateName) {
      // As API servers since 1.31: a generated name that is taken is generated anew, up
      // to 8 names in all; only then is the create refused as AlreadyExists.
      const key = typeKey(type.group, type.plural);
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
    return name;
  }

  /** Refuse a create into a missing or terminating namespace, of a taken name, or of a CRD going. */
  #checkCreatable(target: Target, name: string): void {
    const { type, namespace } = target;
    if (namespace !== undefined) {
      const ns = this.store.get(NAMESPACES, "", namespace);
      if (!ns) throw notFound({ name: namespace, group: "", plural: "namespaces" });
      if (metaOf(ns).deletionTimestamp) {
        throw forbidden(
          identity(type, name),
          `unable to create new content in namespace ${namespace} because it is being terminated`,
        );
      }
    }
    if (this.store.get(typeKey(type.group, type.plural), namespace ?? "", name)) {
      throw alreadyExists(identity(type, name));
    }
    if (type.crd && metaOf(this.store.get(CRDS, "", type.crd) ?? {}).deletionTimestamp) {
      throw new ApiError(
        405,
        `create not allowed while custom resource definition ${type.crd} is terminating`,
      );
    }
  }

  /** Replace an object (PUT), or its status with the `status` subresource. */
  update(target: Target, body: JsonValue, options: WriteOptions = {}): JsonObject {
    const { type, version } = target;
    if (!isObject(body)) throw badRequest("the request body must be a JSON object");
    if (target.subresource === "scale") {
      return this.#scale(target, decodeScale(body, options), options);
    }
    const incoming = decodeBody(type, version, clone(body), options);
    const name = target.name ?? "";
    const bodyName = str(metaOf(incoming).name);
    if (bodyName !== undefined && bodyName !== name) {
      throw badRequest(
        `the name of the object (${bodyName}) does not match the name on the URL (${name})`,
      );
    }
    checkNamespace(type, target.namespace, metaOf(incoming));
    const old = this.#existing(target);
    // The body's uid is a precondition, checked before anything else is.
    checkUidPrecondition(type, old, str(metaOf(incoming).uid));
    // Custom resources and Leases allow no unconditional updates: a PUT must name its
    // version (their strategies' AllowUnconditionalUpdate; store.go words the error with
    // the resource, not the kind).
    if (!allowsUnconditionalUpdate(type) && !str(metaOf(incoming).resourceVersion)) {
      throw invalid(qualified(type), identity(type, name), [{
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
    if (scaling) {
      return this.#scale(
        target,
        decodeScale(patched, options, { from: "patch", patchType, patch }),
        options,
      );
    }
    const incoming = decodeBody(type, version, patched, options, {
      from: "patch",
      patchType,
      patch,
    });
    const meta = metaOf(incoming);
    if (
      meta.name !== metaOf(old).name || (meta.namespace ?? "") !== (metaOf(old).namespace ?? "")
    ) {
      throw badRequest("the patch may not change the object's name or namespace");
    }
    checkUidKept(target, old, incoming);
    return this.#write(target, old, incoming, options);
  }

  /**
   * What a server-side apply of this configuration would write (`metadata.managedFields`
   * included), and whether the object exists; throws its conflicts (409) and bad input.
   */
  applied(
    target: Target,
    config: JsonValue,
    request: ApplyRequest,
  ): { body: JsonObject; exists: boolean } {
    const { type, version } = target;
    const applied = checkConfiguration(target, config);
    const name = target.name ?? "";
    const live = this.store.get(typeKey(type.group, type.plural), target.namespace ?? "", name);
    // The status of a missing object cannot be applied: only the object itself is created.
    if (!live && target.subresource) throw notFound(identity(type, name));
    const current = live ? served(live, type, version) : undefined;
    const body = applyConfiguration(fieldContext(target), current, applied, request);
    if (live) checkUidKept(target, live, body);
    else checkNoUidOnCreate(type, name, body);
    const bodyName = str(metaOf(body).name) ?? "";
    if (bodyName !== name) {
      throw badRequest(
        `the name of the object (${bodyName}) does not match the name on the URL (${name})`,
      );
    }
    checkNamespace(type, target.namespace, metaOf(body));
    return { body, exists: !!live };
  }

  /** Server-side apply: create or update the object to the configuration's intent. */
  apply(
    target: Target,
    config: JsonValue,
    request: ApplyRequest,
    options: WriteOptions = {},
  ): { object: JsonObject; created: boolean } {
    const { body, exists } = this.applied(target, config, request);
    const written = { ...options, appliedFields: true };
    if (!exists) return { object: this.create(target, body, written), created: true };
    return { object: this.update(target, body, written), created: false };
  }

  /**
   * Delete an object: at once when nothing holds it, else mark it with
   * `deletionTimestamp` and keep it until its finalizers are gone. Returns the object
   * while it is kept, `undefined` once it is gone.
   */
  delete(target: Target, options: DeletionOptions = {}): { object: JsonObject; gone: boolean } {
    const { type, version } = target;
    const old = this.#existing(target);
    checkPreconditions(type, old, options);
    const marked = markedForDeletion(type, old, options);
    if (marked === undefined) {
      if (options.dryRun) return { object: served(old, type, version), gone: true };
      return { object: served(this.#remove(type, old), type, version), gone: true };
    }
    if (marked === old || options.dryRun) {
      return { object: served(inWireOrder(type, marked), type, version), gone: false };
    }
    return { object: served(this.#store(type, marked), type, version), gone: false };
  }

  /** Delete every object matching the selectors; returns the objects as deleted/marked. */
  deleteCollection(target: Target, list: ListOptions, options: DeletionOptions = {}): JsonObject[] {
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
    if (released(type, next)) this.#remove(type, next);
    else this.#store(type, next);
  }

  /** Set the replicas from a `Scale` (the `scale` subresource); returns the new `Scale`. */
  #scale(target: Target, scale: JsonObject, options: WriteOptions): JsonObject {
    const { type, version } = target;
    const old = this.#existing(target);
    const given = isObject(scale.metadata) ? scale.metadata : {};
    if (given.resourceVersion && given.resourceVersion !== metaOf(old).resourceVersion) {
      throw conflict(identity(type, String(metaOf(old).name)), MODIFIED);
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

  /** The stored object, or a 404. */
  #existing(target: Target): JsonObject {
    const { type } = target;
    const name = target.name ?? "";
    const old = this.store.get(typeKey(type.group, type.plural), target.namespace ?? "", name);
    if (!old) throw notFound(identity(type, name));
    return old;
  }

  /** The object a write makes of the stored one: its status, or all but its status. */
  #nextOf(target: Target, old: JsonObject, incoming: JsonObject): JsonObject {
    const oldMeta = metaOf(old);
    let next: JsonObject;
    if (target.subresource === "status") {
      next = { ...old, metadata: oldMeta };
      if (incoming.status === undefined) delete next.status;
      else next.status = incoming.status;
    } else if (target.subresource) {
      throw new ApiError(
        404,
        `the server could not find the requested resource (${target.subresource} of ${target.type.plural})`,
      );
    } else {
      next = { ...incoming };
      if (target.version.status) {
        if (old.status === undefined) delete next.status;
        else next.status = old.status;
      }
      next.metadata = keptMeta(oldMeta, metaOf(incoming));
    }
    next.apiVersion = old.apiVersion ?? next.apiVersion;
    return next;
  }

  /** The update path shared by PUT and PATCH, on the object or its status. */
  #write(target: Target, old: JsonObject, incoming: JsonObject, options: WriteOptions): JsonObject {
    const { type, version } = target;
    const oldMeta = metaOf(old);
    const givenRv = str(metaOf(incoming).resourceVersion);
    if (givenRv !== undefined && givenRv !== "" && givenRv !== oldMeta.resourceVersion) {
      throw conflict(identity(type, String(oldMeta.name)), MODIFIED);
    }
    const givenFields = metaOf(incoming).managedFields;
    let next = this.#nextOf(target, old, incoming);
    defaultBuiltin(type, next);
    checkNoNewFinalizers(type, old, next);
    next = checkWrite(this.catalog, target, next, old, options);
    if (type.generation && specChanged(type, old, next, version.status)) {
      metaOf(next).generation = Number(oldMeta.generation ?? 0) + 1;
    }
    next = withManagedFields(target, old, next, givenFields, options);
    prepareBuiltin(type, next, { store: this.store, old });
    // A write that changes nothing is not a change: no new resourceVersion, no event.
    if (jsonEqual(next, old)) return served(old, type, version);
    if (options.dryRun) return served(inWireOrder(type, next), type, version);
    if (released(type, next)) return served(this.#remove(type, next), type, version);
    return served(this.#store(type, next), type, version);
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
    // Stored as it is written to clients: every answer, listing and event of it in that order.
    const stored = inWireOrder(type, stamped);
    this.store.put(key, stored);
    if (key === CRDS) this.register(stored);
    return stored;
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

/**
 * Whether a PUT may leave out the resourceVersion: the strategies of built-ins say so, but
 * for Leases (pkg/registry/coordination/lease/strategy.go) and custom resources.
 */
function allowsUnconditionalUpdate(type: ResourceType): boolean {
  return !type.crd && !(type.group === "coordination.k8s.io" && type.plural === "leases");
}

/** A resource as apimachinery's `GroupResource.String()` spells it: `plural.group`. */
function qualified(type: ResourceType): string {
  return type.group ? `${type.plural}.${type.group}` : type.plural;
}
