/**
 * Filtering, example by example as documented: metadata filters, field filters, change
 * filters, value callbacks, whole-object callbacks and their combinators.
 */
import { kopf } from "../../mod.ts";
import type { ChangingKwargs } from "../../mod.ts";
import { FilterCallbackError } from "../../src/intents/filters.ts";
import type { CauseMatch } from "../../src/intents/handler_matching.ts";
import { causeOf } from "./causes.ts";
import { matcherOf } from "../../src/intents/registry.ts";
import { buildChangingKwargs } from "../../src/intents/kwargs_builders.ts";
import { assert, assertEquals, assertThrows } from "../assert.ts";
import { kexV1 } from "../fixtures/discovered.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { Resource } from "../../src/structs/resources.ts";
import { diff } from "../../src/structs/diffs.ts";

function fresh(): kopf.OperatorRegistry {
  return new kopf.OperatorRegistry({ onWarning: () => {} });
}

function body(
  extra: {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    spec?: object;
    name?: string;
  } = {},
): RawBody {
  return {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: {
      name: extra.name ?? "kex-1",
      namespace: "ns",
      labels: extra.labels,
      annotations: extra.annotations,
    },
    spec: (extra.spec ?? {}) as never,
  };
}

/** The ids of the handlers selected for a creation of the body. */
function created(registry: kopf.OperatorRegistry, b: RawBody): string[] {
  return matcherOf(registry).selectChangingHandlers(
    kexV1,
    causeOf({
      reason: "create",
      body: b,
      old: null,
      new: b,
    }),
  )
    .map((h) => h.id);
}

/** The ids of the handlers selected for an update from one spec to another. */
function updated(registry: kopf.OperatorRegistry, oldSpec: object, newSpec: object): string[] {
  const b = body({ spec: newSpec });
  const cause: CauseMatch = causeOf({
    reason: "update",
    body: b,
    old: { spec: oldSpec },
    new: { spec: newSpec },
    kwargs: () =>
      buildChangingKwargs({ resource: kexV1, body: b }, {
        reason: "update",
        old: { spec: oldSpec },
        new: { spec: newSpec },
        diff: diff({ spec: oldSpec }, { spec: newSpec }),
        retry: 0,
        started: new Date(),
        runtime: 0,
      }),
  });
  return matcherOf(registry).selectChangingHandlers(kexV1, cause).map((h) => h.id);
}

Deno.test("labels and annotations with specific values", () => {
  const registry = fresh();
  kopf.on.create("kopfexamples", {
    registry,
    labels: { "some-label": "somevalue" },
    annotations: { "some-annotation": "somevalue" },
  }, function myHandler() {});
  assertEquals(
    created(
      registry,
      body({
        labels: { "some-label": "somevalue" },
        annotations: { "some-annotation": "somevalue" },
      }),
    ),
    ["myHandler"],
  );
  assertEquals(
    created(
      registry,
      body({ labels: { "some-label": "other" }, annotations: { "some-annotation": "somevalue" } }),
    ),
    [],
  );
  assertEquals(created(registry, body({ labels: { "some-label": "somevalue" } })), []);
});

Deno.test("labels and annotations present with any value, empty strings included", () => {
  const registry = fresh();
  kopf.on.create("kopfexamples", {
    registry,
    labels: { "some-label": kopf.PRESENT },
    annotations: { "some-annotation": kopf.PRESENT },
  }, function myHandler() {});
  assertEquals(
    created(
      registry,
      body({ labels: { "some-label": "x" }, annotations: { "some-annotation": "" } }),
    ),
    ["myHandler"],
  );
  assertEquals(created(registry, body({ labels: { "some-label": "" }, annotations: {} })), []);
});

Deno.test("labels and annotations absent", () => {
  const registry = fresh();
  kopf.on.create("kopfexamples", {
    registry,
    labels: { "some-label": kopf.ABSENT },
    annotations: { "some-annotation": kopf.ABSENT },
  }, function myHandler() {});
  assertEquals(created(registry, body()), ["myHandler"]);
  assertEquals(created(registry, body({ labels: { other: "x" } })), ["myHandler"]);
  assertEquals(
    created(registry, body({ labels: { "some-label": "" } })),
    [],
    "empty string is present",
  );
});

Deno.test("field filters: a specific value, present, absent", () => {
  const registry = fresh();
  kopf.on.create(
    "kopfexamples",
    { registry, field: "spec.field", value: "world" },
    function createdWithWorldInField() {},
  );
  kopf.on.create(
    "kopfexamples",
    { registry, field: "spec.field", value: kopf.PRESENT },
    function createdWithField() {},
  );
  kopf.on.create(
    "kopfexamples",
    { registry, field: "spec.no-field", value: kopf.ABSENT },
    function createdWithoutField() {},
  );
  assertEquals(created(registry, body({ spec: { field: "world" } })), [
    "createdWithWorldInField/spec.field",
    "createdWithField/spec.field",
    "createdWithoutField/spec.no-field",
  ]);
  assertEquals(created(registry, body({ spec: { field: "hello", "no-field": 1 } })), [
    "createdWithField/spec.field",
  ]);
});

Deno.test("a field without a value means present; for updates, affected in any way", () => {
  const registry = fresh();
  kopf.on.create("kopfexamples", { registry, field: "spec.field" }, function createdWithField() {});
  kopf.on.update("kopfexamples", { registry, field: "spec.field" }, function fieldIsAffected() {});
  assertEquals(created(registry, body({ spec: { field: 0 } })), ["createdWithField/spec.field"]);
  assertEquals(created(registry, body({ spec: {} })), []);
  assertEquals(updated(registry, { field: "a" }, { field: "b" }), ["fieldIsAffected/spec.field"]);
  assertEquals(updated(registry, {}, { field: "b" }), ["fieldIsAffected/spec.field"]);
  assertEquals(updated(registry, { field: "a" }, {}), ["fieldIsAffected/spec.field"]);
  assertEquals(updated(registry, { field: "a", other: 1 }, { field: "a", other: 2 }), []);
});

Deno.test("one function for several fields runs once per field with its own param", () => {
  const registry = fresh();
  function oneOfTheFieldsIsAffected() {}
  kopf.on.update(
    "kopfexamples",
    { registry, field: "spec.field", param: "fld" },
    oneOfTheFieldsIsAffected,
  );
  kopf.on.update(
    "kopfexamples",
    { registry, field: "spec.items", param: "itm" },
    oneOfTheFieldsIsAffected,
  );
  const b = body({ spec: { field: 2, items: [2] } });
  const selected = matcherOf(registry).selectChangingHandlers(
    kexV1,
    causeOf({
      reason: "update",
      body: b,
      old: { spec: { field: 1, items: [1] } },
      new: { spec: { field: 2, items: [2] } },
    }),
  );
  assertEquals(selected.map((h) => [h.id, h.param]), [
    ["oneOfTheFieldsIsAffected/spec.field", "fld"],
    ["oneOfTheFieldsIsAffected/spec.items", "itm"],
  ]);
  assertEquals(updated(registry, { items: [1] }, { items: [1, 2] }), [
    "oneOfTheFieldsIsAffected/spec.items",
  ]);
});

Deno.test("a resume+create pair with the same field runs once", () => {
  const registry = fresh();
  function fn() {}
  kopf.on.resume("kopfexamples", { registry, field: "spec.field" }, fn);
  kopf.on.create("kopfexamples", { registry, field: "spec.field" }, fn);
  const b = body({ spec: { field: "x" } });
  const ids = matcherOf(registry).selectChangingHandlers(
    kexV1,
    causeOf({
      reason: "create",
      initial: true,
      body: b,
      old: null,
      new: b,
    }),
  )
    .map((h) => h.id);
  assertEquals(ids, ["fn/spec.field"]);
});

Deno.test("for updates, value matches either the old or the new side", () => {
  const registry = fresh();
  kopf.on.update(
    "kopfexamples",
    { registry, field: "spec.field", value: "world" },
    function fn() {},
  );
  assertEquals(
    updated(registry, { field: "hello" }, { field: "world" }),
    ["fn/spec.field"],
    "criterion reached",
  );
  assertEquals(
    updated(registry, { field: "world" }, { field: "hello" }),
    ["fn/spec.field"],
    "criterion lost",
  );
  assertEquals(updated(registry, { field: "a" }, { field: "b" }), []);
});

Deno.test("old/new filters: edited, added, removed", () => {
  const registry = fresh();
  kopf.on.update(
    "kopfexamples",
    { registry, field: "spec.field", old: "x", new: "y" },
    function fieldIsEdited() {},
  );
  kopf.on.update("kopfexamples", {
    registry,
    field: "spec.field",
    old: kopf.ABSENT,
    new: kopf.PRESENT,
  }, function fieldIsAdded() {});
  kopf.on.update("kopfexamples", {
    registry,
    field: "spec.field",
    old: kopf.PRESENT,
    new: kopf.ABSENT,
  }, function fieldIsRemoved() {});
  assertEquals(updated(registry, { field: "x" }, { field: "y" }), ["fieldIsEdited/spec.field"]);
  assertEquals(updated(registry, { field: "y" }, { field: "x" }), []);
  assertEquals(updated(registry, {}, { field: "y" }), ["fieldIsAdded/spec.field"]);
  assertEquals(updated(registry, { field: "x" }, { field: null }), ["fieldIsRemoved/spec.field"]);
});

Deno.test("only new or only old: the other side is not checked", () => {
  const registry = fresh();
  kopf.on.update(
    "kopfexamples",
    { registry, field: "spec.field", new: "world" },
    function helloWorld() {},
  );
  kopf.on.update(
    "kopfexamples",
    { registry, field: "spec.field", old: "world" },
    function goodbyeWorld() {},
  );
  assertEquals(updated(registry, { field: "hello" }, { field: "world" }), [
    "helloWorld/spec.field",
  ]);
  assertEquals(updated(registry, {}, { field: "world" }), ["helloWorld/spec.field"]);
  assertEquals(updated(registry, { field: "world" }, { field: "bye" }), [
    "goodbyeWorld/spec.field",
  ]);
  assertEquals(updated(registry, { field: "world" }, {}), ["goodbyeWorld/spec.field"]);
  assertEquals(
    updated(registry, { field: "world", x: 1 }, { field: "world", x: 2 }),
    [],
    "unchanged",
  );
});

Deno.test("value callbacks get the value (null when absent) and the handler's arguments", () => {
  const registry = fresh();
  const seen: unknown[] = [];
  const checkValue = (value: string | null, { spec }: ChangingKwargs) => {
    seen.push(value);
    return value === "some-value" && spec.field !== undefined;
  };
  kopf.on.create("kopfexamples", {
    registry,
    labels: { "some-label": checkValue },
    annotations: { "some-annotation": checkValue },
  }, function myHandler() {});
  const b = body({
    labels: { "some-label": "some-value" },
    annotations: { "some-annotation": "some-value" },
    spec: { field: 1 },
  });
  const kwargs = () =>
    buildChangingKwargs({ resource: kexV1, body: b }, {
      reason: "create",
      old: null,
      new: b,
      diff: [],
      retry: 0,
      started: new Date(),
      runtime: 0,
    });
  const ids = matcherOf(registry).selectChangingHandlers(
    kexV1,
    causeOf({
      reason: "create",
      body: b,
      old: null,
      new: b,
      kwargs,
    }),
  )
    .map((h) => h.id);
  assertEquals(ids, ["myHandler"]);
  assertEquals(created(registry, body({ spec: { field: 1 } })), []);
  assertEquals(seen.slice(-1), [null]);
});

Deno.test("whole-object callbacks: a named function and an inline one", () => {
  const registry = fresh();
  const isGoodEnough = ({ spec }: ChangingKwargs<{ field?: string; items?: string[] }>) =>
    (spec.items ?? []).includes(spec.field ?? "");
  kopf.on.create<{ field?: string; items?: string[] }>("kopfexamples", {
    registry,
    when: isGoodEnough,
  }, function named() {});
  kopf.on.create<{ field?: string; items?: string[] }>("kopfexamples", {
    registry,
    when: ({ spec }) => (spec.items ?? []).includes(spec.field ?? ""),
  }, function inline() {});
  assertEquals(created(registry, body({ spec: { field: "a", items: ["a", "b"] } })), [
    "named",
    "inline",
  ]);
  assertEquals(created(registry, body({ spec: { field: "c", items: ["a", "b"] } })), []);
});

Deno.test("callbacks may filter by any argument: the reason, the memo", () => {
  const registry = fresh();
  kopf.on.resume(
    "kopfexamples",
    { registry, when: ({ reason }) => reason === "resume" },
    function onlyResumes() {},
  );
  const b = body();
  const pick = (reason: kopf.Reason) =>
    matcherOf(registry).selectChangingHandlers(
      kexV1,
      causeOf({
        reason,
        initial: true,
        body: b,
        old: b,
        new: b,
      }),
    ).map((
      h,
    ) => h.id);
  assertEquals(pick("resume"), ["onlyResumes"]);
  assertEquals(pick("create"), []);
});

Deno.test("callback helpers: all and any, for whole objects and for values", () => {
  const registry = fresh();
  const wholeFn1 = ({ name }: ChangingKwargs) => (name ?? "").startsWith("kopf-");
  const wholeFn2 = ({ spec }: ChangingKwargs) => spec.field === "value";
  const valueFn1 = (value: string | null) => value !== null && value.startsWith("some");
  const valueFn2 = (value: string | null) => value !== null && value.endsWith("label");
  kopf.on.create("kopfexamples", {
    registry,
    when: kopf.all([wholeFn1, wholeFn2]),
    labels: { somelabel: kopf.all([valueFn1, valueFn2]) },
  }, function createFn1() {});
  kopf.on.create("kopfexamples", {
    registry,
    when: kopf.any([wholeFn1, wholeFn2]),
    labels: { somelabel: kopf.any([valueFn1, valueFn2]) },
  }, function createFn2() {});
  kopf.on.create("kopfexamples", {
    registry,
    when: kopf.none([wholeFn1, wholeFn2]),
    labels: { somelabel: kopf.not(valueFn1) },
  }, function createFn3() {});
  const pick = (name: string, field: string, label: string) =>
    created(registry, body({ name, spec: { field }, labels: { somelabel: label } }));
  assertEquals(pick("kopf-1", "value", "somelabel"), ["createFn1", "createFn2"]);
  assertEquals(pick("kopf-1", "other", "some-other"), ["createFn2"]);
  assertEquals(pick("x", "other", "other"), ["createFn3"]);
});

Deno.test("objects that match no filters select no handlers (stealth mode)", () => {
  const registry = fresh();
  kopf.on.create("kopfexamples", { registry, labels: { managed: "yes" } }, function fn() {});
  kopf.on.event("kopfexamples", { registry, labels: { managed: "yes" } }, function ev() {});
  const b = body();
  assertEquals(created(registry, b), []);
  assertEquals(matcherOf(registry).selectEventHandlers(kexV1, { body: b }), []);
});

Deno.test("asynchronous filter callbacks are refused when checked", () => {
  const registry = fresh();
  kopf.on.create(
    "kopfexamples",
    { registry, when: (() => Promise.resolve(true)) as never },
    function fn() {},
  );
  assertThrows(() => created(registry, body()), FilterCallbackError, "must be synchronous");
});

Deno.test("daemons, timers, indices and webhooks check the current body only", () => {
  const registry = fresh();
  kopf.daemon("kopfexamples", { registry, field: "spec.field", value: "on" }, function d() {});
  kopf.timer(
    "kopfexamples",
    { registry, interval: 1, labels: { a: kopf.PRESENT } },
    function t() {},
  );
  kopf.index("kopfexamples", { registry, annotations: { x: kopf.ABSENT } }, function i() {});
  kopf.on.validate(
    "kopfexamples",
    { registry, operation: "CREATE", field: "spec.field" },
    function v() {},
  );
  kopf.on.mutate("kopfexamples", { registry, subresource: "status" }, function m() {});
  const on = body({ spec: { field: "on" }, labels: { a: "" } });
  assertEquals(matcherOf(registry).selectSpawningHandlers(kexV1, { body: on }).map((h) => h.id), [
    "d/spec.field",
    "t",
  ]);
  assertEquals(
    matcherOf(registry).selectSpawningHandlers(kexV1, { body: body() }).map((h) => h.id),
    [],
  );
  assertEquals(matcherOf(registry).selectIndexingHandlers(kexV1, { body: on }).map((h) => h.id), [
    "i",
  ]);
  const request = {
    type: "validating" as const,
    operation: "CREATE" as const,
    subresource: null,
    body: on,
  };
  assertEquals(matcherOf(registry).selectWebhookHandlers(kexV1, request).map((h) => h.id), ["v"]);
  assertEquals(
    matcherOf(registry).selectWebhookHandlers(kexV1, { ...request, operation: "UPDATE" }),
    [],
  );
  const mutation = { ...request, type: "mutating" as const };
  assertEquals(
    matcherOf(registry).selectWebhookHandlers(kexV1, mutation),
    [],
    "main body only by default",
  );
  assertEquals(
    matcherOf(registry).selectWebhookHandlers(kexV1, { ...mutation, subresource: "status" }).map((
      h,
    ) => h.id),
    ["m"],
  );
  assert(
    matcherOf(registry).selectWebhookHandlers(kexV1, { ...mutation, subresource: "scale" })
      .length === 0,
  );
});

Deno.test("children's status reaching a value notifies with a per-kind param", () => {
  const registry = fresh();
  function childUpdated() {}
  kopf.on.update(
    "Child1",
    { registry, param: "first", field: "status.done", new: true },
    childUpdated,
  );
  kopf.on.update(
    "Child2",
    { registry, param: "second", field: "status.done", new: true },
    childUpdated,
  );
  const child1 = new Resource({
    group: "example.com",
    version: "v1",
    plural: "child1s",
    kind: "Child1",
  });
  const pick = (oldDone: boolean | undefined, newDone: boolean) =>
    matcherOf(registry).selectChangingHandlers(
      child1,
      causeOf({
        reason: "update",
        body: { metadata: { name: "c" }, status: { done: newDone } },
        old: { status: { done: oldDone } },
        new: { status: { done: newDone } },
      }),
    ).map((h) => h.param);
  assertEquals(pick(false, true), ["first"]);
  assertEquals(pick(undefined, true), ["first"]);
  assertEquals(pick(true, false), []);
  assertEquals(matcherOf(registry).extraFields(child1), [["status", "done"]]);
});

Deno.test("a failing filter callback is reported with its handler named", () => {
  const registry = fresh();
  kopf.on.create("kopfexamples", {
    registry,
    when: () => {
      throw new Error("boom");
    },
  }, function fragile() {});
  const error = assertThrows(() => created(registry, body()), FilterCallbackError);
  assertEquals(error.message, "A filter of kopf.on.create handler fragile failed: boom");
  assert(error.cause instanceof Error);
});
