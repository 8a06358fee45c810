/**
 * Creating core v1 Events on a scripted API server.
 */
import { assertEquals } from "../assert.ts";
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
  assertEquals(JSON.parse(server.requests[0].body), body); // the body as built, unchanged
  assertEquals(body.eventTime, "2030-05-06T07:08:09.123000Z");
  assertEquals(body.firstTimestamp, "2030-05-06T07:08:09.123000Z");
});
