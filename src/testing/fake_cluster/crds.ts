/**
 * The status a real API server writes back to an accepted custom resource definition, and
 * the finalizer that holds a CRD until its objects are gone. Checking a CRD and turning it
 * into a resource type are in `catalog/custom_resource_definitions.ts`.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import { isObject } from "./patching.ts";

/** The finalizer that holds a CRD until its objects are gone. */
export const CRD_CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io";

function str(value: JsonValue | undefined): string {
  return typeof value === "string" ? value : "";
}

/** The status a real server gives an accepted CRD: names accepted, established. */
export function crdStatus(crd: JsonObject, now: string): JsonObject {
  const spec = crd.spec as JsonObject;
  const names = { ...(spec.names as JsonObject) };
  names.singular ??= str(names.kind).toLowerCase();
  names.listKind ??= `${str(names.kind)}List`;
  const condition = (type: string, reason: string, message: string): JsonObject => ({
    type,
    status: "True",
    lastTransitionTime: now,
    reason,
    message,
  });
  const storage = (spec.versions as JsonValue[]).filter(isObject).find((v) => v.storage === true);
  const previous = isObject(crd.status) && Array.isArray(crd.status.storedVersions)
    ? crd.status.storedVersions.map(String)
    : [];
  const stored = [...new Set([...previous, str(storage?.name)])];
  return {
    conditions: [
      condition("NamesAccepted", "NoConflicts", "no conflicts found for the names"),
      condition("Established", "InitialNamesAccepted", "the initial names have been accepted"),
    ],
    acceptedNames: names,
    storedVersions: stored,
  };
}
