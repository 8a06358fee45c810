import { assertEquals, assertMatch } from "../assert.ts";
import { REQUEST_ID_ANNOTATION } from "../../src/client/creation.ts";
import { json, ScriptedServer, status } from "../client/scripted_server.ts";
import { configure } from "../../src/platform/logging.ts";
import { startEventPoster } from "../../src/engines/posting.ts";
import { createObjectLogger } from "../../src/handling/object_loggers.ts";
import { runWithPostingTarget } from "../../src/handling/posting_queue.ts";
import { OperatorSettings } from "../../src/settings/operator_settings.ts";

const lines: string[] = [];
configure({ logFormat: "plain", writer: (line) => lines.push(line) });

const BODY = {
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: { name: "kopf-example-1", namespace: "ns1", uid: "uid-1" },
};

Deno.test("an object's log record becomes an Event POSTed to the API, in the object's namespace", async () => {
  let posted!: () => void;
  const arrived = new Promise<void>((resolve) => posted = resolve);
  const server = ScriptedServer.start(() => {
    posted();
    return json({ kind: "Event", metadata: { name: "kopf-event-abc", namespace: "ns1" } }, 201);
  });
  const api = server.client();
  const stop = new AbortController();
  try {
    const settings = new OperatorSettings();
    const posting = startEventPoster({ creator: api, settings, signal: stop.signal });
    runWithPostingTarget(posting.target, () => {
      createObjectLogger(BODY).info("Handler 'create_fn' succeeded.");
    });
    await arrived;
    stop.abort();
    await posting.done;
    assertEquals(server.requests.length, 1);
    const request = server.requests[0];
    assertEquals([request.method, request.path], ["POST", "/api/v1/namespaces/ns1/events"]);
    const event = JSON.parse(request.body);
    // The client picks the name for generateName, and stamps the create (never posted twice).
    const { name, annotations, ...metadata } = event.metadata;
    assertEquals(metadata, { namespace: "ns1", generateName: "kopf-event-" });
    assertMatch(name, /^kopf-event-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assertEquals(Object.keys(annotations), [REQUEST_ID_ANNOTATION]);
    assertEquals(event.involvedObject, {
      apiVersion: "kopf.dev/v1",
      kind: "KopfExample",
      name: "kopf-example-1",
      uid: "uid-1",
      namespace: "ns1",
    });
    assertEquals([event.type, event.reason, event.message], [
      "Normal",
      "Logging",
      "Handler 'create_fn' succeeded.",
    ]);
  } finally {
    await api.close();
    await server.close();
  }
});

Deno.test("a refused event (403) is logged and the operator's work goes on", async () => {
  let refused!: () => void;
  const arrived = new Promise<void>((resolve) => refused = resolve);
  const server = ScriptedServer.start(() => {
    refused();
    return status(403, "Forbidden", 'events is forbidden: cannot create resource "events"');
  });
  const api = server.client();
  const stop = new AbortController();
  lines.length = 0;
  try {
    const posting = startEventPoster({
      creator: api,
      settings: new OperatorSettings(),
      signal: stop.signal,
    });
    runWithPostingTarget(posting.target, () => createObjectLogger(BODY).warning("Something odd."));
    await arrived;
    stop.abort();
    await posting.done;
    const warnings = lines.filter((l) => l.includes("Failed to post an event"));
    assertEquals(warnings.length, 1, lines.join("\n"));
  } finally {
    await api.close();
    await server.close();
  }
});
