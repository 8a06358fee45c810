import { assert, assertEquals, assertThrows } from "../assert.ts";
import {
  AnnotationsProgressStorage,
  ConfigurationError,
  MultiProgressStorage,
  ProgressStorage,
  SmartProgressStorage,
  StatusProgressStorage,
  StoredStateError,
} from "../../src/kopf.ts";
import type { ProgressFetchArgs, ProgressRecord, RawBody } from "../../mod.ts";
import { Patch } from "../../src/structs/patches.ts";
import { storingIsUndoneByPurging } from "../../src/settings/multi_progress_storages.ts";

// The record in Kopf's field order, as the state machine produces it (nulls for unknowns).
const RECORD: ProgressRecord = {
  started: "2020-12-31T23:59:59.123456+00:00",
  stopped: null,
  delayed: "2021-01-01T00:01:00.000000+00:00",
  purpose: "create",
  retries: 1,
  success: false,
  failure: false,
  message: "Not ready: ü",
  subrefs: null,
};
// What Python Kopf writes for it: compact, nulls dropped, non-ASCII escaped.
const RECORD_JSON = '{"started":"2020-12-31T23:59:59.123456+00:00",' +
  '"delayed":"2021-01-01T00:01:00.000000+00:00","purpose":"create","retries":1,' +
  '"success":false,"failure":false,"message":"Not ready: \\u00fc"}';

const LONG_ID = "update_fn/spec.field/sub-handler-with-a-long-name";
const LONG_V2 = "kopf.zalando.org/update_fn.spec.field.sub-handler-with-a-long-name";
const LONG_V1 = "kopf.zalando.org/update_fn.spec.field.sub-handler-with-a-F08YxQ";

const body = (annotations: Record<string, string> = {}, status?: unknown): RawBody => ({
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: { name: "kex", namespace: "default", annotations },
  ...(status === undefined ? {} : { status: status as RawBody["status"] }),
});

Deno.test("annotations storage writes Kopf's exact compact JSON under V2 and V1 keys", () => {
  const storage = new AnnotationsProgressStorage();
  const patch: Record<string, unknown> = {};
  storage.store({ key: "create_fn", record: RECORD, body: body(), patch });
  storage.store({ key: LONG_ID, record: RECORD, body: body(), patch });
  assertEquals(patch, {
    metadata: {
      annotations: {
        "kopf.zalando.org/create_fn": RECORD_JSON,
        [LONG_V2]: RECORD_JSON,
        [LONG_V1]: RECORD_JSON,
      },
    },
  });
});

Deno.test("verbose annotations keep nulls; a custom prefix is branded kopf-managed once", () => {
  const storage = new AnnotationsProgressStorage({ prefix: "my-op.example.com", verbose: true });
  const patch = new Patch();
  storage.store({ key: "fn", record: { started: null, retries: 0 }, body: body(), patch });
  assertEquals(patch.toMergePatch(), {
    metadata: {
      annotations: {
        "my-op.example.com/fn": '{"started":null,"retries":0}',
        "my-op.example.com/kopf-managed": "yes",
      },
    },
  });
  const branded = body({ "my-op.example.com/kopf-managed": "yes" });
  const again = new Patch();
  storage.store({ key: "fn", record: { retries: 0 }, body: branded, patch: again });
  assertEquals(Object.keys(again.toMergePatch().metadata as object), ["annotations"]);
  assertEquals(
    Object.keys((again.toMergePatch().metadata as { annotations: object }).annotations),
    ["my-op.example.com/fn"],
  );
});

Deno.test("annotations storage reads records Python Kopf wrote, V2 first, then V1", () => {
  const storage = new AnnotationsProgressStorage();
  const written = body({ [LONG_V1]: RECORD_JSON, "kopf.zalando.org/create_fn": '{"retries":2}' });
  assertEquals(storage.fetch({ key: LONG_ID, body: written })?.message, "Not ready: ü");
  assertEquals(storage.fetch({ key: "create_fn", body: written }), { retries: 2 });
  assertEquals(storage.fetch({ key: "absent_fn", body: written }), null);
  const both = body({ [LONG_V2]: '{"retries":5}', [LONG_V1]: '{"retries":1}' });
  assertEquals(storage.fetch({ key: LONG_ID, body: both }), { retries: 5 });
});

Deno.test("a corrupted progress annotation is reported with how to fix it", () => {
  const storage = new AnnotationsProgressStorage();
  assertThrows(
    () => storage.fetch({ key: "fn", body: body({ "kopf.zalando.org/fn": "{oops" }) }),
    StoredStateError,
    "The annotation kopf.zalando.org/fn of default/kex is not a JSON progress record",
  );
});

Deno.test("purging nulls the keys present on the object and drops those only in the patch", () => {
  const storage = new AnnotationsProgressStorage();
  const patch = new Patch();
  storage.store({ key: "other_fn", record: RECORD, body: body(), patch });
  const current = body({ [LONG_V2]: "{}", [LONG_V1]: "{}", "keep/me": "x" });
  storage.purge({ key: LONG_ID, body: current, patch });
  storage.purge({ key: "other_fn", body: current, patch });
  storage.purge({ key: "never_fn", body: current, patch });
  assertEquals(patch.toMergePatch(), {
    metadata: { annotations: { [LONG_V2]: null, [LONG_V1]: null } },
  });
});

Deno.test("touching changes the object only when the touch value differs", () => {
  const storage = new AnnotationsProgressStorage();
  const patch: Record<string, unknown> = {};
  storage.touch({ body: body(), patch, value: "2021-01-01T00:00:00" });
  assertEquals(patch, {
    metadata: { annotations: { "kopf.zalando.org/touch-dummy": "2021-01-01T00:00:00" } },
  });
  const touched = body({ "kopf.zalando.org/touch-dummy": "x" });
  const same: Record<string, unknown> = {};
  storage.touch({ body: touched, patch: same, value: "x" });
  assertEquals(same, {});
  const untouch: Record<string, unknown> = {};
  storage.touch({ body: touched, patch: untouch, value: null });
  assertEquals(untouch, { metadata: { annotations: { "kopf.zalando.org/touch-dummy": null } } });
  storage.touch({ body: body(), patch: same, value: null });
  assertEquals(same, {});
});

Deno.test("status storage keeps full records with nulls under status.kopf.progress", () => {
  const storage = new StatusProgressStorage();
  const patch = new Patch();
  storage.store({ key: "create_fn/sub", record: RECORD, body: body(), patch });
  assertEquals(patch.toMergePatch(), {
    status: { kopf: { progress: { "create_fn/sub": RECORD } } },
  });
  const stored = body({}, { kopf: { progress: { "create_fn/sub": { retries: 3 } } } });
  assertEquals(storage.fetch({ key: "create_fn/sub", body: stored }), { retries: 3 });
  assertEquals(storage.fetch({ key: "x", body: body({}, { kopf: "broken" }) }), null);
  const shared = body({}, {
    kopf: { progress: { "create_fn/sub": { retries: 3 }, "other_fn": { retries: 1 } } },
  });
  const purge = new Patch();
  storage.purge({ key: "create_fn/sub", body: shared, patch: purge });
  assertEquals(purge.toMergePatch(), { status: { kopf: { progress: { "create_fn/sub": null } } } });
  const custom = new StatusProgressStorage({ field: "status.my-op", touchField: ["status", "t"] });
  const touch: Record<string, unknown> = {};
  custom.touch({ body: body(), patch: touch, value: "now" });
  custom.store({ key: "fn", record: { retries: 1 }, body: body(), patch: touch });
  assertEquals(touch, { status: { t: "now", "my-op": { fn: { retries: 1 } } } });
});

Deno.test("purging the last records deletes the emptied progress stanza, not leaving {}", () => {
  const storage = new StatusProgressStorage();
  const both = { kopf: { progress: { a_fn: { retries: 1 }, b_fn: { retries: 2 } } } };
  const purge = new Patch();
  storage.purge({ key: "a_fn", body: body({}, both), patch: purge });
  assertEquals(purge.toMergePatch(), { status: { kopf: { progress: { a_fn: null } } } });
  storage.purge({ key: "b_fn", body: body({}, both), patch: purge });
  assertEquals(purge.toMergePatch(), { status: { kopf: null } });
  storage.purge({ key: "a_fn", body: body({}, both), patch: purge }); // already gone
  assertEquals(purge.toMergePatch(), { status: { kopf: null } });

  // Other fields of status.kopf stay; so does the status itself.
  const touched = { kopf: { progress: { a_fn: {} }, dummy: "x" }, other: 1 };
  const partial: Record<string, unknown> = {};
  storage.purge({ key: "a_fn", body: body({}, touched), patch: partial });
  assertEquals(partial, { status: { kopf: { progress: null } } });
  storage.touch({ body: body({}, touched), patch: partial, value: null });
  assertEquals(partial, { status: { kopf: null } });

  // A record stored after the purge in the same patch keeps the other deletions.
  const revived = new Patch();
  storage.purge({ key: "a_fn", body: body({}, both), patch: revived });
  storage.purge({ key: "b_fn", body: body({}, both), patch: revived });
  storage.store({ key: "c_fn", record: { retries: 0 }, body: body({}, both), patch: revived });
  assertEquals(revived.toMergePatch(), {
    status: { kopf: { progress: { a_fn: null, b_fn: null, c_fn: { retries: 0 } } } },
  });
  const retouched: Record<string, unknown> = {};
  storage.purge({ key: "a_fn", body: body({}, touched), patch: retouched });
  storage.touch({ body: body({}, touched), patch: retouched, value: "y" });
  assertEquals(retouched, { status: { kopf: { progress: null, dummy: "y" } } });

  // Nothing to purge: no patch at all, even for a stanza left empty by someone else.
  const none = new Patch();
  storage.purge({ key: "a_fn", body: body({}, { kopf: { progress: {} } }), patch: none });
  assert(none.isEmpty);
});

Deno.test("the smart storage writes both places, reads annotations first, purges both", async () => {
  const storage = new SmartProgressStorage();
  const patch = new Patch();
  await storage.store({ key: "fn", record: RECORD, body: body(), patch });
  assertEquals(patch.toMergePatch(), {
    metadata: { annotations: { "kopf.zalando.org/fn": RECORD_JSON } },
    status: { kopf: { progress: { fn: RECORD } } },
  });
  const both = body({ "kopf.zalando.org/fn": '{"retries":7}' }, {
    kopf: { progress: { fn: { retries: 1 }, old_fn: { retries: 2 } } },
  });
  assertEquals(await storage.fetch({ key: "fn", body: both }), { retries: 7 });
  assertEquals(await storage.fetch({ key: "old_fn", body: both }), { retries: 2 });
  const purge = new Patch();
  await storage.purge({ key: "fn", body: both, patch: purge });
  assertEquals(purge.toMergePatch(), {
    metadata: { annotations: { "kopf.zalando.org/fn": null } },
    status: { kopf: { progress: { fn: null } } },
  });
});

Deno.test("clearing an essence removes each storage's own fields", () => {
  const storage = new SmartProgressStorage();
  const essence: RawBody = {
    spec: { a: 1 },
    metadata: { annotations: { "kopf.zalando.org/fn": "{}" }, labels: { l: "v" } },
    status: { kopf: { progress: { fn: {} } } },
  };
  const before = structuredClone(essence);
  const cleared = storage.clear(essence);
  assertEquals(cleared, { spec: { a: 1 }, metadata: { labels: { l: "v" } } });
  assertEquals(essence, before, "the input stays untouched");
  // Nothing is copied that needs no change: the spec is the input's own.
  assertEquals(cleared.spec === essence.spec, true);
  const plain: RawBody = { spec: { a: 1 }, metadata: { labels: { l: "v" } } };
  assertEquals(storage.clear(plain) === plain, true, "nothing to clear, nothing copied");
  // Emptied stanzas go as before: annotations only of ours leave no metadata behind.
  const ours: RawBody = { spec: {}, metadata: { annotations: { "kopf.zalando.org/fn": "{}" } } };
  assertEquals(storage.clear(ours), { spec: {} });
  assertEquals(ours.metadata?.annotations, { "kopf.zalando.org/fn": "{}" });
});

Deno.test("custom async storages plug into a multi-storage; non-storages are refused", async () => {
  const records = new Map<string, ProgressRecord>();
  class MemoryStorage extends ProgressStorage {
    override async fetch({ key }: ProgressFetchArgs) {
      await Promise.resolve();
      return records.get(key) ?? null;
    }
    override async store({ key, record }: { key: string; record: ProgressRecord }) {
      await Promise.resolve();
      records.set(key, record);
    }
    override purge({ key }: { key: string }) {
      records.delete(key);
    }
    override touch() {}
  }
  const multi = new MultiProgressStorage([new MemoryStorage(), new AnnotationsProgressStorage()]);
  const patch: Record<string, unknown> = {};
  await multi.store({ key: "fn", record: { retries: 1 }, body: body(), patch });
  assertEquals(records.get("fn"), { retries: 1 });
  assert("metadata" in patch);
  assertEquals(await multi.fetch({ key: "fn", body: body() }), { retries: 1 });
  await multi.purge({ key: "fn", body: body(), patch });
  assertEquals(records.size, 0);
  assertThrows(() => new MultiProgressStorage([]), ConfigurationError, "non-empty array");
  assertThrows(
    () => new MultiProgressStorage([{} as ProgressStorage]),
    ConfigurationError,
    "only ProgressStorage instances",
  );
  assertThrows(
    () => new AnnotationsProgressStorage({ prefix: "" }),
    ConfigurationError,
    "non-empty",
  );
});

Deno.test("built-in storages: records stored and purged again leave the patch as purging alone", async () => {
  const record: ProgressRecord = {
    started: "2024-01-01T00:00:00.000000+00:00",
    purpose: "create",
    retries: 1,
    success: true,
    failure: false,
  };
  const stored = '{"started":"2024-01-01T00:00:00.000000+00:00","retries":0}';
  const bodies: RawBody[] = [
    { spec: {} },
    { metadata: { annotations: { "kopf.zalando.org/a": stored, other: "x" } }, spec: {} },
    { status: { kopf: { progress: { a: { retries: 0 } } }, phase: "Running" } },
    { status: { kopf: { progress: { a: { retries: 0 }, z: {} }, dummy: "x" } } },
    {
      metadata: { annotations: { "kopf.zalando.org/a": stored, "kopf.zalando.org/b": stored } },
      status: { kopf: { progress: { a: {}, b: {} } } },
    },
  ];
  const storages: ProgressStorage[] = [
    new AnnotationsProgressStorage(),
    new StatusProgressStorage(),
    new SmartProgressStorage(),
    new MultiProgressStorage([new StatusProgressStorage(), new AnnotationsProgressStorage()]),
  ];
  for (const storage of storages) {
    assert(storingIsUndoneByPurging(storage), storage.constructor.name);
    for (const body of bodies) {
      for (
        const before of [{}, { status: { a: { result: 1 } }, metadata: { labels: { l: "v" } } }]
      ) {
        const both = new Patch(structuredClone(before));
        const purged = new Patch(structuredClone(before));
        for (const key of ["a", "b"]) await storage.store({ key, record, body, patch: both });
        for (const key of ["a", "b"]) await storage.purge({ key, body, patch: both });
        for (const key of ["a", "b"]) await storage.purge({ key, body, patch: purged });
        assertEquals(
          both.toMergePatch(),
          purged.toMergePatch(),
          `${storage.constructor.name} on ${JSON.stringify(body)}`,
        );
      }
    }
  }
  // Not so where storing writes more than the records: a marker of a foreign prefix, or
  // whatever a custom storage (a subclass too) does with them.
  const foreign = new AnnotationsProgressStorage({ prefix: "my-op.example.com" });
  assertEquals(storingIsUndoneByPurging(foreign), false);
  const marked = new Patch();
  await foreign.store({ key: "a", record, body: { spec: {} }, patch: marked });
  await foreign.purge({ key: "a", body: { spec: {} }, patch: marked });
  assert(Object.keys(marked.toMergePatch()).length > 0, "the marker stays");
  class Subclass extends StatusProgressStorage {}
  assertEquals(storingIsUndoneByPurging(new Subclass()), false);
  assertEquals(
    storingIsUndoneByPurging(new SmartProgressStorage({ prefix: "my-op.example.com" })),
    false,
  );
});

Deno.test("multi storages answer at once over storages that do, with a promise over any that waits", async () => {
  const body = { metadata: { name: "x", annotations: {} } } as RawBody;
  const record: ProgressRecord = { started: "2020-01-01T00:00:00.000000Z", success: true };
  const smart = new SmartProgressStorage();
  const patch = new Patch();
  assertEquals(smart.store({ key: "fn", record, body, patch }), undefined);
  const stored = patch.toMergePatch() as RawBody;
  const fetched = smart.fetch({ key: "fn", body: stored });
  assert(!(fetched instanceof Promise), "the built-in storages answer without a promise");
  assertEquals(fetched, record);

  const annotations = new AnnotationsProgressStorage();
  const waiting = Object.assign(Object.create(annotations), {
    fetch: (args: ProgressFetchArgs) => Promise.resolve(annotations.fetch(args)),
  }) as ProgressStorage;
  const mixed = new MultiProgressStorage([waiting, new StatusProgressStorage()]);
  const pending = mixed.fetch({ key: "fn", body: stored });
  assert(pending instanceof Promise, "a storage that waits makes the answer a promise");
  assertEquals(await pending, record);
});

Deno.test("the smart storage trusts a final record only the status holds no more than a write cut short", async () => {
  const smart = new SmartProgressStorage();
  const done = { ...RECORD, success: true, delayed: null };
  const pending = { ...RECORD, success: false };
  // The status subresource is written before the object: a success there alone means the
  // object's half of the cycle (the handler's other changes) may be lost: run it again.
  const cut = body({}, { kopf: { progress: { fn: done } } });
  assertEquals(await smart.fetch({ key: "fn", body: cut }), null);
  // A record not final yet is read from the status as before (an older operator's).
  const older = body({}, { kopf: { progress: { fn: pending } } });
  assertEquals((await smart.fetch({ key: "fn", body: older }))?.retries, pending.retries);
  // Where the annotations hold it, they are read, final or not.
  const both = body({ "kopf.zalando.org/fn": JSON.stringify(done) }, {
    kopf: { progress: { fn: done } },
  });
  assertEquals((await smart.fetch({ key: "fn", body: both }))?.success, true);
});

Deno.test("a storage says whether it reads the status alone (which metadata-only watches lack)", () => {
  assertEquals(new AnnotationsProgressStorage().readsStatusOnly, false);
  assertEquals(new StatusProgressStorage().readsStatusOnly, true);
  assertEquals(new StatusProgressStorage({ field: "spec.kopf.progress" }).readsStatusOnly, false);
  assertEquals(new SmartProgressStorage().readsStatusOnly, false, "the annotations too");
  const statuses = new MultiProgressStorage([
    new StatusProgressStorage(),
    new StatusProgressStorage({ name: "other" }),
  ]);
  assertEquals(statuses.readsStatusOnly, true);
});
