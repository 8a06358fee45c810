/**
 * Kubernetes Events as Kopf posts them: the body, the timestamps, and the cut of long
 * messages.
 */
import { assertEquals } from "../assert.ts";
import {
  buildEventBody,
  cutEventMessage,
  eventTimestamp,
  MAX_EVENT_MESSAGE_LENGTH,
} from "../../src/structs/k8s_events.ts";
import { buildObjectReference } from "../../src/structs/object_refs.ts";

const NOW = new Date(Date.UTC(2019, 0, 28, 18, 25, 3, 123));
const OPTIONS = {
  namespace: "default",
  now: NOW,
  reportingComponent: "kopf",
  reportingInstance: "dev",
  generateName: "kopf-event-",
};

Deno.test("an event body is exactly what Kopf posts, with count 1", () => {
  const ref = buildObjectReference({
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name: "kopf-example-1", namespace: "default", uid: "uid-1", resourceVersion: "7" },
  });
  const body = buildEventBody(
    { ref, type: "Normal", reason: "Logging", message: "Handler 'create_fn' succeeded." },
    OPTIONS,
  );
  assertEquals(
    JSON.stringify(body),
    '{"metadata":{"namespace":"default","generateName":"kopf-event-"},' +
      '"type":"Normal","reason":"Logging","message":"Handler \'create_fn\' succeeded.",' +
      '"reportingComponent":"kopf","reportingInstance":"dev","source":{"component":"kopf"},' +
      '"involvedObject":{"apiVersion":"kopf.dev/v1","kind":"KopfExample",' +
      '"name":"kopf-example-1","uid":"uid-1","namespace":"default"},' +
      '"firstTimestamp":"2019-01-28T18:25:03.123000Z","lastTimestamp":"2019-01-28T18:25:03.123000Z",' +
      '"eventTime":"2019-01-28T18:25:03.123000Z","count":1}',
  );
});

Deno.test("events about cluster-scoped objects get the given namespace in their reference too", () => {
  const ref = buildObjectReference({ apiVersion: "v1", kind: "Node", metadata: { name: "n1" } });
  const body = buildEventBody({ ref, type: "Warning", reason: "R", message: "m" }, OPTIONS);
  assertEquals(body.involvedObject, {
    apiVersion: "v1",
    kind: "Node",
    name: "n1",
    namespace: "default",
  });
});

Deno.test("event timestamps have microseconds and a Z", () => {
  assertEquals(eventTimestamp(new Date(Date.UTC(2020, 0, 1))), "2020-01-01T00:00:00.000000Z");
});

Deno.test("messages up to the limit are kept as they are", () => {
  const message = "x".repeat(MAX_EVENT_MESSAGE_LENGTH);
  assertEquals(cutEventMessage(message), message);
});

Deno.test("long messages are cut in the middle, keeping both ends within the limit", () => {
  const message = "A".repeat(600) + "B".repeat(600) + "C".repeat(600);
  const cut = cutEventMessage(message);
  assertEquals(cut.length, MAX_EVENT_MESSAGE_LENGTH);
  assertEquals(cut, "A".repeat(511) + "..." + "C".repeat(510));
});

Deno.test("the cut counts characters, never splitting a character outside the BMP", () => {
  const message = "😀".repeat(1100);
  const cut = cutEventMessage(message);
  assertEquals(Array.from(cut).length, MAX_EVENT_MESSAGE_LENGTH);
  assertEquals(cut, "😀".repeat(511) + "..." + "😀".repeat(510));
  const short = "😀".repeat(1000); // 2000 UTF-16 units, but 1000 characters: not cut
  assertEquals(cutEventMessage(short), short);
});
