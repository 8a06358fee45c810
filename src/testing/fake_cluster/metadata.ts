/**
 * Object metadata as the API server treats it: validity of names, labels, annotations
 * and finalizers, empty fields dropped, timestamps, generated name suffixes.
 *
 * @module
 */
import type { JsonObject } from "../../structs/bodies.ts";
import { type ResourceType, typeKey } from "../../catalog/resource_types.ts";
import type { Cause } from "./errors.ts";
import { isObject } from "./patching.ts";

const NAMESPACES = typeKey("", "namespaces");
const SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** A label value (empty, or alphanumerics with `-`, `_`, `.` inside). */
export const LABEL_VALUE: RegExp = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;
/** The name part of a qualified name (a label key, an annotation key, a finalizer). */
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
/** What a name part that is not one breaks, in kube-apiserver's words. */
const QUALIFIED_NAME_RULE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const DNS_SUBDOMAIN_RULE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}

/**
 * Why a value is not a qualified name -- an optional DNS subdomain prefix and `/`, then a
 * name of at most 63 bytes -- as apimachinery's `content.IsLabelKey` (alias
 * `validation.IsQualifiedName`) words it; empty when it is one. Label keys, annotation
 * keys (lowercased first) and finalizers are checked with it.
 */
export function qualifiedNameErrors(value: string): string[] {
  const parts = value.split("/");
  if (parts.length > 2) {
    return [
      `a valid label key ${QUALIFIED_NAME_RULE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  const errors: string[] = [];
  const name = parts[parts.length - 1];
  if (parts.length === 2) {
    const prefix = parts[0];
    if (!prefix) errors.push("prefix part must be non-empty");
    else {
      if (byteLength(prefix) > 253) errors.push("prefix part must be no more than 253 bytes");
      if (!DNS_SUBDOMAIN.test(prefix)) errors.push(`prefix part ${DNS_SUBDOMAIN_RULE}`);
    }
  }
  if (!name) errors.push("name part must be non-empty");
  else if (byteLength(name) > 63) errors.push("name part must be no more than 63 bytes");
  if (!QUALIFIED_NAME.test(name)) errors.push(`name part ${QUALIFIED_NAME_RULE}`);
  return errors;
}

/** A key's problems as causes of a 422, one per message, as `field.Invalid` prints them. */
function keyCauses(field: string, key: string, errors: readonly string[]): Cause[] {
  return errors.map((message) => ({
    field,
    message: `Invalid value: ${JSON.stringify(key)}: ${message}`,
  }));
}

/** RFC 3339 time with seconds precision, as Kubernetes writes timestamps. */
export function timestamp(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d+Z$/, "Z");
}

/** The object's metadata (an empty object when it has none). */
export function metaOf(object: JsonObject): JsonObject {
  return isObject(object.metadata) ? object.metadata : {};
}

/** The object's finalizers (a fresh array). */
export function finalizersOf(object: JsonObject): string[] {
  const list = metaOf(object).finalizers;
  return Array.isArray(list) ? list.map(String) : [];
}

/** Empty lists and maps vanish from metadata, as the API server's `omitempty` does. */
export function normalizeMeta(meta: JsonObject): JsonObject {
  for (const key of ["labels", "annotations", "finalizers", "ownerReferences"]) {
    const value = meta[key];
    if (
      value === null || (Array.isArray(value) && !value.length) ||
      (isObject(value) && !Object.keys(value).length)
    ) {
      delete meta[key];
    }
  }
  return meta;
}

/** Problems of the metadata, as a real server reports them. */
export function checkMeta(type: ResourceType, meta: JsonObject): Cause[] {
  const causes: Cause[] = [];
  const name = String(meta.name ?? "");
  const key = typeKey(type.group, type.plural);
  if (key === NAMESPACES) {
    if (!DNS_LABEL.test(name) || name.length > 63) {
      causes.push({
        field: "metadata.name",
        message:
          `Invalid value: "${name}": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character`,
      });
    }
  } else if (type.group === "rbac.authorization.k8s.io") {
    if (!name || name === "." || name === ".." || /[/%]/.test(name)) {
      causes.push({
        field: "metadata.name",
        message: `Invalid value: "${name}": may not contain '/' or '%'`,
      });
    }
  } else if (!DNS_SUBDOMAIN.test(name) || name.length > 253) {
    causes.push({
      field: "metadata.name",
      message:
        `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
    });
  }
  const labels = meta.labels;
  if (labels !== undefined && labels !== null) {
    if (!isObject(labels)) {
      causes.push({ field: "metadata.labels", message: "must be a map of strings" });
    } else {
      for (const [k, v] of Object.entries(labels)) {
        causes.push(...keyCauses("metadata.labels", k, qualifiedNameErrors(k)));
        if (typeof v !== "string" || !LABEL_VALUE.test(v) || v.length > 63) {
          causes.push({
            field: "metadata.labels",
            message: `Invalid value: ${
              JSON.stringify(v)
            }: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', at most 63 characters`,
          });
        }
      }
    }
  }
  const annotations = meta.annotations;
  if (annotations !== undefined && annotations !== null) {
    if (!isObject(annotations)) {
      causes.push({ field: "metadata.annotations", message: "must be a map of strings" });
    } else {
      let size = 0;
      for (const [k, v] of Object.entries(annotations)) {
        size += k.length + (typeof v === "string" ? v.length : 0);
        // As ValidateAnnotations: the case of an annotation key does not matter.
        causes.push(
          ...keyCauses("metadata.annotations", k, qualifiedNameErrors(k.toLowerCase())),
        );
        if (typeof v !== "string") {
          causes.push({
            field: `metadata.annotations.${k}`,
            message: `Invalid value: ${JSON.stringify(v)}: must be a string`,
          });
        }
      }
      if (size > 262144) {
        causes.push({
          field: "metadata.annotations",
          reason: "FieldValueTooLong",
          message: "Too long: must have at most 262144 bytes",
        });
      }
    }
  }
  causes.push(...ownerReferenceCauses(meta.ownerReferences));
  causes.push(...finalizerCauses(meta.finalizers));
  return causes;
}

/** The version of an `apiVersion`, as `schema.ParseGroupVersion` reads it (`""` if none). */
function versionOf(apiVersion: string): string {
  const parts = apiVersion.split("/");
  if (parts.length === 1) return apiVersion;
  return parts.length === 2 ? parts[1] : "";
}

/**
 * Problems of `metadata.ownerReferences`, as apimachinery's `ValidateOwnerReferences`
 * finds them: each names a version, a kind, a name and a uid, none is a core Event, and at
 * most one is the controller. (kube-apiserver prints the references of the last as a Go value; they are
 * printed as JSON here.)
 */
function ownerReferenceCauses(refs: unknown): Cause[] {
  const field = "metadata.ownerReferences";
  if (!Array.isArray(refs)) return [];
  const causes: Cause[] = [];
  let controller = "";
  for (const ref of refs) {
    const r = isObject(ref) ? ref : {};
    const text = (key: string) => typeof r[key] === "string" ? r[key] as string : "";
    const empty = (key: string, message: string) =>
      causes.push({ field: `${field}.${key}`, message: `Invalid value: "": ${message}` });
    if (!versionOf(text("apiVersion"))) {
      causes.push({
        field: `${field}.apiVersion`,
        message: `Invalid value: ${JSON.stringify(text("apiVersion"))}: version must not be empty`,
      });
    }
    if (!text("kind")) empty("kind", "must not be empty");
    if (!text("name")) empty("name", "must not be empty");
    if (!text("uid")) empty("uid", "must not be empty");
    // objectmeta.go's BannedOwners: an Event of the core group owns nothing.
    if (text("apiVersion") === "v1" && text("kind") === "Event") {
      causes.push({
        field,
        message: `Invalid value: ${JSON.stringify(r)}: /v1, Kind=Event is disallowed from ` +
          "being an owner",
      });
    }
    if (r.controller !== true) continue;
    const current = `${text("kind")}/${text("name")}`;
    if (!controller) controller = current;
    else {
      causes.push({
        field,
        message: `Invalid value: ${
          JSON.stringify(refs)
        }: Only one reference can have Controller set to true. Found "true" in references for ${controller} and ${current}`,
      });
    }
  }
  return causes;
}

/**
 * Problems of `metadata.finalizers`, as apimachinery's `ValidateFinalizers` finds them:
 * each a qualified name, and not both `orphan` and `foregroundDeletion` (a deletion can
 * orphan the dependents or wait for them, not both).
 */
function finalizerCauses(finalizers: unknown): Cause[] {
  const field = "metadata.finalizers";
  if (finalizers === undefined || finalizers === null) return [];
  if (!Array.isArray(finalizers) || finalizers.some((f) => typeof f !== "string")) {
    return [{ field, message: "must be a list of strings" }];
  }
  const names = finalizers as string[];
  const causes = names.flatMap((name) => keyCauses(field, name, qualifiedNameErrors(name)));
  if (names.includes("orphan") && names.includes("foregroundDeletion")) {
    causes.push({
      field,
      message: `Invalid value: []string{${
        names.map((name) => JSON.stringify(name)).join(", ")
      }}: finalizer orphan and foregroundDeletion cannot be both set`,
    });
  }
  return causes;
}

/** How long a generated name's prefix may be: 63 characters minus the random suffix. */
export const MAX_GENERATED_PREFIX_LENGTH = 58;

/**
 * How many names a create with `generateName` tries before answering 409 AlreadyExists:
 * API servers since 1.31 (RetryGenerateName, GA in 1.32) try 8 generated names in all.
 */
export const GENERATE_NAME_ATTEMPTS = 8;

/**
 * Five random characters for `generateName`, from the alphabet the API server uses: each
 * drawn uniformly from crypto-random bytes (bytes above the largest multiple of the
 * alphabet's size are drawn again, so that no character is more likely than another).
 */
export function randomSuffix(): string {
  const size = SUFFIX_ALPHABET.length;
  const limit = 256 - (256 % size);
  let suffix = "";
  while (suffix.length < 5) {
    for (const byte of crypto.getRandomValues(new Uint8Array(8))) {
      if (byte < limit && suffix.length < 5) suffix += SUFFIX_ALPHABET[byte % size];
    }
  }
  return suffix;
}

/** A name for `generateName`: the prefix (cut to 58 characters) and a random suffix. */
export function generatedName(prefix: string, suffix: () => string = randomSuffix): string {
  return prefix.slice(0, MAX_GENERATED_PREFIX_LENGTH) + suffix();
}
