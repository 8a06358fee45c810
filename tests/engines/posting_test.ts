import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { configure } from "../../src/platform/logging.ts";
import { EventQueue, type PostingSettingsHolder } from "../../src/handling/posting_queue.ts";
import { type EventCreator, runEventPoster } from "../../src/engines/posting.ts";
import type { JsonObject } from "../../src/structs/bodies.ts";
import { wallClockAt } from "../clocks.ts";
import { PostingSettings } from "../../src/settings/output_settings.ts";

const lines: string[] = [];
configure({ logFormat: "plain", writer: (line) => lines.push(line) });

const NOW = new Date(Date.UTC(2021, 5, 1, 12, 0, 0, 5));
const SETTINGS: PostingSettingsHolder = {
  posting: Object.assign(new PostingSettings(), {
    reportingComponent: "my-op",
    reportingInstance: "pod-1",
  }),
};
const POD = { apiVersion: "v1", kind: "Pod", name: "p1", uid: "u1", namespace: "ns1" };

/** A creator that records calls, fails when told to, and signals each call. */
class RecordingCreator implements EventCreator {
  calls: Array<{ namespace: string; body: JsonObject }> = [];
  failures = 0;
  #waiters: Array<{ count: number; resolve: () => void }> = [];

  createEvent(namespace: string, body: JsonObject): Promise<unknown> {
    this.calls.push({ namespace, body });
    for (const w of this.#waiters.filter((w) => this.calls.length >= w.count)) w.resolve();
    if (this.failures > 0) {
      this.failures--;
      return Promise.reject(new Error("403 Forbidden: events is forbidden"));
    }
    return Promise.resolve({});
  }

  /** Resolves once `count` calls have been made. */
  called(count: number): Promise<void> {
    if (this.calls.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }
}

Deno.test("the poster creates queued events in the object's namespace with the settings' names", async () => {
  const queue = new EventQueue();
  const creator = new RecordingCreator();
  const stop = new AbortController();
  const running = runEventPoster({
    queue,
    settings: SETTINGS,
    creator,
    signal: stop.signal,
    clock: wallClockAt(NOW.getTime()),
  });
  queue.push({ ref: POD, type: "Normal", reason: "Created", message: "made it" });
  await creator.called(1);
  stop.abort();
  await running;
  assertEquals(creator.calls, [{
    namespace: "ns1",
    body: {
      metadata: { namespace: "ns1", generateName: "kopf-event-" },
      type: "Normal",
      reason: "Created",
      message: "made it",
      reportingComponent: "my-op",
      reportingInstance: "pod-1",
      source: { component: "my-op" },
      involvedObject: POD,
      firstTimestamp: "2021-06-01T12:00:00.005000Z",
      lastTimestamp: "2021-06-01T12:00:00.005000Z",
      eventTime: "2021-06-01T12:00:00.005000Z",
      count: 1,
    },
  }]);
});

Deno.test("events about cluster-scoped objects go to the default namespace", async () => {
  const queue = new EventQueue();
  const creator = new RecordingCreator();
  const stop = new AbortController();
  const running = runEventPoster({ queue, settings: SETTINGS, creator, signal: stop.signal });
  queue.push({
    ref: { apiVersion: "v1", kind: "Node", name: "n1" },
    type: "Normal",
    reason: "R",
    message: "",
  });
  await creator.called(1);
  stop.abort();
  await running;
  assertEquals(creator.calls[0].namespace, "default");
  assertEquals((creator.calls[0].body.involvedObject as JsonObject).namespace, "default");
});

Deno.test("a failed post is logged as a warning and the poster goes on", async () => {
  lines.length = 0;
  const queue = new EventQueue();
  const creator = new RecordingCreator();
  creator.failures = 1;
  const stop = new AbortController();
  const running = runEventPoster({
    queue,
    settings: SETTINGS,
    creator,
    signal: stop.signal,
    concurrency: 1,
  });
  queue.push({ ref: POD, type: "Normal", reason: "First", message: "lost" });
  queue.push({ ref: POD, type: "Normal", reason: "Second", message: "kept" });
  await creator.called(2);
  stop.abort();
  await running;
  assertEquals(creator.calls.map((c) => c.body.reason), ["First", "Second"]);
  assertEquals(lines.length, 1);
  assertStringIncludes(lines[0], "Failed to post an event");
  assertStringIncludes(lines[0], "403 Forbidden");
  assertStringIncludes(lines[0], 'reason=First, message="lost"');
});

Deno.test("events queued before the stop are still posted", async () => {
  const queue = new EventQueue();
  const creator = new RecordingCreator();
  const stop = new AbortController();
  stop.abort();
  for (let i = 0; i < 6; i++) {
    queue.push({ ref: POD, type: "Normal", reason: `R${i}`, message: "" });
  }
  await runEventPoster({ queue, settings: SETTINGS, creator, signal: stop.signal });
  assertEquals(creator.calls.map((c) => c.body.reason), ["R0", "R1", "R2", "R3", "R4", "R5"]);
  assertEquals(queue.size, 0);
});

Deno.test("events that cannot be posted in the flush time are reported, not silently lost", async () => {
  lines.length = 0;
  const queue = new EventQueue();
  const stop = new AbortController();
  stop.abort();
  const stuck: EventCreator = {
    createEvent: (_ns, _body, signal) =>
      new Promise((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason))),
  };
  for (let i = 0; i < 3; i++) queue.push({ ref: POD, type: "Normal", reason: "R", message: "" });
  await runEventPoster({
    queue,
    settings: SETTINGS,
    creator: stuck,
    signal: stop.signal,
    flushTimeout: 0.05,
    concurrency: 1,
  });
  // The one in flight when the time ran out counts too, in the same single warning.
  assert(lines.some((l) => l.includes("3 events were not posted")), lines.join("\n"));
  assertEquals(lines.filter((l) => l.includes("Failed to post")), []);
});

Deno.test("the poster refuses events about Event objects even if queued directly", async () => {
  const queue = new EventQueue();
  const creator = new RecordingCreator();
  const stop = new AbortController();
  stop.abort();
  queue.push({
    ref: { apiVersion: "v1", kind: "Event", name: "e" },
    type: "Normal",
    reason: "R",
    message: "",
  });
  queue.push({ ref: POD, type: "Normal", reason: "Kept", message: "" });
  await runEventPoster({ queue, settings: SETTINGS, creator, signal: stop.signal });
  assertEquals(creator.calls.map((c) => c.body.reason), ["Kept"]);
});
