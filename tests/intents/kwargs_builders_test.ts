/**
 * The arguments handlers receive: their shape per kind, read-only and live views,
 * indices injected by name, and the documented argument examples.
 */
import { causeOf } from "./causes.ts";
import { kopf } from "../../mod.ts";
import type {
  ActivityKwargs,
  ChangingKwargs,
  Index,
  ObjectLogger,
  TimerKwargs,
} from "../../mod.ts";
import {
  buildActivityKwargs,
  buildChangingKwargs,
  buildDaemonKwargs,
  buildEventKwargs,
  buildIndexingKwargs,
  buildTimerKwargs,
  buildWebhookKwargs,
  changeFor,
  type ResourceKwargsInit,
} from "../../src/intents/kwargs_builders.ts";
import { OperatorSettings } from "../../src/settings/operator_settings.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { OperatorIndex } from "../../src/structs/indices.ts";
import { DaemonStopper } from "../../src/structs/stoppers.ts";
import { BodyHolder, isView } from "../../src/structs/views.ts";
import { assert, assertEquals, assertThrows } from "../assert.ts";
import { kexV1 } from "../fixtures/discovered.ts";
import { asResourceObject } from "../../src/structs/metadata_only_bodies.ts";
import { diff } from "../../src/structs/diffs.ts";
import { Patch } from "../../src/structs/patches.ts";
import { matcherOf } from "../../src/intents/registry.ts";

const BODY: RawBody = {
  apiVersion: "kopf.dev/v1",
  kind: "KopfExample",
  metadata: {
    name: "kex-1",
    namespace: "ns",
    uid: "uid-1",
    labels: { app: "a" },
    annotations: { note: "n" },
  },
  spec: { field: "x", items: ["a"] },
  status: { counter: 5 },
};

const RESOURCE_KEYS = [
  "annotations",
  "body",
  "fetchBody",
  "labels",
  "logger",
  "memo",
  "meta",
  "name",
  "namespace",
  "param",
  "patch",
  "resource",
  "spec",
  "status",
  "uid",
];
const RETRY = { retry: 2, started: new Date("2024-01-01T00:00:00Z"), runtime: 1.5 };

function keys(o: object): string[] {
  return Object.keys(o).sort();
}

Deno.test("changing handlers get the object, its parts, the change and the retry state", () => {
  const kw = buildChangingKwargs({ resource: kexV1, body: BODY, param: 10 }, {
    reason: "update",
    old: { spec: { field: "w" } },
    new: { spec: { field: "x" } },
    diff: diff({ spec: { field: "w" } }, { spec: { field: "x" } }),
    ...RETRY,
  });
  assertEquals(
    keys(kw),
    [...RESOURCE_KEYS, "diff", "new", "old", "reason", "retry", "runtime", "started"].sort(),
  );
  assertEquals([kw.name, kw.namespace, kw.uid, kw.param, kw.reason], [
    "kex-1",
    "ns",
    "uid-1",
    10,
    "update",
  ]);
  assertEquals(kw.spec.field, "x");
  assertEquals(kw.meta.labels, { app: "a" });
  assertEquals(kw.labels.app, "a");
  assertEquals(kw.annotations.note, "n");
  assertEquals(kw.status.counter, 5);
  assertEquals(kw.diff, [["change", ["spec", "field"], "w", "x"]]);
  assertEquals([kw.retry, kw.runtime, kw.started.toISOString()], [
    2,
    1.5,
    "2024-01-01T00:00:00.000Z",
  ]);
  assert(kw.resource === kexV1);
  assert(kw.memo instanceof kopf.Memo && kw.patch instanceof Patch);
});

Deno.test("the object's views are read-only: changes go to the patch", () => {
  const kw = buildChangingKwargs({ resource: kexV1, body: BODY }, {
    reason: "create",
    old: null,
    new: BODY,
    diff: [],
    ...RETRY,
  });
  assertThrows(() => ((kw.spec as Record<string, unknown>).field = "y"), TypeError, "read-only");
  assertThrows(() => ((kw.body as Record<string, unknown>).spec = {}), TypeError, "read-only");
  assertThrows(() => ((kw.labels as Record<string, string>).x = "1"), TypeError, "read-only");
  assertThrows(() => ((kw.new as Record<string, unknown>).x = "1"), TypeError, "read-only");
  kw.patch.spec.field = "y";
  assertEquals(kw.patch.toMergePatch(), { spec: { field: "y" } });
  assertEquals((BODY.spec as Record<string, unknown>).field, "x");
});

Deno.test("a missing spec or status reads as empty", () => {
  const kw = buildIndexingKwargs({ resource: kexV1, body: { metadata: { name: "n" } } }, RETRY);
  assertEquals([keys(kw.spec), keys(kw.status), keys(kw.labels), kw.namespace], [
    [],
    [],
    [],
    undefined,
  ]);
});

Deno.test("counting updates with param, as in the arguments example", () => {
  const registry = new kopf.OperatorRegistry({ onWarning: () => {} });
  function countUpdates(
    { param, patch, status }: ChangingKwargs<never, { counter?: number }>,
  ) {
    patch.status.counter = (status.counter ?? 0) + (param as number);
  }
  kopf.on.create("KopfExample", { registry, param: 1000 }, countUpdates);
  kopf.on.resume("KopfExample", { registry, param: 100 }, countUpdates);
  kopf.on.update("KopfExample", { registry, param: 10, field: "spec.field" }, countUpdates);
  kopf.on.update("KopfExample", { registry, param: 1, field: "spec.items" }, countUpdates);
  const cause = {
    reason: "update" as const,
    body: BODY,
    old: { spec: { field: "w", items: [] } },
    new: { spec: BODY.spec },
  };
  const patch = new Patch();
  let status = BODY.status as { counter: number };
  for (const h of matcherOf(registry).selectChangingHandlers(kexV1, causeOf(cause))) {
    const body = { ...BODY, status };
    h.fn(buildChangingKwargs({ resource: kexV1, body, patch, param: h.param }, {
      reason: cause.reason,
      old: null,
      new: null,
      diff: [],
      ...RETRY,
    }) as never);
    status = patch.toMergePatch().status as { counter: number };
  }
  assertEquals(status.counter, 5 + 10 + 1);
});

Deno.test("event handlers get the raw event and its type", () => {
  const kw = buildEventKwargs({ resource: kexV1, body: BODY }, { type: null, object: BODY });
  assertEquals(keys(kw), [...RESOURCE_KEYS, "event", "type"].sort());
  assertEquals([kw.type, kw.event.type, kw.event.object.metadata.name], [null, null, "kex-1"]);
});

Deno.test("daemons and timers see live views that follow the latest body", () => {
  const holder = new BodyHolder(BODY);
  const stopped = new DaemonStopper();
  const kw = buildDaemonKwargs({ resource: kexV1, body: BODY, holder }, { stopped, ...RETRY });
  assertEquals(keys(kw), [...RESOURCE_KEYS, "retry", "runtime", "started", "stopped"].sort());
  assertEquals(kw.spec.field, "x");
  holder.update({
    ...BODY,
    spec: { field: "changed" },
    metadata: { ...BODY.metadata, labels: { app: "b" } },
  });
  assertEquals(kw.spec.field, "changed");
  assertEquals(kw.labels.app, "b");
  assertEquals(kw.body.spec?.field, "changed");
  assert(kw.stopped === stopped && !kw.stopped.isSet);
  const timer = buildTimerKwargs({ resource: kexV1, body: BODY, holder }, RETRY);
  assertEquals(timer.spec.field, "changed");
  assertThrows(() => ((timer.spec as Record<string, unknown>).field = 1), TypeError, "read-only");
});

Deno.test("admission handlers get the request's details and a mutable warnings list", () => {
  const warnings: string[] = [];
  const kw = buildWebhookKwargs({ resource: kexV1, body: BODY }, {
    dryrun: true,
    subresource: null,
    warnings,
    userinfo: { username: "admin" },
    headers: { authorization: "Bearer x" },
    sslpeer: null,
    operation: "UPDATE",
    old: { metadata: { name: "kex-1" }, spec: { field: "w" } },
    new: BODY,
  });
  assertEquals(
    keys(kw),
    [
      ...RESOURCE_KEYS,
      "dryrun",
      "headers",
      "new",
      "old",
      "operation",
      "sslpeer",
      "subresource",
      "userinfo",
      "warnings",
    ]
      .sort(),
  );
  kw.warnings.push("Verified with the operator's hook.");
  assertEquals(warnings, ["Verified with the operator's hook."]);
  assertEquals([kw.dryrun, kw.operation, kw.old?.spec?.field, kw.new?.spec?.field], [
    true,
    "UPDATE",
    "w",
    "x",
  ]);
});

Deno.test("activity handlers get settings, logger, memo, param and the retry state", () => {
  const settings = new OperatorSettings();
  const memo = new kopf.Memo({ queue: [] });
  const kw = buildActivityKwargs({ activity: "startup", settings, memo, param: "p", ...RETRY });
  assertEquals(keys(kw), [
    "activity",
    "logger",
    "memo",
    "param",
    "retry",
    "runtime",
    "settings",
    "started",
  ]);
  assert(kw.settings === settings && kw.memo === memo);
  kw.settings.posting.enabled = false; // startup handlers may change the settings
  assertEquals(settings.posting.enabled, false);
});

Deno.test("the object's memo is fetched only when a handler reads it, once", () => {
  let fetched = 0;
  const memo = new kopf.Memo({ seen: 1 });
  const kw = buildChangingKwargs({
    resource: kexV1,
    body: BODY,
    memoOf: () => {
      fetched++;
      return memo;
    },
  }, { reason: "create", old: null, new: null, diff: [], ...RETRY });
  const { name, spec } = kw;
  assertEquals([name, spec.field, fetched], ["kex-1", "x", 0]);
  assert(kw.memo === memo && kw.memo === memo);
  assertEquals(fetched, 1);
  assertEquals(Object.keys(kw).includes("memo"), true);
});

Deno.test("declared indices are injected by name and override framework arguments", () => {
  const byLabel = new OperatorIndex<readonly [string, string], string>();
  byLabel.replace("ns/pod1", new Map([[["label2", "value2b"], "pod1"]]));
  const memoIndex = new OperatorIndex();
  const init: ResourceKwargsInit = {
    resource: kexV1,
    body: BODY,
    holder: new BodyHolder(BODY),
    indices: { byLabel: byLabel as Index, memo: memoIndex },
  };
  const kw = buildTimerKwargs({ ...init, holder: init.holder! }, RETRY) as TimerKwargs & {
    byLabel: Index<readonly [string, string], string>;
  };
  assertEquals([...(kw.byLabel.get(["label2", "value2b"]) ?? [])], ["pod1"]);
  assert((kw as unknown as { memo: unknown }).memo === memoIndex, "an index named memo wins");
  const activity = buildActivityKwargs({
    activity: "probe",
    settings: new OperatorSettings(),
    memo: {},
    indices: { byLabel: byLabel as Index },
    ...RETRY,
  }) as ActivityKwargs & { byLabel: Index };
  assert(activity.byLabel === byLabel);
});

Deno.test("a logger and a memo given to the builder are passed through", () => {
  const lines: string[] = [];
  const logger: ObjectLogger = {
    debug: (m) => lines.push(`debug ${m}`),
    info: (m) => lines.push(`info ${m}`),
    warning: (m) => lines.push(`warning ${m}`),
    error: (m) => lines.push(`error ${m}`),
    exception: (m) => lines.push(`exception ${m}`),
  };
  const memo = new kopf.Memo();
  const kw = buildIndexingKwargs({ resource: kexV1, body: BODY, logger, memo }, RETRY);
  kw.logger.info(`FIELD=${kw.spec.field}`);
  kw.memo.seen = true;
  assertEquals(lines, ["info FIELD=x"]);
  assertEquals(memo.seen, true);
});

Deno.test("field handlers see the change narrowed to their field", () => {
  const old = { metadata: { labels: { label2: "o", label3: "o" } }, spec: { size: "1G" } };
  const neu = { metadata: { labels: { label1: "n", label2: "n" } }, spec: { size: "1G" } };
  const change = { old, new: neu, diff: diff(old, neu) };
  const narrowed = changeFor({ field: ["metadata", "labels"] }, change);
  assertEquals(narrowed.old, { label2: "o", label3: "o" });
  assertEquals(narrowed.new, { label1: "n", label2: "n" });
  assertEquals(narrowed.diff, [
    ["remove", ["label3"], "o", null],
    ["add", ["label1"], null, "n"],
    ["change", ["label2"], "o", "n"],
  ]);
  assert(changeFor({ field: undefined }, change) === change);
  assertEquals(changeFor({ field: ["spec", "none"] }, change), { old: null, new: null, diff: [] });
});

Deno.test("the views are plain keys in order, the same view each time", () => {
  const old = { spec: { field: "w" } };
  const kw = buildChangingKwargs({ resource: kexV1, body: BODY }, {
    reason: "update",
    old,
    new: { spec: BODY.spec },
    diff: [],
    ...RETRY,
  });
  assert(Object.getPrototypeOf(kw) === Object.prototype);
  assertEquals(Object.keys(kw), [
    "resource",
    "body",
    "spec",
    "meta",
    "status",
    "labels",
    "annotations",
    "uid",
    "name",
    "namespace",
    "patch",
    "logger",
    "memo",
    "param",
    "fetchBody",
    "reason",
    "old",
    "new",
    "diff",
    "retry",
    "started",
    "runtime",
  ]);
  assert(kw.spec === kw.spec && kw.body === kw.body && kw.old === kw.old);
  assert(isView(kw.body) && isView(kw.spec) && isView(kw.meta) && isView(kw.old));
  assert((kw.old as typeof old).spec === (kw.old as typeof old).spec);
  assertEquals({ ...kw }.spec as unknown, BODY.spec);
  // Assigned keys hold what is assigned, as plain keys would.
  const spec = { replaced: true };
  (kw as { spec: unknown }).spec = spec;
  assert(kw.spec === (spec as unknown));
  const prim = buildChangingKwargs({ resource: kexV1, body: BODY }, {
    reason: "update",
    old: "a",
    new: null,
    diff: [],
    ...RETRY,
  });
  assertEquals([prim.old, prim.new], ["a", null]);
});

Deno.test("fetchBody: the body itself when whole; read from its source when metadata only", async () => {
  const whole = buildIndexingKwargs({ resource: kexV1, body: BODY }, RETRY);
  assertEquals(JSON.stringify((await whole.fetchBody()).spec), JSON.stringify(BODY.spec));
  const reads: string[] = [];
  const partial: RawBody = {
    apiVersion: "meta.k8s.io/v1",
    kind: "PartialObjectMetadata",
    metadata: { name: "kex-1" },
  };
  assertEquals(asResourceObject(partial, "kopf.dev/v1", "KopfExample"), true);
  const source = {
    read: (body: RawBody) => {
      reads.push(String(body.metadata?.name));
      return Promise.resolve(BODY);
    },
  };
  const holder = new BodyHolder(partial, source);
  const kw = buildTimerKwargs({ resource: kexV1, body: partial, holder }, RETRY);
  assertEquals(kw.body.kind, "KopfExample");
  assertEquals(kw.spec, {});
  assertEquals(JSON.stringify((await kw.fetchBody()).spec), JSON.stringify(BODY.spec));
  assertEquals(reads, ["kex-1"]);
  assertEquals(JSON.stringify(partial).includes("bodySource"), false, "the mark is not data");
});

Deno.test("the arguments keep V8's fast properties, not a dictionary's", async () => {
  // Asked of V8 itself, in a process of its own with its natives' syntax allowed. A plain
  // object given more than a dozen keys by `obj[key] = ...` beyond its room turns into a
  // dictionary, several times slower to read and write for every handler call.
  const script = `
    import { buildChangingKwargs } from ${
    JSON.stringify(
      new URL("../../src/intents/kwargs_builders.ts", import.meta.url).href,
    )
  };
    const fast = new Function("o", "return %HasFastProperties(o)");
    const kw = buildChangingKwargs(
      { resource: {}, body: { metadata: { name: "n", namespace: "ns" }, spec: {} } },
      { reason: "create", old: null, new: {}, diff: [], retry: 0, started: new Date(),
        runtime: 0 },
    );
    console.log(JSON.stringify([fast(kw), Object.keys(kw).length]));
  `;
  const { success, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--v8-flags=--allow-natives-syntax", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert(success, new TextDecoder().decode(stderr));
  assertEquals(JSON.parse(new TextDecoder().decode(stdout)), [true, 22]);
});
