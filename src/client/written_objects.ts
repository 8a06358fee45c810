/**
 * Who hears of the objects written in a flow of calls: each creation (`createObject`), each
 * server-side apply (`applyObject`, `kopf.apply()`), patch (`patchObject`) and replacement
 * (`replaceObject`) of an object or of its status tells the listener set for its flow of the
 * object as the server answered it. An operator with child handlers listens in all of its
 * flows, so that a child its handlers wrote is known in that state from the answer on, as if
 * its watch had told of it: deleted before a watch of children shows it (which cannot list,
 * or has not yet), its deletion still shows in the next complete listing. The listener is
 * the caller's own and is called synchronously; it must not throw, and it gets the answer
 * that the caller gets too: what it keeps, it copies.
 *
 * @module
 */
import type { RawBody } from "../structs/bodies.ts";
import type { Resource } from "../structs/resources.ts";
import { AsyncContext } from "../platform/async_context.ts";
import { isPartialObjectMetadata } from "../structs/metadata_only_bodies.ts";

/** Told of an object written, as the server answered the write. */
export type WrittenObjectListener = (resource: Resource, object: RawBody) => void;

const listeners = new AsyncContext<WrittenObjectListener>();

/** Run `fn` with `listener` told of the objects written in it and in all that it starts. */
export function runTellingWrittenObjects<R>(listener: WrittenObjectListener, fn: () => R): R {
  return listeners.run(listener, fn);
}

/**
 * Tell the current flow's listener, if any, of a write's answer: only an object of the
 * resource's kind, or its metadata (the answer of a subresource such as `scale` is another
 * kind's).
 */
export function tellWrittenObject(
  resource: Resource,
  answer: RawBody,
  options: { readonly dryRun?: boolean; readonly subresource?: string },
): void {
  if (options.dryRun) return;
  if (options.subresource !== undefined && options.subresource !== "status") return;
  const listener = listeners.get();
  if (listener === undefined) return;
  const kind = answer.kind;
  if (kind !== undefined && kind !== resource.kind && !isPartialObjectMetadata(answer)) return;
  listener(resource, answer);
}
