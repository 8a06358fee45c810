/**
 * Creating core v1 Events about objects, in the shape Kopf posts them (so that tools
 * and people see the same thing from either operator).
 *
 * @module
 */
import type { JsonObject, RawBody } from "../structs/bodies.ts";
import { Resource } from "../structs/resources.ts";
import type { ApiClient } from "./api.ts";

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

/** The longest message an Event can carry; longer ones are cut in the middle. */
export const MAX_EVENT_MESSAGE_LENGTH = 1024;

const CUT_MARK = "...";

/** What an Event is about, as in `involvedObject`. */
export interface ObjectReference {
  /** The object's API version, e.g. `kopf.dev/v1`. */
  apiVersion?: string;
  /** The object's kind. */
  kind?: string;
  /** The object's name. */
  name?: string;
  /** The object's namespace; cluster-scoped objects have none. */
  namespace?: string;
  /** The object's uid. */
  uid?: string;
  /** The object's resourceVersion. */
  resourceVersion?: string;
  /** A field path within the object. */
  fieldPath?: string;
}

/** What to say in an Event. */
export interface EventOptions {
  /** The object the Event is about: a reference, or the object's body. */
  involvedObject: ObjectReference | RawBody;
  /** `Normal` or `Warning` (other values pass through). */
  type: string;
  /** A short CamelCase reason, e.g. `Logging`. */
  reason: string;
  /** The message; over 1024 characters it is cut in the middle. */
  message: string;
  /** `reportingComponent` and `source.component`; `kopf` by default. */
  reportingComponent?: string;
  /** `reportingInstance`; `dev` by default, as in Kopf. */
  reportingInstance?: string;
  /** The Event's time; now by default. */
  now?: Date;
  /** Cancels the call. */
  signal?: AbortSignal;
}

/** A message cut to the Event limit: its start, `...`, and its end. */
export function cutEventMessage(message: string): string {
  if (message.length <= MAX_EVENT_MESSAGE_LENGTH) return message;
  const head = Math.floor(MAX_EVENT_MESSAGE_LENGTH / 2) - Math.floor(CUT_MARK.length / 2);
  const tail = MAX_EVENT_MESSAGE_LENGTH - head - CUT_MARK.length;
  return message.slice(0, head) + CUT_MARK + message.slice(message.length - tail);
}

function referenceOf(target: ObjectReference | RawBody): ObjectReference {
  const body = target as RawBody;
  if (body.metadata && typeof body.metadata === "object") {
    const meta = body.metadata;
    return {
      apiVersion: body.apiVersion,
      kind: body.kind,
      name: meta.name,
      namespace: meta.namespace,
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
    };
  }
  return target as ObjectReference;
}

/** Build the body of a core v1 Event (without sending it). */
export function buildEvent(options: Omit<EventOptions, "signal">): RawBody {
  const ref = referenceOf(options.involvedObject);
  const involvedObject: JsonObject = {};
  for (const [key, value] of Object.entries(ref)) {
    if (typeof value === "string") involvedObject[key] = value;
  }
  // MicroTime for eventTime needs microseconds; the other timestamps take seconds.
  const now = options.now ?? new Date();
  const seconds = now.toISOString().replace(/\.\d{3}Z$/, "Z");
  const micro = now.toISOString().replace(/Z$/, "000Z");
  const component = options.reportingComponent ?? "kopf";
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { namespace: ref.namespace || "default", generateName: "kopf-event-" },
    action: "Action",
    type: options.type,
    reason: options.reason,
    message: cutEventMessage(options.message),
    reportingComponent: component,
    reportingInstance: options.reportingInstance ?? "dev",
    source: { component },
    involvedObject,
    firstTimestamp: seconds,
    lastTimestamp: seconds,
    eventTime: micro,
    count: 1,
  };
}

/**
 * Create a core v1 Event about an object, in the object's namespace (`default` for
 * cluster-scoped objects). Returns the created Event.
 */
export async function createEvent(api: ApiClient, options: EventOptions): Promise<RawBody> {
  const body = buildEvent(options);
  const namespace = body.metadata?.namespace;
  return await api.request<RawBody>("POST", EVENTS_RESOURCE.getUrl({ namespace }), {
    body,
    signal: options.signal,
  });
}
