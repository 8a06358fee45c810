import { assert, assertEquals, assertThrows } from "../assert.ts";
import { AnnotationsProgressStorage, SmartProgressStorage } from "../../src/kopf.ts";
import type { RawBody } from "../../mod.ts";
import { HandlerState } from "../../src/handling/handler_progress.ts";
import { State } from "../../src/handling/handler_states.ts";
import { TemporaryError } from "../../src/structs/errors.ts";
import { Patch } from "../../src/structs/patches.ts";
import { wallClockAt } from "../clocks.ts";

/** A clock whose wall time is fixed at 2020-12-31T23:59:59.123456Z, moved by hand. */
function fixedClock() {
  let now = Date.UTC(2020, 11, 31, 23, 59, 59, 123) + 0.456;
  const clock = wallClockAt(() => now);
  return Object.assign(clock, { advance: (seconds: number) => (now += seconds * 1000) });
}

const HANDLERS = [{ id: "create_fn" }, { id: "other_fn" }];
const storage = new AnnotationsProgressStorage();
const bodyWith = (annotations: Record<string, string>): RawBody => ({
  metadata: { name: "kex", namespace: "default", annotations },
  spec: {},
});

// Byte-for-byte what Python Kopf writes for the same sequence of events and times.
const AFTER_RETRY = '{"started":"2020-12-31T23:59:59.123456+00:00",' +
  '"delayed":"2021-01-01T00:00:59.123456+00:00","purpose":"create","retries":1,' +
  '"success":false,"failure":false,"message":"Not ready: \\u00fc"}';
const AFTER_SUCCESS = '{"started":"2020-12-31T23:59:59.123456+00:00",' +
  '"stopped":"2021-01-01T00:01:00.123456+00:00","purpose":"create","retries":2,' +
  '"success":true,"failure":false}';

Deno.test("a retried then succeeded handler persists Kopf's exact records across cycles", async () => {
  const clock = fixedClock();
  // Cycle 1: nothing persisted; one handler runs and asks for a retry in 60 s.
  let state = await State.fromStorage({ body: bodyWith({}), storage, handlers: HANDLERS, clock });
  assertEquals(state.size, 0);
  state = state.withPurpose("create").withHandlers([HANDLERS[0]]);
  assertEquals(state.selectAwakened(HANDLERS).map((h) => h.id), ["create_fn"]);
  state = state.withOutcomes({
    create_fn: { final: false, delay: 60, error: new TemporaryError("Not ready: ü") },
  });
  assertEquals(state.done, false);
  assertEquals(state.delay, 60);
  const patch1 = new Patch();
  await state.store({ body: bodyWith({}), patch: patch1, storage });
  assertEquals(patch1.toMergePatch(), {
    metadata: { annotations: { "kopf.zalando.org/create_fn": AFTER_RETRY } },
  });

  // Cycle 2, 30 s later: still sleeping; nothing to run, 30 s left.
  clock.advance(30);
  const body2 = bodyWith({ "kopf.zalando.org/create_fn": AFTER_RETRY });
  let state2 = (await State.fromStorage({ body: body2, storage, handlers: HANDLERS, clock }))
    .withPurpose("create").withHandlers([HANDLERS[0]]);
  assertEquals(state2.selectAwakened(HANDLERS), []);
  assert(state2.get("create_fn")!.sleeping);
  assertEquals(state2.delay, 30);
  const untouched = new Patch();
  await state2.store({ body: body2, patch: untouched, storage });
  assert(untouched.isEmpty, "an unchanged record is not rewritten");

  // Cycle 3, 61 s after the start: due; it succeeds; the cycle is done and purged.
  clock.advance(31);
  state2 = (await State.fromStorage({ body: body2, storage, handlers: HANDLERS, clock }))
    .withPurpose("create").withHandlers([HANDLERS[0]]);
  const due = state2.get("create_fn")!;
  assertEquals(due.retries, 1);
  assertEquals(due.runtime, 61);
  assertEquals(due.startedAt.toISOString(), "2020-12-31T23:59:59.123Z");
  assertEquals(state2.selectAwakened(HANDLERS).map((h) => h.id), ["create_fn"]);
  state2 = state2.withOutcomes({ create_fn: { final: true, result: { ok: 1 } } });
  assertEquals(state2.done, true);
  assertEquals(state2.delay, null);
  const patch3 = new Patch();
  await state2.store({ body: body2, patch: patch3, storage });
  assertEquals(patch3.toMergePatch(), {
    metadata: { annotations: { "kopf.zalando.org/create_fn": AFTER_SUCCESS } },
  });
  const purge = new Patch();
  await state2.purge({ body: body2, patch: purge, storage, handlers: HANDLERS });
  assertEquals(purge.toMergePatch(), {
    metadata: { annotations: { "kopf.zalando.org/create_fn": null } },
  });
});

Deno.test("records written by older Python Kopf (naive times) are understood", async () => {
  const clock = fixedClock();
  const body = bodyWith({
    "kopf.zalando.org/create_fn": '{"started":"2020-02-14T16:58:25.396364",' +
      '"stopped":"2020-02-14T16:58:25.401844","retries":1,"success":true}',
    "kopf.zalando.org/other_fn": '{"started":"2020-02-14T16:58:25.396421","retries":0}',
  });
  const state = (await State.fromStorage({ body, storage, handlers: HANDLERS, clock }))
    .withHandlers(HANDLERS);
  assertEquals(state.get("create_fn")!.finished, true);
  assertEquals(state.get("create_fn")!.started, Date.UTC(2020, 1, 14, 16, 58, 25) * 1000 + 396364);
  assertEquals(state.selectAwakened(HANDLERS).map((h) => h.id), ["other_fn"]);
  assertEquals(state.counts, { success: 1, failure: 0, running: 1 });
  assertEquals(state.done, false);
  assertEquals(state.delay, 0);
});

Deno.test("sub-handler ids are kept sorted and purged together with their parent", async () => {
  const clock = fixedClock();
  let state = State.fromScratch({ clock }).withHandlers([{ id: "fn" }]);
  state = state.withOutcomes({ fn: { final: false, subrefs: ["fn/sub2", "fn/sub1"] } });
  state = state.withOutcomes({ fn: { final: true, subrefs: ["fn/sub1", "fn/sub0"] } });
  const record = state.get("fn")!.forStorage();
  assertEquals(record.subrefs, ["fn/sub0", "fn/sub1", "fn/sub2"]);
  assertEquals(record.retries, 2);
  assertEquals(record.stopped, "2020-12-31T23:59:59.123456+00:00");
  const body = bodyWith({
    "kopf.zalando.org/fn": "{}",
    "kopf.zalando.org/fn.sub1": "{}",
    "kopf.zalando.org/fn.sub2": "{}",
    "kopf.zalando.org/foreign_fn": "{}",
  });
  const patch: Record<string, unknown> = {};
  await state.purge({ body, patch, storage, handlers: [{ id: "fn" }] });
  assertEquals(patch, {
    metadata: {
      annotations: {
        "kopf.zalando.org/fn": null,
        "kopf.zalando.org/fn.sub1": null,
        "kopf.zalando.org/fn.sub2": null,
      },
    },
  });
});

Deno.test("the smart storage writes compact JSON to annotations and the full record to status", async () => {
  const clock = fixedClock();
  const smart = new SmartProgressStorage();
  const state = State.fromScratch({ clock }).withPurpose("update").withHandlers([{ id: "u" }])
    .withOutcomes({ u: { final: true, error: new Error("boom") } });
  const patch = new Patch();
  await state.store({ body: {}, patch, storage: smart });
  const merge = patch.toMergePatch() as {
    metadata: { annotations: Record<string, string> };
    status: { kopf: { progress: Record<string, unknown> } };
  };
  assertEquals(
    merge.metadata.annotations["kopf.zalando.org/u"],
    '{"started":"2020-12-31T23:59:59.123456+00:00","stopped":"2020-12-31T23:59:59.123456+00:00",' +
      '"purpose":"update","retries":1,"success":false,"failure":true,"message":"boom"}',
  );
  assertEquals(merge.status.kopf.progress.u, {
    started: "2020-12-31T23:59:59.123456+00:00",
    stopped: "2020-12-31T23:59:59.123456+00:00",
    delayed: null,
    purpose: "update",
    retries: 1,
    success: false,
    failure: true,
    message: "boom",
    subrefs: null,
  });
});

Deno.test("counts and extras separate this cycle's purpose from leftovers of others", () => {
  const clock = fixedClock();
  const state = State.fromScratch({ clock })
    .withPurpose("create").withHandlers([{ id: "c1" }, { id: "c2" }])
    .withOutcomes({ c1: { final: true } })
    .withPurpose("update").withHandlers([{ id: "u1" }])
    .withOutcomes({ u1: { final: true, error: "plain string thrown" } });
  assertEquals(state.counts, { success: 0, failure: 1, running: 0 });
  assertEquals(state.extras, new Map([["create", { success: 1, failure: 0, running: 1 }]]));
  assertEquals(state.get("u1")!.message, "plain string thrown");
  assertEquals(state.withoutSuccesses().ids(), ["c2", "u1"]);
});

Deno.test("misuse and corrupted records fail with a clear message", async () => {
  const clock = fixedClock();
  assertThrows(
    () => State.fromScratch({ clock }).withOutcomes({ ghost: { final: true } }),
    Error,
    "Outcomes for handlers without a state: ghost",
  );
  const body = bodyWith({ "kopf.zalando.org/fn": '{"started":"yesterday"}' });
  let error: unknown;
  try {
    await State.fromStorage({ body, storage, handlers: [{ id: "fn" }], clock });
  } catch (e) {
    error = e;
  }
  assert(error instanceof Error && error.message.includes('bad started time "yesterday"'));
  // A record that lost its start time counts as started now.
  assertEquals(HandlerState.fromStorage({}, clock).started, Math.round(clock.wall() * 1000));
});

Deno.test("loading, storing and purging are done at once with a storage that answers at once", async () => {
  const clock = fixedClock();
  const body = bodyWith({ "kopf.zalando.org/create_fn": AFTER_RETRY });
  const loaded = State.fromStorage({ body, storage, handlers: HANDLERS, clock });
  assert(loaded instanceof State && loaded.has("create_fn") && !loaded.has("other_fn"));
  const state = loaded.withPurpose("create").withHandlers(HANDLERS)
    .withOutcomes({ other_fn: { final: true } });
  const patch = new Patch();
  assertEquals(state.store({ body, patch, storage }), undefined);
  assertEquals(Object.keys(patch.metadata.annotations), ["kopf.zalando.org/other_fn"]);
  assertEquals(state.purge({ body, patch, storage, handlers: HANDLERS }), undefined);
  assertEquals(patch.toMergePatch().metadata, {
    annotations: { "kopf.zalando.org/create_fn": null },
  });

  // A storage that answers with promises is waited for, key by key, in order (the built-in
  // ones answer at once; this one wraps each answer in a promise).
  const smart = new SmartProgressStorage();
  const calls: string[] = [];
  const slow = Object.assign(Object.create(smart), {
    fetch: (
      args: { key: string; body: RawBody },
    ) => (calls.push(`fetch ${args.key}`), Promise.resolve(smart.fetch(args))),
    store: (
      args: Parameters<typeof smart.store>[0],
    ) => (calls.push(`store ${args.key}`), Promise.resolve(smart.store(args))),
    purge: (
      args: Parameters<typeof smart.purge>[0],
    ) => (calls.push(`purge ${args.key}`), Promise.resolve(smart.purge(args))),
  }) as SmartProgressStorage;
  const pending = State.fromStorage({ body, storage: slow, handlers: HANDLERS, clock });
  assert(!(pending instanceof State));
  const again = (await pending).withPurpose("create").withHandlers(HANDLERS)
    .withOutcomes({ create_fn: { final: true }, other_fn: { final: true } });
  const patch2 = new Patch();
  await again.store({ body, patch: patch2, storage: slow });
  await again.purge({ body, patch: patch2, storage: slow, handlers: HANDLERS });
  assertEquals(calls, [
    "fetch create_fn",
    "fetch other_fn",
    "store create_fn",
    "store other_fn",
    "purge create_fn",
    "purge other_fn",
  ]);
});

Deno.test("fates: where each handler of the cycle stands, with its last error", async () => {
  const clock = fixedClock();
  const handlers = [{ id: "ok" }, { id: "broken" }, { id: "busy" }, { id: "later" }, {
    id: "parent",
  }];
  const state = State.fromScratch({ clock })
    .withPurpose("create")
    .withHandlers(handlers)
    .withOutcomes({
      ok: { final: true, result: 1 },
      broken: { final: true, error: new Error("no quota") },
      busy: { final: false, delay: 10, error: new TemporaryError("not yet") },
      // Waiting for sub-handlers: an error without a message.
      parent: { final: false, delay: 0, error: new TemporaryError("") },
    });
  assertEquals(state.fates, [
    { id: "ok", fate: "succeeded", message: null },
    { id: "broken", fate: "failed", message: "no quota" },
    { id: "busy", fate: "retrying", message: "not yet" },
    { id: "later", fate: "pending", message: null },
    { id: "parent", fate: "pending", message: null },
  ]);
  // Handlers not taking part in the cycle (persisted, not selected) have no fate here.
  const body = bodyWith({
    "kopf.zalando.org/other_fn": AFTER_SUCCESS,
  });
  const loaded = await State.fromStorage({ body, storage, handlers: HANDLERS, clock });
  assertEquals(loaded.fates, []);
  assertEquals(loaded.withHandlers([{ id: "other_fn" }]).fates, [
    { id: "other_fn", fate: "succeeded", message: null },
  ]);
});
