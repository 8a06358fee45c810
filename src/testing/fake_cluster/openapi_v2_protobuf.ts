/**
 * The swagger 2.0 document in the protobuf form kubectl asks `/openapi/v2` for: gnostic's
 * `openapi.v2.Document`, field numbers from its OpenAPIv2.proto. Only what the fake
 * cluster's documents use is encoded: info, paths with their operations (query, path and
 * body parameters, responses), definitions with the schema keywords CRDs use, and
 * `x-...` vendor extensions, which travel as YAML text (written as JSON, a subset of YAML).
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import { isObject } from "./patching.ts";
import { ProtobufWriter } from "./protobuf_wire.ts";

/**
 * The media type of this encoding in responses: kubectl asks for
 * `application/com.github.proto-openapi.spec.v2@v1.0+protobuf`, but Go's MIME parser
 * refuses `@` in a content type, so kube-apiserver answers with this dotted spelling.
 */
export const OPENAPI_V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

const W = () => new ProtobufWriter();

/** `Any { yaml = 2 }`: gnostic keeps free-form values as YAML text, and JSON is YAML. */
function any(value: JsonValue): ProtobufWriter {
  return W().string(2, JSON.stringify(value));
}

/** Vendor extensions (`x-...` keys) as `NamedAny { name = 1, value = 2 }` at `field`. */
function extensions(w: ProtobufWriter, field: number, object: JsonObject): void {
  for (const [key, value] of Object.entries(object)) {
    if (key.startsWith("x-")) w.message(field, W().string(1, key).message(2, any(value)));
  }
}

function strings(w: ProtobufWriter, field: number, value: JsonValue | undefined): void {
  if (Array.isArray(value)) { for (const v of value) w.string(field, String(v)); }
}

/** A JSON schema as gnostic's `Schema`. */
function encodeSchema(schema: JsonObject): ProtobufWriter {
  const w = W();
  const str = (field: number, key: string) => {
    if (typeof schema[key] === "string") w.string(field, schema[key] as string);
  };
  const num = (field: number, key: string) => {
    if (typeof schema[key] === "number") w.double(field, schema[key] as number);
  };
  const int = (field: number, key: string) => {
    if (typeof schema[key] === "number") w.int(field, schema[key] as number);
  };
  const bool = (field: number, key: string) => {
    if (schema[key] === true) w.bool(field, true);
  };
  str(1, "$ref");
  str(2, "format");
  str(3, "title");
  str(4, "description");
  if (schema.default !== undefined) w.message(5, any(schema.default));
  num(6, "multipleOf");
  num(7, "maximum");
  bool(8, "exclusiveMaximum");
  num(9, "minimum");
  bool(10, "exclusiveMinimum");
  int(11, "maxLength");
  int(12, "minLength");
  str(13, "pattern");
  int(14, "maxItems");
  int(15, "minItems");
  bool(16, "uniqueItems");
  int(17, "maxProperties");
  int(18, "minProperties");
  strings(w, 19, schema.required);
  if (Array.isArray(schema.enum)) { for (const v of schema.enum) w.message(20, any(v)); }
  const additional = schema.additionalProperties;
  if (isObject(additional)) w.message(21, W().message(1, encodeSchema(additional)));
  else if (typeof additional === "boolean") w.message(21, W().bool(2, additional));
  if (typeof schema.type === "string") w.message(22, W().string(1, schema.type));
  const items = schema.items;
  if (isObject(items)) w.message(23, W().message(1, encodeSchema(items)));
  if (Array.isArray(schema.allOf)) {
    for (const s of schema.allOf) if (isObject(s)) w.message(24, encodeSchema(s));
  }
  if (isObject(schema.properties)) {
    const properties = W();
    for (const [name, s] of Object.entries(schema.properties)) {
      if (isObject(s)) properties.message(1, W().string(1, name).message(2, encodeSchema(s)));
    }
    w.message(25, properties);
  }
  bool(27, "readOnly");
  extensions(w, 31, schema);
  return w;
}

/** A parameter as gnostic's `ParametersItem { parameter = 1 }`. */
function encodeParameter(parameter: JsonObject): ProtobufWriter {
  let inner: ProtobufWriter;
  const where = String(parameter.in ?? "");
  if (where === "body") {
    inner = W().message(
      1,
      W().string(2, String(parameter.name ?? "")).string(3, "body").bool(4, true).message(
        5,
        encodeSchema(isObject(parameter.schema) ? parameter.schema : {}),
      ),
    );
  } else {
    // NonBodyParameter: query_parameter_sub_schema = 3, path_parameter_sub_schema = 4.
    const sub = W();
    if (parameter.required === true) sub.bool(1, true);
    sub.string(2, where).string(4, String(parameter.name ?? ""));
    if (where === "path") sub.string(5, String(parameter.type ?? "string"));
    else {
      sub.string(6, String(parameter.type ?? "string"));
      if (parameter.uniqueItems === true) sub.bool(20, true);
    }
    inner = W().message(2, W().message(where === "path" ? 4 : 3, sub));
  }
  return W().message(1, inner);
}

function encodeOperation(operation: JsonObject): ProtobufWriter {
  const w = W();
  if (typeof operation.description === "string") w.string(3, operation.description);
  if (typeof operation.operationId === "string") w.string(5, operation.operationId);
  strings(w, 6, operation.produces);
  strings(w, 7, operation.consumes);
  if (Array.isArray(operation.parameters)) {
    for (const p of operation.parameters) if (isObject(p)) w.message(8, encodeParameter(p));
  }
  if (isObject(operation.responses)) {
    const responses = W();
    for (const [code, response] of Object.entries(operation.responses)) {
      if (!isObject(response)) continue;
      const r = W().string(1, String(response.description ?? ""));
      if (isObject(response.schema)) r.message(2, W().message(1, encodeSchema(response.schema)));
      responses.message(1, W().string(1, code).message(2, W().message(1, r)));
    }
    w.message(9, responses);
  }
  strings(w, 10, operation.schemes);
  extensions(w, 13, operation);
  return w;
}

const OPERATIONS: Record<string, number> = { get: 2, put: 3, post: 4, delete: 5, patch: 8 };

function encodePathItem(item: JsonObject): ProtobufWriter {
  const w = W();
  for (const [method, field] of Object.entries(OPERATIONS)) {
    if (isObject(item[method])) w.message(field, encodeOperation(item[method] as JsonObject));
  }
  if (Array.isArray(item.parameters)) {
    for (const p of item.parameters) if (isObject(p)) w.message(9, encodeParameter(p));
  }
  extensions(w, 10, item);
  return w;
}

/** Encode a swagger 2.0 document (as `openApiV2Document` makes it) as gnostic protobuf. */
export function encodeOpenApiV2(document: JsonObject): Uint8Array<ArrayBuffer> {
  const w = W().string(1, String(document.swagger ?? "2.0"));
  const info = isObject(document.info) ? document.info : {};
  w.message(2, W().string(1, String(info.title ?? "")).string(2, String(info.version ?? "")));
  const paths = W();
  for (const [path, item] of Object.entries(isObject(document.paths) ? document.paths : {})) {
    if (isObject(item)) paths.message(2, W().string(1, path).message(2, encodePathItem(item)));
  }
  w.message(8, paths);
  const definitions = W();
  const defs = isObject(document.definitions) ? document.definitions : {};
  for (const [name, schema] of Object.entries(defs)) {
    if (isObject(schema)) {
      definitions.message(1, W().string(1, name).message(2, encodeSchema(schema)));
    }
  }
  w.message(9, definitions);
  return w.finish();
}
