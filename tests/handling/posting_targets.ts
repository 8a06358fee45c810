/**
 * Helpers for tests of event posting: posting targets with given settings, and draining a
 * queue into a list.
 */
import { EventQueue, type PostingTarget } from "../../src/handling/posting_queue.ts";
import type { K8sEventRequest } from "../../src/structs/k8s_events.ts";
import { PostingSettings } from "../../src/settings/output_settings.ts";

/** A posting target with a fresh queue; posting enabled at the info level unless overridden. */
export function postingTarget(posting: Partial<PostingSettings> = {}): PostingTarget {
  return {
    settings: { posting: Object.assign(new PostingSettings(), posting) },
    queue: new EventQueue(),
  };
}

/** Everything queued so far, oldest first; the queue is left empty. */
export function drain(queue: EventQueue): K8sEventRequest[] {
  const items: K8sEventRequest[] = [];
  for (let item = queue.shift(); item !== undefined; item = queue.shift()) items.push(item);
  return items;
}
