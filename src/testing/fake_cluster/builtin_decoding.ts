/**
 * Built-in objects decoded as kube-apiserver decodes them into their Go types: a field the
 * type does not declare is dropped, wherever it is (nested, in list items), and reported
 * with the fields the JSON body repeats (`strict_json.ts`) as the request's
 * `fieldValidation` says -- `Warn` (the default): a `Warning` per field; `Strict`: the
 * write fails, worded as the handler of the request words it; `Ignore`: silently. The
 * kinds known field by field are those of `builtin_messages.ts`; the others keep every
 * field, since the fake cluster cannot tell which ones their types declare.
 *
 * Server-side apply is stricter: the field manager types the applied configuration by
 * the kind's schema, and a field the schema does not declare fails the apply whatever
 * the `fieldValidation` (`checkAppliedFields`).
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import {
  apiVersionOf,
  type ResourceType,
  type ServedVersion,
} from "../../catalog/resource_types.ts";
import { fieldElement } from "../../structs/owned_fields.ts";
import { kindMessage, type Message, messageNamed } from "./builtin_messages.ts";
import { ApiError, badRequest } from "./errors.ts";
import { pathText } from "./field_sets.ts";
import { objectShape, resolveShape, type Shape } from "./field_shapes.ts";
import { itemElement } from "./field_walks.ts";
import { metaOf } from "./metadata.ts";
import { isObject } from "./patching.ts";
import { type DuplicateField, fieldPath } from "./strict_json.ts";
import type { PatchType, WriteOptions } from "./targets.ts";

type Segment = string | number;

/** What a decoded object came from: a request's object, or a patch applied to the stored one. */
export type Decoding =
  | { readonly from: "object" }
  | { readonly from: "patch"; readonly patchType: PatchType; readonly patch: JsonValue };

/** The fields the Go types declare besides the message's: the type's own. */
const TYPE_META = new Set(["apiVersion", "kind"]);

/** The kind's message, when the tables describe its objects whole. */
function messageOf(type: ResourceType, version: ServedVersion): Message | undefined {
  return type.builtin ? kindMessage(apiVersionOf(type.group, version.name), type.kind) : undefined;
}

/** A field's value with the fields its message does not declare left out. */
function prunedField(
  value: JsonValue,
  message: Message,
  repeated: boolean,
  path: Segment[],
  unknown: Segment[][],
): JsonValue {
  if (!repeated) return isObject(value) ? pruned(value, message, path, unknown, false) : value;
  if (!Array.isArray(value)) return value;
  return value.map((item, i) =>
    isObject(item) ? pruned(item, message, [...path, i], unknown, false) : item
  );
}

/** An object of a message without the fields it does not declare; their paths go to `unknown`. */
function pruned(
  value: JsonObject,
  message: Message,
  path: Segment[],
  unknown: Segment[][],
  root: boolean,
): JsonObject {
  const result: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    const field = message.byName.get(key);
    if (field?.message) {
      result[key] = prunedField(
        v,
        messageNamed(field.type),
        field.repeated,
        [...path, key],
        unknown,
      );
    } else if (field || (root && TYPE_META.has(key))) {
      result[key] = v;
    } else {
      unknown.push([...path, key]);
    }
  }
  return result;
}

/** The object without the fields its kind does not declare, and their paths. */
function withoutUnknownFields(
  type: ResourceType,
  version: ServedVersion,
  object: JsonObject,
): { object: JsonObject; unknown: Segment[][] } {
  const message = messageOf(type, version);
  const unknown: Segment[][] = [];
  if (!message) return { object, unknown };
  return { object: pruned(object, message, [], unknown, true), unknown };
}

/** Whether a path lies at or under another. */
function under(path: string, parent: string): boolean {
  return path === parent || path.startsWith(`${parent}.`) || path.startsWith(`${parent}[`);
}

/** A value as Go's `%+v` prints a decoded JSON value (maps with sorted keys). */
function goText(value: JsonValue): string {
  if (value === null) return "<nil>";
  if (Array.isArray(value)) return `[${value.map(goText).join(" ")}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `map[${keys.map((k) => `${k}:${goText(value[k])}`).join(" ")}]`;
  }
  return String(value);
}

/**
 * The failure of a strict decoding, as each handler reports it: create and update
 * (handlers/rest.go, transformDecodeError) a 400 naming the kind; patches
 * (handlers/patch.go, jsonPatcher.applyPatchToCurrentObject and applyPatchToObject) a 422
 * whose cause shows the patched object (JSON and merge patches) or the patch as Go prints
 * it (strategic merge patches).
 */
function strictFailure(
  kind: string,
  version: string,
  object: JsonObject,
  decoding: Decoding,
  errors: readonly string[],
): ApiError {
  const strict = `strict decoding error: ${errors.join(", ")}`;
  if (decoding.from === "object") {
    return badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: ${strict}`);
  }
  const shown = decoding.patchType === "strategic"
    ? goText(decoding.patch)
    : JSON.stringify(object);
  const message = `Invalid value: ${JSON.stringify(shown)}: ${strict}`;
  return new ApiError(422, ` "" is invalid: patch: ${message}`, {
    details: { causes: [{ reason: "FieldValueInvalid", message, field: "patch" }] },
  });
}

/**
 * A built-in object as its Go type decodes it: unknown fields dropped, and reported with
 * the body's repeated fields (`options.duplicates`) per `options.fieldValidation`.
 */
export function decodeBuiltin(
  type: ResourceType,
  version: ServedVersion,
  object: JsonObject,
  options: WriteOptions,
  decoding: Decoding,
): JsonObject {
  const { object: decoded, unknown } = withoutUnknownFields(type, version, object);
  return reported(type.kind, version.name, object, decoded, unknown, options, decoding);
}

/** The fields of a `Scale` (autoscaling/v1) besides its metadata, by part. */
const SCALE_PARTS: Record<string, ReadonlySet<string>> = {
  spec: new Set(["replicas"]),
  status: new Set(["replicas", "selector"]),
};

/** A `Scale` without the fields it does not declare; their paths go to `unknown`. */
function prunedScale(scale: JsonObject, unknown: Segment[][]): JsonObject {
  const result: JsonObject = {};
  for (const [key, value] of Object.entries(scale)) {
    const part = SCALE_PARTS[key];
    if (key === "metadata" && isObject(value)) {
      result[key] = pruned(value, messageNamed("ObjectMeta"), [key], unknown, false);
    } else if (part && isObject(value)) {
      result[key] = Object.fromEntries(
        Object.entries(value).filter(([name]) => part.has(name) || !unknown.push([key, name])),
      );
    } else if (part || key === "metadata" || TYPE_META.has(key)) {
      result[key] = value;
    } else {
      unknown.push([key]);
    }
  }
  return result;
}

/**
 * A `Scale` written to a `scale` subresource, decoded as its Go type (autoscaling/v1, for
 * built-in kinds and custom resources alike) and reported as `decodeBuiltin` reports.
 */
export function decodeScale(
  scale: JsonObject,
  options: WriteOptions,
  decoding: Decoding = { from: "object" },
): JsonObject {
  const unknown: Segment[][] = [];
  const decoded = prunedScale(scale, unknown);
  return reported("Scale", "v1", scale, decoded, unknown, options, decoding);
}

function isJsonPatch(decoding: Decoding): boolean {
  return decoding.from === "patch" && decoding.patchType === "json";
}

/** The fields of a JSON patch operation. */
const OPERATION_FIELDS = new Set(["op", "path", "from", "value"]);

/**
 * The paths of the fields a JSON patch's operations do not declare: the handler decodes
 * the patch strictly into its operations first (handlers/patch.go, applyJSPatch).
 */
function unknownOperationFields(decoding: Decoding): string[] {
  if (decoding.from !== "patch" || !isJsonPatch(decoding) || !Array.isArray(decoding.patch)) {
    return [];
  }
  return decoding.patch.flatMap((operation, i) =>
    isObject(operation)
      ? Object.keys(operation).filter((k) => !OPERATION_FIELDS.has(k)).map((k) => `[${i}].${k}`)
      : []
  );
}

/** The decoded object, its unknown and repeated fields reported per `fieldValidation`. */
function reported(
  kind: string,
  version: string,
  object: JsonObject,
  decoded: JsonObject,
  unknown: Segment[][],
  options: WriteOptions,
  decoding: Decoding,
): JsonObject {
  const unknownPaths = unknown.map(fieldPath);
  // The strict decoder skips the value of a field it does not know, repeats within it too;
  // a patch's repeats are found in the patch, before it is applied to anything.
  const duplicates = (options.duplicates ?? [])
    .map((d) => d.path)
    .filter((p) => decoding.from === "patch" || !unknownPaths.some((u) => under(p, u)));
  const errors = [
    ...duplicates.map((p) => `duplicate field "${p}"`),
    ...unknownOperationFields(decoding).map((p) => `unknown field "${p}"`),
  ].map((e) => isJsonPatch(decoding) ? `json patch ${e}` : e);
  errors.push(...unknownPaths.map((p) => `unknown field "${p}"`));
  if (!errors.length || options.fieldValidation === "Ignore") return decoded;
  if (options.fieldValidation === "Strict") {
    throw strictFailure(kind, version, object, decoding, errors);
  }
  options.warnings?.push(...errors);
  return decoded;
}

/** A path as the field manager prints it: `.spec.containers[name="app"].foo`. */
function appliedPathText(shape: Shape, value: JsonValue, path: readonly Segment[]): string {
  const elements: string[] = [];
  let current: Shape = shape;
  let at: JsonValue | undefined = value;
  for (const segment of path) {
    const resolved = resolveShape(current, at);
    if (typeof segment === "string") {
      elements.push(fieldElement(segment));
      current = resolved.kind === "map" ? resolved.field(segment) ?? resolved.entries : resolved;
      at = isObject(at) ? at[segment] : undefined;
      continue;
    }
    const item: JsonValue | undefined = Array.isArray(at) ? at[segment] : undefined;
    let element = `i:${segment}`;
    if ((resolved.kind === "keyed" || resolved.kind === "set") && item !== undefined) {
      try {
        element = itemElement(resolved, item);
      } catch {
        // An item the list cannot hold is named by its index.
      }
    }
    elements.push(element);
    current = resolved.kind === "keyed" ? resolved.item : resolved;
    at = item;
  }
  return pathText(elements);
}

/**
 * A 500 when an applied configuration sets a field its built-in kind does not declare:
 * the field manager cannot type it (fieldmanager's structuredMergeManager.Apply, which
 * fails with "failed to create typed patch object"), whatever the `fieldValidation`.
 */
export function checkAppliedFields(
  type: ResourceType,
  version: ServedVersion,
  config: JsonObject,
): void {
  const { unknown } = withoutUnknownFields(type, version, config);
  if (!unknown.length) return;
  const shape = objectShape(type, version);
  const errors = unknown.map((path) =>
    `${appliedPathText(shape, config, path)}: field not declared in schema`
  );
  const meta = metaOf(config);
  const gvk = `${type.group}/${version.name}, Kind=${type.kind}`;
  const where = `${meta.namespace ?? ""}/${meta.name ?? ""}; ${gvk}`;
  const text = errors.length === 1 ? errors[0] : ["errors:", ...errors.map((e) => `  ${e}`)]
    .join("\n");
  throw new ApiError(500, `failed to create typed patch object (${where}): ${text}`, {
    reason: "",
  });
}

/**
 * The repeated fields of an applied configuration, per `fieldValidation`: the apply
 * handler reads the configuration as YAML a second time, strictly
 * (handlers/patch.go, applyPatcher.applyPatchToCurrentObject), and YAML names a repeated
 * key by its line.
 */
export function checkAppliedDuplicates(
  duplicates: readonly DuplicateField[],
  options: WriteOptions,
): void {
  if (!duplicates.length || options.fieldValidation === "Ignore") return;
  const lines = duplicates.map((d) =>
    `line ${d.line}: key ${JSON.stringify(d.key)} already set in map`
  );
  if (options.fieldValidation === "Strict") {
    throw badRequest(
      `error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  ${
        lines.join("\n  ")
      }`,
    );
  }
  options.warnings?.push(...lines);
}
