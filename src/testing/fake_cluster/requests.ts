/**
 * Reading API requests: the resource path, bodies (JSON, YAML, protobuf of built-in
 * kinds), patch types, query parameters (dry run, field validation, selectors, paging,
 * deletion options).
 *
 * @module
 */
import { parse as parseYaml } from "yaml";
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import type { ResourceType } from "../../catalog/resource_types.ts";
import { ApiError, badRequest } from "./errors.ts";
import type {
  DeletionOptions,
  FieldValidation,
  ListOptions,
  PatchType,
  WriteOptions,
} from "./targets.ts";
import { isObject } from "./patching.ts";
import { decodeProtobuf } from "./protobuf.ts";
import { parseFieldSelector, parseLabelSelector } from "./selectors.ts";
import { type DuplicateField, readStrictJson } from "./strict_json.ts";

const JSON_TYPE = "application/json";
const MAX_BODY_BYTES = 3 * 1024 * 1024;

/**
 * How a write reads its JSON body: strictly, the fields it repeats going to `duplicates`,
 * and the repeats of one field merged (`mergeObjects`, as into a Go struct) or the last
 * one kept (as into a map).
 */
export interface StrictReading {
  readonly duplicates: DuplicateField[];
  readonly mergeObjects: boolean;
}

/**
 * The parsed request body: JSON, YAML, or protobuf for the built-in kinds it knows; a JSON
 * body read strictly when `strict` is given (YAML's repeated keys fail to parse).
 */
export async function bodyOf(request: Request, strict?: StrictReading): Promise<JsonValue> {
  const type = (request.headers.get("content-type") ?? JSON_TYPE).toLowerCase();
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.length > MAX_BODY_BYTES) {
    throw new ApiError(413, `the request is too large: the limit is ${MAX_BODY_BYTES} bytes`);
  }
  if (type.includes("protobuf")) return decodeProtobuf(bytes);
  if (type.includes("cbor")) {
    throw new ApiError(
      415,
      "the fake cluster reads JSON, YAML and protobuf bodies, not CBOR",
    );
  }
  const text = new TextDecoder().decode(bytes);
  if (!text.trim()) throw badRequest("the request body is empty; send a JSON object");
  try {
    if (type.includes("yaml")) return parseYamlOrJson(text, strict);
    return parseJson(text, strict);
  } catch (error) {
    throw badRequest(
      `the request body is not valid ${type.includes("yaml") ? "YAML" : "JSON"}: ${
        (error as Error).message
      }`,
    );
  }
}

/**
 * A YAML body, read as JSON when it is JSON (as the applies of kubectl and the client
 * libraries are): JSON is YAML, and the YAML parser costs many times more per request.
 */
function parseYamlOrJson(text: string, strict?: StrictReading): JsonValue {
  if (text.trimStart().startsWith("{")) {
    try {
      return parseJson(text, strict);
    } catch {
      // YAML's flow style (`{a: 1}`) is not JSON: read as YAML below.
    }
  }
  return parseYaml(text) as JsonValue;
}

/** A JSON text, read strictly when asked to. */
function parseJson(text: string, strict?: StrictReading): JsonValue {
  if (!strict) return JSON.parse(text) as JsonValue;
  const { value, duplicates } = readStrictJson(text, strict.mergeObjects);
  strict.duplicates.push(...duplicates);
  return value;
}

/** The format of a patch by its `Content-Type`: a patch type, or a server-side apply. */
export function patchTypeOf(contentType: string | null): PatchType | "apply" {
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  switch (type) {
    case "application/merge-patch+json":
      return "merge";
    case "application/json-patch+json":
      return "json";
    case "application/strategic-merge-patch+json":
      return "strategic";
    case "application/apply-patch+yaml":
      return "apply";
    case "application/apply-patch+cbor":
      throw new ApiError(
        415,
        "the fake cluster reads applied configurations in YAML or JSON (application/apply-patch+yaml), not CBOR",
      );
    default:
      throw new ApiError(
        415,
        `the body of the request was in an unknown format (${
          type || "no Content-Type"
        }) - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json`,
      );
  }
}

/** The write options of a request: dry run, field validation, a place for warnings. */
export function writeOptionsOf(params: URLSearchParams): WriteOptions {
  const validation = params.get("fieldValidation") ?? "Warn";
  if (!["Strict", "Warn", "Ignore"].includes(validation)) {
    throw badRequest(`fieldValidation must be Strict, Warn or Ignore, not "${validation}"`);
  }
  return {
    dryRun: dryRunOf(params),
    fieldValidation: validation as FieldValidation,
    warnings: [],
  };
}

/**
 * A boolean query parameter (`watch`, `allowWatchBookmarks`, `sendInitialEvents`, `force`,
 * `orphanDependents`...) as kube-apiserver decodes it: absent, or a first value of `0` or
 * `false` in any case, is false; any other value, even an empty one (`?watch`) or Python's
 * `True`, is true (apimachinery's runtime/conversion.go `Convert_Slice_string_To_bool`, and
 * pkg/apis/meta/v1/conversion.go `Convert_Slice_string_To_Pointer_bool`).
 */
export function queryFlag(params: URLSearchParams, name: string): boolean {
  const value = params.get(name);
  return value !== null && value !== "0" && value.toLowerCase() !== "false";
}

export function dryRunOf(params: URLSearchParams): boolean {
  const values = params.getAll("dryRun");
  for (const v of values) {
    if (v !== "All") throw badRequest(`unsupported dryRun value "${v}": only "All" is supported`);
  }
  return values.length > 0;
}

/** A parsed API path. */
export interface Route {
  group: string;
  version: string;
  namespace?: string;
  plural: string;
  name?: string;
  subresource?: string;
  watchPath: boolean;
}

/** What a resource path addresses, or `undefined` for a path that addresses no resource. */
export function parseResourcePath(segments: readonly string[]): Route | undefined {
  let group: string;
  let rest: readonly string[];
  let version: string;
  if (segments[0] === "api") {
    group = "";
    version = segments[1];
    rest = segments.slice(2);
  } else {
    group = segments[1];
    version = segments[2];
    rest = segments.slice(3);
  }
  let watchPath = false;
  if (rest[0] === "watch") {
    watchPath = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (
    rest[0] === "namespaces" && rest.length >= 3 &&
    !(rest.length === 3 && (rest[2] === "status" || rest[2] === "finalize"))
  ) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  if (!rest.length || rest.length > 3) return undefined;
  return {
    group,
    version,
    namespace,
    plural: rest[0],
    name: rest[1],
    subresource: rest[2],
    watchPath,
  };
}

/** The list options of a request: selectors, `limit`, `continue`. */
export function listOptionsOf(
  params: URLSearchParams,
  type: Pick<ResourceType, "kind" | "builtin" | "namespaced">,
  selectable: readonly string[],
): ListOptions {
  const limit = params.get("limit");
  if (limit !== null && !/^\d+$/.test(limit)) {
    throw badRequest(`limit must be a non-negative integer, not "${limit}"`);
  }
  return {
    labelSelector: parseLabelSelector(params.get("labelSelector")),
    fieldSelector: parseFieldSelector(params.get("fieldSelector"), selectable, type),
    limit: limit === null ? undefined : Number(limit),
    continue: params.get("continue") ?? undefined,
  };
}

/** The `DeleteOptions` of a request, from its body and query. */
export async function deleteOptionsOf(
  request: Request,
  params: URLSearchParams,
): Promise<DeletionOptions> {
  let body: JsonObject = {};
  const text = await request.text();
  if (text.trim()) {
    try {
      const parsed = JSON.parse(text);
      if (isObject(parsed)) body = parsed;
    } catch {
      throw badRequest("the DeleteOptions body is not valid JSON");
    }
  }
  const policy = params.get("propagationPolicy") ?? body.propagationPolicy ??
    (queryFlag(params, "orphanDependents") || body.orphanDependents === true
      ? "Orphan"
      : undefined);
  if (
    policy !== undefined && policy !== null &&
    !["Foreground", "Background", "Orphan"].includes(String(policy))
  ) {
    throw badRequest(
      `propagationPolicy must be Foreground, Background or Orphan, not "${policy}"`,
    );
  }
  const dryRunBody = Array.isArray(body.dryRun) ? body.dryRun.map(String) : [];
  if (dryRunBody.some((v) => v !== "All")) {
    throw badRequest('unsupported dryRun value: only "All" is supported');
  }
  const pre = isObject(body.preconditions) ? body.preconditions : {};
  return {
    propagationPolicy: (policy ?? undefined) as DeletionOptions["propagationPolicy"],
    dryRun: dryRunOf(params) || dryRunBody.length > 0,
    preconditions: {
      uid: typeof pre.uid === "string" ? pre.uid : undefined,
      resourceVersion: typeof pre.resourceVersion === "string" ? pre.resourceVersion : undefined,
    },
  };
}
