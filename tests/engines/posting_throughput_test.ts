/**
 * The poster under load: many events in flight at once, one slow post not holding up the
 * others, events about one object kept in order, taken generated names tried again, a
 * bounded queue reporting its losses once, and the flush at stop.
 */
import { assertEquals, assertSettlesWithin, assertStringIncludes } from "../assert.ts";
import { configure } from "../../src/platform/logging.ts";
import { EventQueue, type PostingSettingsHolder } from "../../src/handling/posting_queue.ts";
import {
  DEFAULT_POSTING_CONCURRENCY,
  type EventCreator,
  runEventPoster,
} from "../../src/engines/posting.ts";
import { apiErrorFor } from "../../src/client/api_errors.ts";
import type { JsonObject } from "../../src/structs/bodies.ts";
import type { K8sEventRequest } from "../../src/structs/k8s_events.ts";
import { PostingSettings } from "../../src/settings/output_settings.ts";

const lines: string[] = [];
configure({ logFormat: "plain", writer: (line) => lines.push(line) });

const SETTINGS: PostingSettingsHolder = { posting: new PostingSettings() };

function request(object: number, reason = "R"): K8sEventRequest {
  return {
    ref: { apiVersion: "v1", kind: "Pod", name: `p${object}`, uid: `u${object}`, namespace: "ns" },
    type: "Normal",
    reason,
    message: "",
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A creator whose posts take `latency` ms; it records the most posts in flight at once. */
class SlowCreator implements EventCreator {
  inFlight = 0;
  maxInFlight = 0;
  created: JsonObject[] = [];
  constructor(readonly latency: () => number) {}

  async createEvent(_namespace: string, body: JsonObject, signal?: AbortSignal): Promise<unknown> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, this.latency());
        signal?.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(signal.reason);
        }, { once: true });
      });
      this.created.push(body);
      return body;
    } finally {
      this.inFlight--;
    }
  }
}

Deno.test("ten events are in flight at once by default, and never more", async () => {
  assertEquals(DEFAULT_POSTING_CONCURRENCY, 10);
  const queue = new EventQueue();
  const creator = new SlowCreator(() => 20);
  const stop = new AbortController();
  stop.abort();
  for (let i = 0; i < 50; i++) queue.push(request(i));
  await runEventPoster({ queue, settings: SETTINGS, creator, signal: stop.signal });
  assertEquals([creator.created.length, creator.maxInFlight], [50, 10]);
});

Deno.test("a post that hangs does not hold up the events queued after it", async () => {
  const queue = new EventQueue();
  const stop = new AbortController();
  let calls = 0;
  let allCalled: () => void = () => {};
  const called = new Promise<void>((resolve) => allCalled = resolve);
  const creator: EventCreator = {
    createEvent: (_ns, _body, signal) => {
      if (++calls === 21) allCalled();
      if (calls > 1) return Promise.resolve({});
      return new Promise((_, reject) =>
        signal?.addEventListener("abort", () => reject(signal.reason))
      );
    },
  };
  const running = runEventPoster({
    queue,
    settings: SETTINGS,
    creator,
    signal: stop.signal,
    flushTimeout: 0.05,
  });
  for (let i = 0; i < 21; i++) queue.push(request(i));
  try {
    await assertSettlesWithin(called, 2, "the posting of the 20 events behind the hanging one");
  } finally {
    stop.abort();
    await running;
  }
  assertEquals(calls, 21);
});

Deno.test("events about one object are created one after another, in the queued order", async () => {
  const queue = new EventQueue();
  const perObject = new Map<string, number>();
  let overlapped = false;
  const order: string[] = [];
  const creator: EventCreator = {
    async createEvent(_ns, body) {
      const uid = String((body.involvedObject as JsonObject).uid);
      if (perObject.get(uid)) overlapped = true;
      perObject.set(uid, (perObject.get(uid) ?? 0) + 1);
      await sleep(Math.random() * 5);
      order.push(`${uid}:${body.reason}`);
      perObject.set(uid, perObject.get(uid)! - 1);
      return {};
    },
  };
  const stop = new AbortController();
  stop.abort();
  for (let n = 0; n < 6; n++) for (let i = 0; i < 5; i++) queue.push(request(i, `R${n}`));
  await runEventPoster({ queue, settings: SETTINGS, creator, signal: stop.signal });
  assertEquals(overlapped, false);
  for (let i = 0; i < 5; i++) {
    assertEquals(
      order.filter((e) => e.startsWith(`u${i}:`)),
      [0, 1, 2, 3, 4, 5].map((n) => `u${i}:R${n}`),
    );
  }
});

function alreadyExists(): Error {
  return apiErrorFor(409, {
    kind: "Status",
    status: "Failure",
    code: 409,
    reason: "AlreadyExists",
    message: 'events "kopf-event-bcdfg" already exists',
  }, { method: "POST", path: "/api/v1/namespaces/ns/events" });
}

Deno.test("a refused event is reported once and not tried again by the poster", async () => {
  // A generated name taken already is the API client's to resolve (it picks another name):
  // the poster has no retries of its own.
  lines.length = 0;
  let calls = 0;
  const creator: EventCreator = {
    createEvent: () => (++calls, Promise.reject(alreadyExists())),
  };
  const queue = new EventQueue();
  const stop = new AbortController();
  stop.abort();
  queue.push(request(1));
  await runEventPoster({ queue, settings: SETTINGS, creator, signal: stop.signal });
  assertEquals([calls, lines.length], [1, 1]);
  assertStringIncludes(lines[0], "Failed to post an event");
  assertStringIncludes(lines[0], "AlreadyExists");
});

Deno.test("a full queue drops the oldest events and the poster reports them in one warning", async () => {
  lines.length = 0;
  const queue = new EventQueue(5);
  for (let i = 0; i < 12; i++) queue.push(request(i, `R${i}`));
  assertEquals([queue.size, queue.dropped], [5, 7]);
  const creator = new SlowCreator(() => 0);
  const stop = new AbortController();
  stop.abort();
  await runEventPoster({ queue, settings: SETTINGS, creator, signal: stop.signal });
  assertEquals(creator.created.map((b) => b.reason), ["R7", "R8", "R9", "R10", "R11"]);
  assertEquals(lines.length, 1, lines.join("\n"));
  assertStringIncludes(lines[0], "7 events were dropped");
  assertEquals(queue.dropped, 0);
});

Deno.test("at stop, 200 queued events are flushed within a 1.2 s timeout at 25 ms each", async () => {
  lines.length = 0;
  const queue = new EventQueue();
  const creator = new SlowCreator(() => 25);
  const stop = new AbortController();
  stop.abort();
  for (let i = 0; i < 200; i++) queue.push(request(i));
  await runEventPoster({
    queue,
    settings: SETTINGS,
    creator,
    signal: stop.signal,
    flushTimeout: 1.2,
  });
  assertEquals([creator.created.length, lines], [200, []]);
});
