/**
 * States queued by their identity and version alone, their bodies parsed only if they are
 * processed: the live `MODIFIED` events of objects that have a worker already. Most are the
 * echoes of the operator's own writes, which come while the processing that wrote them still
 * runs and are then passed by without a look at their bodies; a state that a later one
 * replaces before it is processed is never parsed either. One that is processed is parsed
 * when it is taken for processing (see {@link wholeEvent}), as it would have been on arrival.
 *
 * @module
 */

import type { ObjectEvent, ObservedEvent, RawBody } from "../../structs/bodies.ts";
import type { ObjectVersion } from "../../client/watch.ts";
import { parseJsonLine } from "../../client/json_lines.ts";

/** The watch event's text of each deferred state's stand-in body. */
const texts = new WeakMap<RawBody, string>();

/**
 * A `MODIFIED` state known by its identity and version: its body, until parsed, holds only
 * `metadata.namespace`, `uid` and `resourceVersion` (what the queueing reads of a state it
 * holds); `text` is the watch event's line, parsed by {@link wholeEvent}.
 */
export function deferredEvent(version: ObjectVersion, text: string): ObjectEvent {
  const { namespace, uid, resourceVersion } = version;
  const object: RawBody = {
    metadata: namespace === undefined
      ? { uid, resourceVersion }
      : { namespace, uid, resourceVersion },
  };
  texts.set(object, text);
  return { type: "MODIFIED", object };
}

/**
 * The event with its whole body: a deferred state's parsed from its text (see the module
 * docs), any other as it is. A text that is not the event it was taken for -- not JSON, or
 * of another object or version -- throws, naming the object.
 */
export function wholeEvent(event: ObservedEvent): ObservedEvent {
  const text = texts.get(event.object);
  if (text === undefined) return event;
  const meta = event.object.metadata;
  const parsed = parseJsonLine(text) as { type?: unknown; object?: RawBody };
  const object = parsed?.object;
  if (
    parsed?.type !== "MODIFIED" || typeof object !== "object" || object === null ||
    object.metadata?.uid !== meta?.uid ||
    object.metadata?.resourceVersion !== meta?.resourceVersion
  ) {
    throw new SyntaxError(
      `The watch event of the object ${meta?.uid} at ${meta?.resourceVersion} is not as its ` +
        "first bytes said: another type, object or version.",
    );
  }
  return { type: "MODIFIED", object };
}
