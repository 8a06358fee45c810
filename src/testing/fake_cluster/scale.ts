/**
 * The `scale` subresource: an `autoscaling/v1` `Scale` view of an object's replica
 * counts, at the JSONPaths its type declares.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../../structs/bodies.ts";
import type { ServedVersion } from "../../catalog/resource_types.ts";
import { metaOf } from "./metadata.ts";
import { clone, isObject } from "./patching.ts";

function pathOf(jsonPath: string): string[] {
  return jsonPath.replace(/^\./, "").split(".").filter(Boolean);
}

function getPath(object: JsonObject, jsonPath: string): JsonValue | undefined {
  let current: JsonValue | undefined = object;
  for (const key of pathOf(jsonPath)) current = isObject(current) ? current[key] : undefined;
  return current;
}

/** A copy of the object with the value at a simple JSONPath (`.spec.replicas`) set. */
export function setPath(object: JsonObject, jsonPath: string, value: JsonValue): JsonObject {
  const keys = pathOf(jsonPath);
  const root = clone(object);
  let current = root;
  for (const key of keys.slice(0, -1)) {
    if (!isObject(current[key])) current[key] = {};
    current = current[key] as JsonObject;
  }
  current[keys[keys.length - 1]] = value;
  return root;
}

/** The `autoscaling/v1` `Scale` of an object. */
export function scaleOf(version: ServedVersion, object: JsonObject): JsonObject {
  const spec = version.scale!;
  const meta = metaOf(object);
  let selector = spec.labelSelectorPath ? getPath(object, spec.labelSelectorPath) : undefined;
  if (typeof selector !== "string") {
    // Built-in workloads keep a structured selector: render its matchLabels (a
    // ReplicationController's selector is the map of labels itself).
    const match = object.kind === "ReplicationController"
      ? getPath(object, ".spec.selector")
      : getPath(object, ".spec.selector.matchLabels");
    selector = isObject(match) ? Object.entries(match).map(([k, v]) => `${k}=${v}`).join(",") : "";
  }
  const status: JsonObject = { replicas: Number(getPath(object, spec.statusReplicasPath) ?? 0) };
  if (selector) status.selector = selector;
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: {
      name: meta.name ?? "",
      ...(meta.namespace !== undefined ? { namespace: meta.namespace } : {}),
      uid: meta.uid ?? "",
      resourceVersion: meta.resourceVersion ?? "",
      creationTimestamp: meta.creationTimestamp ?? "",
    },
    spec: { replicas: Number(getPath(object, spec.specReplicasPath) ?? 0) },
    status,
  };
}
