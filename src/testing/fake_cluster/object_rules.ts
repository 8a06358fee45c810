/**
 * The rules of a real API server for the objects written to it, as functions of the
 * object: reading a body as the kind it claims (and Secrets' `stringData`), the namespace
 * it may name, the metadata an update keeps, when the spec changed (generation bumps),
 * the defaults of creation, and the checks of every write -- metadata, schema pruning,
 * defaulting and validation of custom resources, CRDs, webhook configurations, Leases,
 * Secrets, sizes.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import {
  apiVersionOf,
  type ResourceType,
  type ServedVersion,
  typeKey,
} from "../../catalog/resource_types.ts";
import { checkCrd } from "../../catalog/custom_resource_definitions.ts";
import { checkWebhookConfiguration } from "./admission.ts";
import { decodeBuiltin, type Decoding } from "./builtin_decoding.ts";
import type { Catalog } from "./catalog.ts";
import { CRD_CLEANUP_FINALIZER, crdStatus } from "./crds.ts";
import { ApiError, badRequest, type Cause, invalid, type ObjectIdentity } from "./errors.ts";
import { checkLease } from "./leases.ts";
import { checkMeta, finalizersOf, metaOf, normalizeMeta, timestamp } from "./metadata.ts";
import { goMapOrder, isObject, jsonEqual } from "./patching.ts";
import { applyDefaults, prune, validate } from "./schema.ts";
import { checkSecret, decodeSecret } from "./secrets.ts";
import type { WriteOptions } from "./targets.ts";

/** The largest object kept, like etcd's request limit. */
export const MAX_OBJECT_BYTES = 1_572_864;

export const NAMESPACES: string = typeKey("", "namespaces");
export const CRDS: string = typeKey("apiextensions.k8s.io", "customresourcedefinitions");
const LEASES = typeKey("coordination.k8s.io", "leases");
const SECRETS = typeKey("", "secrets");

/** The metadata an update keeps from the stored object, whatever the client sent. */
const SERVER_OWNED_META = [
  "uid",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "generation",
  "resourceVersion",
  "name",
  "namespace",
];

/** A string, or `undefined` for anything else. */
export function str(value: JsonValue | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The identity of an object for error messages. */
export function identity(type: ResourceType, name: string): ObjectIdentity {
  return { name, group: type.group, plural: type.plural };
}

/** Stored objects with their storage apiVersion replaced by the requested one. */
export function served(object: JsonObject, type: ResourceType, version: ServedVersion): JsonObject {
  const apiVersion = apiVersionOf(type.group, version.name);
  return object.apiVersion === apiVersion ? object : { ...object, apiVersion };
}

/**
 * An object with its members in the order kube-apiserver writes them. A custom resource is a
 * map to the encoder (apimachinery `apis/meta/v1/unstructured/helpers.go`:
 * `unstructuredJSONScheme.doEncode`, Go's `encoding/json`), whose every object's keys come
 * sorted; a built-in kind's come in its Go struct's order, which is not modelled: as written.
 */
export function inWireOrder(type: ResourceType, object: JsonObject): JsonObject {
  return type.builtin ? object : goMapOrder(object) as JsonObject;
}

/**
 * A request's body (a fresh copy) as an object of this type: kind and apiVersion checked
 * and filled in, decoded as its Go type (`builtin_decoding.ts`: unknown fields dropped and
 * reported, with repeated ones, per `fieldValidation`) and read as the server reads its
 * kind (a Secret's `stringData`).
 */
export function decodeBody(
  type: ResourceType,
  version: ServedVersion,
  given: JsonObject,
  options: WriteOptions = {},
  decoding: Decoding = { from: "object" },
): JsonObject {
  let object = given;
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
  object = decodeBuiltin(type, version, object, options, decoding);
  if (type.builtin && type.group === "" && type.plural === "secrets") decodeSecret(object);
  return object;
}

/** A 400 when the body names another namespace than the URL. */
export function checkNamespace(
  type: ResourceType,
  namespace: string | undefined,
  meta: JsonObject,
): void {
  if (!type.namespaced) return;
  if (meta.namespace !== undefined && meta.namespace !== "" && meta.namespace !== namespace) {
    throw badRequest(
      "the namespace of the provided object does not match the namespace sent on the request",
    );
  }
}

/** Metadata after a write: the client's, with the server-owned fields kept. */
export function keptMeta(old: JsonObject, given: JsonObject): JsonObject {
  const meta: JsonObject = { ...given };
  for (const field of SERVER_OWNED_META) {
    if (old[field] === undefined) delete meta[field];
    else meta[field] = old[field];
  }
  delete meta.managedFields;
  delete meta.selfLink;
  return meta;
}

/**
 * Whether a write changed what `metadata.generation` counts: of built-in objects, the spec;
 * of custom resources, all but the metadata -- and but the status when it is a subresource
 * (`statusSubresource`), as the API server counts them.
 */
export function specChanged(
  type: ResourceType,
  old: JsonObject,
  next: JsonObject,
  statusSubresource: boolean,
): boolean {
  if (type.builtin && typeKey(type.group, type.plural) !== CRDS) {
    return !jsonEqual(old.spec, next.spec) ||
      (type.plural.endsWith("webhookconfigurations") && !jsonEqual(old.webhooks, next.webhooks));
  }
  const keys = new Set([...Object.keys(old), ...Object.keys(next)]);
  for (const key of keys) {
    if (key === "metadata" || key === "apiVersion" || key === "kind") continue;
    if (key === "status" && (statusSubresource || typeKey(type.group, type.plural) === CRDS)) {
      continue;
    }
    if (!jsonEqual(old[key], next[key])) return true;
  }
  return false;
}

/** What the server fills in on a CRD's creation: its cleanup finalizer (built-ins: defaults.ts). */
export function defaultsOnCreate(type: ResourceType, object: JsonObject): void {
  if (typeKey(type.group, type.plural) === CRDS) {
    const meta = metaOf(object);
    const finalizers = finalizersOf(object);
    if (!finalizers.includes(CRD_CLEANUP_FINALIZER)) finalizers.push(CRD_CLEANUP_FINALIZER);
    meta.finalizers = finalizers;
  }
}

/** A custom resource pruned by its schema, defaulted and validated; unknown fields per options. */
function checkedBySchema(
  version: ServedVersion,
  object: JsonObject,
  options: WriteOptions,
  causes: Cause[],
): JsonObject {
  const { metadata, ...rest } = object;
  const dropped: string[] = [];
  const pruned = prune(rest, version.schema!, true, dropped) as JsonObject;
  const unknown = dropped.map((field) => `unknown field "${field}"`);
  if (unknown.length && options.fieldValidation === "Strict") {
    throw badRequest(`strict decoding error: ${unknown.join(", ")}`);
  }
  if (unknown.length && options.fieldValidation !== "Ignore") {
    options.warnings?.push(...unknown);
  }
  const result = applyDefaults({ ...pruned, metadata }, version.schema!) as JsonObject;
  causes.push(...validate(result, version.schema!));
  return result;
}

/** A CRD with its status (conditions kept from before), or the causes of its being invalid. */
function checkedCrd(
  catalog: Catalog,
  object: JsonObject,
  old: JsonObject | undefined,
  causes: Cause[],
): JsonObject {
  causes.push(...checkCrd(object));
  if (causes.length) return object;
  const status = crdStatus(object, timestamp());
  if (old && isObject(old.status) && Array.isArray(old.status.conditions)) {
    status.conditions = old.status.conditions;
  }
  const spec = object.spec as JsonObject;
  const existing = catalog.get(str(spec.group) ?? "", str((spec.names as JsonObject).plural) ?? "");
  if (existing && !existing.crd) {
    causes.push({
      field: "spec.names.plural",
      message: `the resource ${existing.plural} of ${existing.group} is built in`,
    });
  }
  return { ...object, status };
}

/**
 * The checks and transformations of every write: metadata validity, schema pruning,
 * defaulting and validation (custom resources), CRD status, size limits.
 */
export function checkWrite(
  catalog: Catalog,
  target: { type: ResourceType; version: ServedVersion },
  object: JsonObject,
  old: JsonObject | undefined,
  options: WriteOptions,
): JsonObject {
  const { type, version } = target;
  const meta = metaOf(object);
  normalizeMeta(meta);
  const name = String(meta.name ?? "");
  const causes: Cause[] = [...checkMeta(type, meta)];
  let result = object;
  if (!type.builtin && version.schema) result = checkedBySchema(version, object, options, causes);
  const key = typeKey(type.group, type.plural);
  if (type.group === "admissionregistration.k8s.io") {
    causes.push(...checkWebhookConfiguration(result));
  }
  if (key === LEASES) causes.push(...checkLease(result));
  if (key === SECRETS) causes.push(...checkSecret(result, old));
  if (key === CRDS) result = checkedCrd(catalog, result, old, causes);
  if (causes.length) throw invalid(type.kind, identity(type, name), causes);
  if (JSON.stringify(result).length > MAX_OBJECT_BYTES) {
    throw new ApiError(
      413,
      `the object ${name} is too large: the limit is ${MAX_OBJECT_BYTES} bytes`,
    );
  }
  return result;
}
