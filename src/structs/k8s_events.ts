/**
 * Kubernetes Events (core v1) as the framework writes them: the body of one event, the
 * shortening of long messages, and the timestamps.
 *
 * @module
 */
import type { JsonObject } from "./bodies.ts";
import type { ObjectReference } from "./object_refs.ts";

/** One event waiting to be posted; it keeps only the reference, not the whole object. */
export interface K8sEventRequest {
  /** The object the event is about. */
  readonly ref: ObjectReference;
  /** `Normal`, `Warning`, `Error`, or anything else. */
  readonly type: string;
  /** A short machine-readable reason, e.g. `Logging` or `Success`. */
  readonly reason: string;
  /** Free text. */
  readonly message: string;
}

/** The longest message posted; longer ones are cut in the middle. */
export const MAX_EVENT_MESSAGE_LENGTH = 1024;

/** What replaces the cut-out middle of a long message. */
export const CUT_MESSAGE_INFIX = "...";

/**
 * Shorten a message to {@link MAX_EVENT_MESSAGE_LENGTH} characters by cutting out the middle,
 * so that both the start (what happened) and the end (the latest detail) survive. Counts
 * code points, so that characters outside the BMP are never split.
 */
export function cutEventMessage(message: string): string {
  if (message.length <= MAX_EVENT_MESSAGE_LENGTH) return message; // fast path: UTF-16 >= points
  const chars = Array.from(message);
  if (chars.length <= MAX_EVENT_MESSAGE_LENGTH) return message;
  const infix = CUT_MESSAGE_INFIX;
  const half = Math.floor(MAX_EVENT_MESSAGE_LENGTH / 2);
  const head = half - Math.floor(infix.length / 2);
  const tail = half - (infix.length - Math.floor(infix.length / 2));
  return chars.slice(0, head).join("") + infix + chars.slice(chars.length - tail).join("");
}

/** A time as events carry it: UTC with microseconds and `Z`, e.g. `2020-12-31T23:59:59.123000Z`. */
export function eventTimestamp(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** The facts of an event body that do not come from the request. */
export interface EventBodyOptions {
  /** The namespace of the event: the object's, or a fallback for cluster-scoped objects. */
  readonly namespace: string;
  /** When the event happened. */
  readonly now: Date;
  /** `source.component` and `reportingComponent`, e.g. `kopf`. */
  readonly reportingComponent: string;
  /** `reportingInstance`, e.g. `dev`. */
  readonly reportingInstance: string;
  /** The `metadata.generateName` of the event, e.g. `kopf-event-`. */
  readonly generateName: string;
}

/** The body of a core v1 Event for one request, with the message cut if too long. */
export function buildEventBody(request: K8sEventRequest, options: EventBodyOptions): JsonObject {
  const time = eventTimestamp(options.now);
  const involvedObject = { ...request.ref, namespace: options.namespace } as JsonObject;
  return {
    metadata: { namespace: options.namespace, generateName: options.generateName },
    type: request.type,
    reason: request.reason,
    message: cutEventMessage(request.message),
    reportingComponent: options.reportingComponent,
    reportingInstance: options.reportingInstance,
    source: { component: options.reportingComponent },
    involvedObject,
    firstTimestamp: time,
    lastTimestamp: time,
    eventTime: time,
    count: 1,
  };
}
