/**
 * The transport of core v1 Events: creating one Event object in a namespace. What an
 * Event says (its body, the cut of long messages, the timestamps) is decided in
 * `structs/k8s_events.ts`, as Kopf writes it.
 *
 * @module
 */
import type { JsonObject } from "../structs/bodies.ts";
import { Resource } from "../structs/resources.ts";
import type { ApiClient } from "./api.ts";
import { createOnce } from "./creation.ts";

/** The core v1 `events` resource. */
export const EVENTS_RESOURCE: Resource = new Resource({
  group: "",
  version: "v1",
  plural: "events",
  kind: "Event",
  singular: "event",
  namespaced: true,
  verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
});

/**
 * Create a core v1 Event with this body in a namespace
 * (`POST /api/v1/namespaces/{namespace}/events`). Returns the created Event; rejects
 * with an API error if the server refuses it. Never posted twice: a lost reply is resolved
 * as for any create (see `creation.ts`).
 */
export async function createEvent(
  api: ApiClient,
  namespace: string,
  body: JsonObject,
  signal?: AbortSignal,
): Promise<JsonObject> {
  const path = EVENTS_RESOURCE.getUrl({ namespace });
  const request = { path, namespace, query: undefined, signal };
  return await createOnce(api, EVENTS_RESOURCE, body, request) as JsonObject;
}
