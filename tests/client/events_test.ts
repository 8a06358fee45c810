/**
 * Creating core v1 Events on a scripted API server.
 */
import { assertEquals, assertMatch } from "../assert.ts";
import { REQUEST_ID_ANNOTATION } from "../../src/client/creation.ts";
import { createEvent } from "../../src/client/events.ts";
import { buildEventBody } from "../../src/structs/k8s_events.ts";
import { json, ScriptedServer } from "./scripted_server.ts";

Deno.test("an event is created with the given body in the given namespace, and the created one returned", async () => {
  await using server = ScriptedServer.start((request) =>
    json({ ...JSON.parse(request.body), kind: "Event", metadata: { name: "kopf-event-x" } }, 201)
  );
  await using api = server.client();
  const body = buildEventBody(
    {
      ref: { apiVersion: "kopf.dev/v1", kind: "KopfExample", name: "kex", uid: "uid-1" },
      type: "Normal",
      reason: "Logging",
      message: "hi",
    },
    {
      namespace: "ns",
      now: new Date("2030-05-06T07:08:09.123Z"),
      reportingComponent: "kopf",
      reportingInstance: "dev",
      generateName: "kopf-event-",
    },
  );
  const created = await createEvent(api, "ns", body);
  assertEquals(created.metadata, { name: "kopf-event-x" });
  assertEquals(server.requests.length, 1);
  assertEquals([server.requests[0].method, server.requests[0].path], [
    "POST",
    "/api/v1/namespaces/ns/events",
  ]);
  // The body as built, with the name picked for its generateName and the create's stamp.
  const sent = JSON.parse(server.requests[0].body);
  const { name, annotations, ...meta } = sent.metadata;
  assertMatch(name, /^kopf-event-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  assertEquals(Object.keys(annotations), [REQUEST_ID_ANNOTATION]);
  assertEquals({ ...sent, metadata: meta }, body);
  assertEquals(body.metadata, { namespace: "ns", generateName: "kopf-event-" }, "left as it was");
  assertEquals(body.eventTime, "2030-05-06T07:08:09.123000Z");
  assertEquals(body.firstTimestamp, "2030-05-06T07:08:09.123000Z");
});
