/**
 * Who hears of the objects made in a flow of calls: each creation (`createObject`) and each
 * server-side apply (`applyObject`, `kopf.apply()`) tells the listener set for its flow of
 * the object as the server answered it. An operator with child handlers listens in all of
 * its flows, so that a child its handlers made is known from that answer on, as if its
 * watch had told of it: deleted before a watch of children shows it (which cannot list, or
 * has not yet), its deletion still shows in the next complete listing. The listener is the
 * caller's own and is called synchronously; it must not throw.
 *
 * @module
 */
import type { RawBody } from "../structs/bodies.ts";
import type { Resource } from "../structs/resources.ts";
import { AsyncContext } from "../platform/async_context.ts";

/** Told of an object made, as the server answered the creation or the apply. */
export type MadeObjectListener = (resource: Resource, object: RawBody) => void;

const listeners = new AsyncContext<MadeObjectListener>();

/** Run `fn` with `listener` told of the objects made in it and in all that it starts. */
export function runTellingMadeObjects<R>(listener: MadeObjectListener, fn: () => R): R {
  return listeners.run(listener, fn);
}

/** Tell the current flow's listener, if any, of an object made. */
export function tellMadeObject(resource: Resource, object: RawBody): void {
  listeners.get()?.(resource, object);
}
