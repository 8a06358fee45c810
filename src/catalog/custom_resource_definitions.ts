/**
 * Custom resource definitions: checking a CRD the way the API server does, and turning it
 * into the resource type it serves.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../structs/bodies.ts";
import { isMapping } from "../structs/dicts.ts";
import {
  ALL_VERBS,
  type PrinterColumn,
  type ResourceType,
  type ServedVersion,
} from "./resource_types.ts";

/** A problem with one field of a CRD, as the API server reports it in a 422's causes. */
export interface FieldProblem {
  /** The dotted path of the field, e.g. `spec.group`. */
  field: string;
  /** What is wrong with it. */
  message: string;
  /** The kind of problem, e.g. `FieldValueRequired`. */
  reason?: string;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return isMapping(value);
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function str(value: JsonValue | undefined): string {
  return typeof value === "string" ? value : "";
}

/** The problems of a CRD that a real server rejects with 422 (empty when it is fine). */
export function checkCrd(crd: JsonObject): FieldProblem[] {
  const causes: FieldProblem[] = [];
  const spec = isObject(crd.spec) ? crd.spec : {};
  const names = isObject(spec.names) ? spec.names : {};
  const group = str(spec.group);
  const plural = str(names.plural);
  const name = str((crd.metadata as JsonObject | undefined)?.name);
  const need = (field: string, ok: boolean, message: string, reason = "FieldValueInvalid") => {
    if (!ok) causes.push({ field, message, reason });
  };
  need("spec.group", group !== "", "Required value", "FieldValueRequired");
  need(
    "spec.group",
    group === "" || group.includes("."),
    "should be a domain with at least one dot",
  );
  need("spec.names.plural", plural !== "", "Required value", "FieldValueRequired");
  need(
    "spec.names.plural",
    plural === "" || DNS_LABEL.test(plural),
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'",
  );
  need("spec.names.kind", str(names.kind) !== "", "Required value", "FieldValueRequired");
  if (names.singular !== undefined) {
    need(
      "spec.names.singular",
      DNS_LABEL.test(str(names.singular)),
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'",
    );
  }
  need("metadata.name", name === `${plural}.${group}`, `must be spec.names.plural+"."+spec.group`);
  need(
    "spec.scope",
    spec.scope === "Namespaced" || spec.scope === "Cluster",
    `Unsupported value: ${
      JSON.stringify(spec.scope ?? "")
    }: supported values: "Cluster", "Namespaced"`,
    "FieldValueNotSupported",
  );
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObject) : [];
  need(
    "spec.versions",
    versions.length > 0,
    "must have exactly one version marked as storage version",
    "FieldValueRequired",
  );
  if (versions.length) {
    need(
      "spec.versions",
      versions.filter((v) => v.storage === true).length === 1,
      "must have exactly one version marked as storage version",
    );
  }
  versions.forEach((v, i) => {
    need(`spec.versions[${i}].name`, DNS_LABEL.test(str(v.name)), "must be a valid DNS label");
    const schema = isObject(v.schema) ? v.schema.openAPIV3Schema : undefined;
    need(
      `spec.versions[${i}].schema.openAPIV3Schema`,
      isObject(schema),
      "Required value: schemas are required",
      "FieldValueRequired",
    );
  });
  return causes;
}

function columnsOf(version: JsonObject): PrinterColumn[] {
  const list = Array.isArray(version.additionalPrinterColumns)
    ? version.additionalPrinterColumns
    : [];
  return list.filter(isObject).map((c) => ({
    name: str(c.name),
    type: str(c.type) || "string",
    jsonPath: str(c.jsonPath),
    description: str(c.description) || undefined,
    format: str(c.format) || undefined,
    priority: typeof c.priority === "number" ? c.priority : 0,
  }));
}

/** The resource type a (valid) CRD defines, served versions only, preferred first. */
export function crdToType(
  crd: JsonObject,
  compare: (a: string, b: string) => number,
): ResourceType {
  const spec = crd.spec as JsonObject;
  const names = spec.names as JsonObject;
  const kind = str(names.kind);
  const versions: ServedVersion[] = (spec.versions as JsonValue[]).filter(isObject)
    .filter((v) => v.served !== false)
    .map((v) => {
      const subresources = isObject(v.subresources) ? v.subresources : {};
      const selectable = Array.isArray(v.selectableFields) ? v.selectableFields : [];
      return {
        name: str(v.name),
        storage: v.storage === true,
        schema: isObject(v.schema) && isObject(v.schema.openAPIV3Schema)
          ? v.schema.openAPIV3Schema
          : undefined,
        status: isObject(subresources.status),
        scale: isObject(subresources.scale)
          ? {
            specReplicasPath: str(subresources.scale.specReplicasPath),
            statusReplicasPath: str(subresources.scale.statusReplicasPath),
            labelSelectorPath: str(subresources.scale.labelSelectorPath) || undefined,
          }
          : undefined,
        columns: columnsOf(v),
        selectableFields: selectable.filter(isObject).map((f) =>
          str(f.jsonPath).replace(/^\./, "")
        ),
      };
    })
    .sort((a, b) => compare(a.name, b.name));
  const strings = (v: JsonValue | undefined) => Array.isArray(v) ? v.map(String) : [];
  return {
    group: str(spec.group),
    plural: str(names.plural),
    singular: str(names.singular) || kind.toLowerCase(),
    kind,
    listKind: str(names.listKind) || `${kind}List`,
    shortNames: strings(names.shortNames),
    categories: strings(names.categories),
    namespaced: spec.scope === "Namespaced",
    verbs: ALL_VERBS,
    versions,
    builtin: false,
    generation: true,
    crd: String((crd.metadata as JsonObject).name),
  };
}
