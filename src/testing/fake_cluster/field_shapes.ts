/**
 * The shapes of objects as server-side apply sees them: which maps are structs of named
 * fields and which are maps of entries, which lists are atomic, sets of scalars, or maps
 * keyed by fields (and by which), and what is a leaf. Built-in kinds take theirs from the
 * field tables (`builtin_messages.ts`: strategic merge keys, as kube-openapi falls back
 * to them, with the `+listMapKey` lists of two keys and `+structType`/`+mapType=atomic`
 * of the Go types); custom resources from their CRD's schema (`x-kubernetes-list-type`,
 * `x-kubernetes-list-map-keys`, `x-kubernetes-map-type`, defaults of key fields); what
 * neither describes is deduced from the value, as the API server deduces untyped fields:
 * maps of entries, atomic lists.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import {
  apiVersionOf,
  type ResourceType,
  type ServedVersion,
} from "../../catalog/resource_types.ts";
import { kindMessage, type Message, messageNamed } from "./builtin_messages.ts";
import { isObject } from "./patching.ts";

/** How a value is tracked and merged. */
export type Shape =
  | { readonly kind: "leaf" }
  | { readonly kind: "deduced" }
  | {
    readonly kind: "map";
    /** The shape of a named (struct) field, or `undefined` for a map entry. */
    field(name: string): Shape | undefined;
    /** The shape of entries that are not named fields. */
    readonly entries: Shape;
  }
  | { readonly kind: "set" }
  | {
    readonly kind: "keyed";
    /** The key fields, in the schema's order. */
    readonly keys: readonly string[];
    /** Values of key fields an item may omit. */
    readonly defaults: Readonly<Record<string, JsonValue>>;
    readonly item: Shape;
  };

type MapShape = Extract<Shape, { kind: "map" }>;

/** A leaf: a scalar, or an atomic list, map or struct (replaced as a whole). */
export const LEAF: Shape = { kind: "leaf" };
/** A value without a schema: maps of entries, atomic lists, scalar leaves. */
export const DEDUCED: Shape = {
  kind: "deduced",
};
const DEDUCED_MAP: Shape = { kind: "map", field: () => undefined, entries: DEDUCED };

/** The shape a value takes under a (possibly deduced) shape. */
export function resolveShape(shape: Shape, value: JsonValue | undefined): Shape {
  if (shape.kind !== "deduced") return shape;
  return isObject(value) ? DEDUCED_MAP : LEAF;
}

// --- built-in kinds ---

/** Lists keyed by more than their strategic merge key (`+listMapKey`), by item message. */
const LIST_MAP_KEYS: Record<string, { keys: string[]; defaults: Record<string, JsonValue> }> = {
  ContainerPort: { keys: ["containerPort", "protocol"], defaults: { protocol: "TCP" } },
  ServicePort: { keys: ["port", "protocol"], defaults: { protocol: "TCP" } },
  TopologySpreadConstraint: { keys: ["topologyKey", "whenUnsatisfiable"], defaults: {} },
};

/** Structs replaced as a whole (`+structType=atomic`). */
const ATOMIC_STRUCTS = new Set([
  "LabelSelector",
  "LocalObjectReference",
  "ObjectReference",
  "TypedLocalObjectReference",
  "TypedObjectReference",
  "ConfigMapKeySelector",
  "SecretKeySelector",
  "FileKeySelector",
  "ObjectFieldSelector",
  "ResourceFieldSelector",
  "NodeSelector",
]);

/** Maps replaced as a whole (`+mapType=atomic`), as `Message.field`. */
const ATOMIC_MAPS = new Set(["PodSpec.nodeSelector", "ServiceSpec.selector"]);

const messageShapes = new Map<string, Shape>();

/** The shape of a built-in message (cached: the tables never change). */
function messageShape(message: Message): Shape {
  const cached = messageShapes.get(message.name);
  if (cached) return cached;
  if (ATOMIC_STRUCTS.has(message.name)) return LEAF;
  const fields = new Map<string, Shape>();
  const shape: Shape = {
    kind: "map",
    field: (name) => {
      let found = fields.get(name);
      if (found === undefined) {
        const field = message.byName.get(name);
        if (!field) return undefined;
        found = fieldShape(
          message,
          name,
          field.type,
          field.message,
          field.repeated,
          field.mergeKey,
        );
        fields.set(name, found);
      }
      return found;
    },
    entries: DEDUCED,
  };
  messageShapes.set(message.name, shape);
  return shape;
}

function fieldShape(
  parent: Message,
  name: string,
  type: string,
  isMessage: boolean,
  repeated: boolean,
  mergeKey: string | undefined,
): Shape {
  if (repeated) {
    if (mergeKey === undefined) return LEAF;
    if (mergeKey === "" || !isMessage) return { kind: "set" };
    const keyed = LIST_MAP_KEYS[type] ?? { keys: [mergeKey], defaults: {} };
    return {
      kind: "keyed",
      keys: keyed.keys,
      defaults: keyed.defaults,
      item: messageShape(messageNamed(type)),
    };
  }
  if (isMessage) return messageShape(messageNamed(type));
  if (type.startsWith("map")) {
    if (ATOMIC_MAPS.has(`${parent.name}.${name}`)) return LEAF;
    return { kind: "map", field: () => undefined, entries: LEAF };
  }
  return LEAF;
}

/** The metadata of every object, whatever its kind. */
const OBJECT_META: Shape = messageShape(messageNamed("ObjectMeta"));

// --- custom resources ---

const schemaShapes = new WeakMap<JsonObject, Shape>();

/** The shape of a node of a CRD's structural schema (cached per schema object). */
export function schemaShape(schema: JsonObject | undefined): Shape {
  if (!schema) return DEDUCED;
  const cached = schemaShapes.get(schema);
  if (cached) return cached;
  const shape = computeSchemaShape(schema);
  schemaShapes.set(schema, shape);
  return shape;
}

function computeSchemaShape(schema: JsonObject): Shape {
  if (schema["x-kubernetes-int-or-string"] === true) return LEAF;
  const type = schema.type;
  if (type === "array") {
    const listType = schema["x-kubernetes-list-type"];
    const items = isObject(schema.items) ? schema.items : undefined;
    if (listType === "set") return { kind: "set" };
    if (listType === "map" && Array.isArray(schema["x-kubernetes-list-map-keys"])) {
      const keys = schema["x-kubernetes-list-map-keys"].map(String);
      const properties = isObject(items?.properties) ? items.properties : {};
      const defaults: Record<string, JsonValue> = {};
      for (const key of keys) {
        const property = properties[key];
        if (isObject(property) && property.default !== undefined) defaults[key] = property.default;
      }
      return { kind: "keyed", keys, defaults, item: schemaShape(items) };
    }
    return LEAF; // atomic: the default for lists of custom resources
  }
  const properties = isObject(schema.properties) ? schema.properties : undefined;
  const additional = schema.additionalProperties;
  const preserves = schema["x-kubernetes-preserve-unknown-fields"] === true;
  if (type === "object" || properties || additional !== undefined || preserves) {
    if (schema["x-kubernetes-map-type"] === "atomic") return LEAF;
    const entries = isObject(additional) ? schemaShape(additional) : DEDUCED;
    return {
      kind: "map",
      field: (name) =>
        properties && isObject(properties[name]) ? schemaShape(properties[name]) : undefined,
      entries,
    };
  }
  return type === undefined ? DEDUCED : LEAF;
}

/** The shape of a whole object: metadata always as `ObjectMeta`, the rest by its type. */
export function objectShape(type: ResourceType, version: ServedVersion): Shape {
  let body: Shape;
  if (type.builtin) {
    const message = kindMessage(apiVersionOf(type.group, version.name), type.kind);
    body = message ? messageShape(message) : DEDUCED_MAP;
  } else {
    body = version.schema ? schemaShape(version.schema) : DEDUCED_MAP;
  }
  const inner = (body.kind === "map" ? body : DEDUCED_MAP) as MapShape;
  return {
    kind: "map",
    field: (name) => {
      if (name === "metadata") return OBJECT_META;
      if (name === "apiVersion" || name === "kind") return LEAF;
      return inner.field(name);
    },
    entries: inner.entries,
  };
}
