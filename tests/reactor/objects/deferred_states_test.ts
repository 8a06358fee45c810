import { assertEquals, assertThrows } from "../../assert.ts";
import { deferredEvent, wholeEvent } from "../../../src/reactor/objects/deferred_states.ts";
import { JsonLineError } from "../../../src/client/json_lines.ts";
import type { ObservedEvent } from "../../../src/structs/bodies.ts";

const object = {
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: { name: "x", namespace: "ns", uid: "u", resourceVersion: "7" },
  spec: { field: "value" },
};
const text = JSON.stringify({ type: "MODIFIED", object });
const version = { namespace: "ns", uid: "u", resourceVersion: "7" };

Deno.test("a deferred state holds its identity and version only, until it is made whole", () => {
  const event = deferredEvent(version, text);
  assertEquals(event, {
    type: "MODIFIED",
    object: { metadata: { namespace: "ns", uid: "u", resourceVersion: "7" } },
  });
  assertEquals(wholeEvent(event), { type: "MODIFIED", object });
  const cluster = deferredEvent({ ...version, namespace: undefined }, text);
  assertEquals(Object.keys(cluster.object.metadata!), ["uid", "resourceVersion"]);
  // Any other state is whole already: the very same event.
  const whole: ObservedEvent = { type: "MODIFIED", object };
  assertEquals(wholeEvent(whole) === whole, true);
});

Deno.test("a deferred state whose text is not the event its first bytes said throws, naming it", () => {
  const other = (change: Record<string, unknown>) =>
    JSON.stringify({ type: "MODIFIED", object: { ...object, ...change } });
  assertThrows(() => wholeEvent(deferredEvent(version, text.slice(0, -1))), JsonLineError);
  const wrong = [
    other({ metadata: { ...object.metadata, resourceVersion: "8" } }),
    other({ metadata: { ...object.metadata, uid: "v" } }),
    JSON.stringify({ type: "ADDED", object }),
    JSON.stringify({ type: "MODIFIED" }),
    JSON.stringify({ type: "MODIFIED", object: null }),
  ];
  for (const text of wrong) {
    assertThrows(() => wholeEvent(deferredEvent(version, text)), SyntaxError, "u at 7");
  }
});
