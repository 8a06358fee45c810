/**
 * The queue of events to post: messages are cut to the limit when queued.
 */
import { assert, assertEquals } from "../assert.ts";
import {
  enqueueEvent,
  EventQueue,
  type PostingSettingsHolder,
} from "../../src/handling/posting_queue.ts";
import type { K8sEventRequest } from "../../src/structs/k8s_events.ts";
import { PostingSettings } from "../../src/settings/output_settings.ts";

const SETTINGS: PostingSettingsHolder = { posting: new PostingSettings() };

function request(object: number, reason = "R"): K8sEventRequest {
  return {
    ref: { apiVersion: "v1", kind: "Pod", name: `p${object}`, uid: `u${object}`, namespace: "ns" },
    type: "Normal",
    reason,
    message: "",
  };
}

Deno.test("queued messages are cut to 1024 characters at once, not when posted", () => {
  const queue = new EventQueue();
  const posted = enqueueEvent({ settings: SETTINGS, queue }, {
    ...request(1),
    message: "x".repeat(100_000),
  });
  assert(posted);
  assertEquals(queue.shift()?.message.length, 1024);
});
