/**
 * Registration: records carry what the handling cycle needs; ids, de-duplication,
 * `param`, default and explicit registries.
 */
import { causeOf } from "./causes.ts";
import { kopf } from "../../mod.ts";
import type {
  ChangingHandler,
  DaemonHandler,
  Handler,
  IndexingHandler,
  TimerHandler,
  WebhookHandler,
} from "../../src/intents/handlers.ts";
import { matcherOf } from "../../src/intents/registry.ts";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { DISCOVERED, kexV1, pods } from "../fixtures/discovered.ts";

function fresh(): kopf.OperatorRegistry {
  return new kopf.OperatorRegistry({ onWarning: () => {} });
}

const only = <H extends Handler>(registry: kopf.OperatorRegistry): H =>
  matcherOf(registry).handlers.at(-1) as H;

Deno.test("registration returns the function, so one function can be registered many times", () => {
  const registry = fresh();
  function myHandler() {}
  const returned = kopf.on.resume("kopfexamples", { registry }, myHandler);
  kopf.on.create("kopfexamples", { registry }, returned);
  assert(returned === myHandler);
  assertEquals(matcherOf(registry).handlers.map((h) => h.id), ["myHandler", "myHandler"]);
});

Deno.test("resource-changing records carry reason, finalizer, retry policy and filters", () => {
  const registry = fresh();
  const f = function f() {};
  kopf.on.create("kex", { registry, errors: "permanent", timeout: 60, retries: 3, backoff: 5 }, f);
  assertEquals(pick(only(registry)), {
    kind: "changing",
    id: "f",
    reason: "create",
    initial: false,
    deleted: false,
    requiresFinalizer: false,
    errors: "permanent",
    timeout: 60,
    retries: 3,
    backoff: 5,
  });
  kopf.on.update("kex", { registry }, f);
  assertEquals(pick(only(registry)).errors, "temporary");
  assertEquals(pick(only(registry)).backoff, 60);
  kopf.on.delete("kex", { registry }, f);
  assertEquals(pick(only(registry)).requiresFinalizer, true);
  kopf.on.delete("kex", { registry, optional: true }, f);
  assertEquals(pick(only(registry)).requiresFinalizer, false);
  kopf.on.resume("kex", { registry, deleted: true }, f);
  assertEquals([only<ChangingHandler>(registry).reason, pick(only(registry)).initial], [
    null,
    true,
  ]);
  assertEquals(pick(only(registry)).deleted, true);
  kopf.on.field("kex", { registry, field: "spec.x" }, f);
  const field = only<ChangingHandler>(registry);
  assertEquals([field.reason, field.field, field.id, field.fieldNeedsChange], [
    null,
    ["spec", "x"],
    "f/spec.x",
    true,
  ]);
});

function pick(h: Handler): Record<string, unknown> {
  const keys = [
    "kind",
    "id",
    "reason",
    "initial",
    "deleted",
    "requiresFinalizer",
    "errors",
    "timeout",
    "retries",
    "backoff",
  ];
  return Object.fromEntries(keys.filter((k) => k in h).map((k) => [k, (h as never)[k]]));
}

Deno.test("daemon, timer, index, webhook and activity records carry their own options", () => {
  const registry = fresh();
  function monitor() {}
  kopf.daemon("kex", {
    registry,
    initialDelay: 30,
    cancellationBackoff: 1,
    cancellationTimeout: 3,
    cancellationPolling: 0.5,
  }, monitor);
  const d = only<DaemonHandler>(registry);
  assertEquals(
    [d.kind, d.initialDelay, d.cancellationBackoff, d.cancellationTimeout, d.cancellationPolling],
    ["daemon", 30, 1, 3, 0.5],
  );
  assert(d.requiresFinalizer);
  kopf.on.daemon("kex", { registry }, monitor); // the same function under kopf.on
  assertEquals(only<DaemonHandler>(registry).cancellationTimeout, null);

  function ping() {}
  kopf.timer("kex", { registry, initialDelay: 60, interval: 10, idle: 600, sharp: true }, ping);
  const t = only<TimerHandler>(registry);
  assertEquals([t.interval, t.idle, t.initialDelay, t.sharp], [10, 600, 60, true]);
  kopf.on.timer("kex", { registry, idle: 10 }, ping);
  assertEquals(
    [only<TimerHandler>(registry).interval, only<TimerHandler>(registry).idle],
    [null, 10],
  );

  function byLabel() {}
  kopf.index("pods", { registry, field: "spec.nodeName" }, byLabel);
  const i = only<IndexingHandler>(registry);
  assertEquals([i.kind, i.id, i.errors], ["index", "byLabel", "ignored"]); // no field suffix
  kopf.on.index("pods", { registry, id: "podsByNode" }, byLabel);
  assertEquals(matcherOf(registry).indexNames(), ["byLabel", "podsByNode"]);

  function check() {}
  kopf.on.validate("kex", { registry, operation: ["CREATE", "UPDATE"], subresource: "*" }, check);
  const v = only<WebhookHandler>(registry);
  assertEquals(
    [v.type, v.operations, v.subresource, v.persistent, v.sideEffects, v.ignoreFailures],
    ["validating", ["CREATE", "UPDATE"], "*", false, false, false],
  );
  kopf.on.mutate("kex", {
    registry,
    operation: "*",
    persistent: true,
    sideEffects: true,
    ignoreFailures: true,
  }, check);
  const m = only<WebhookHandler>(registry);
  assertEquals(
    [m.type, m.operations, m.subresource, m.persistent, m.sideEffects, m.ignoreFailures],
    [
      "mutating",
      null,
      null,
      true,
      true,
      true,
    ],
  );

  function now() {}
  kopf.on.probe({ registry, id: "now" }, now);
  kopf.on.startup({ registry, retries: 3 }, now);
  kopf.on.login({ registry }, now);
  assertEquals(matcherOf(registry).activityHandlers("probe").map((h) => h.id), ["now"]);
  assertEquals(matcherOf(registry).activityHandlers("startup").map((h) => [h.id, h.retries]), [[
    "now",
    3,
  ]]);
});

Deno.test("the default registry is used unless one is given, and can be replaced", () => {
  const previous = kopf.getDefaultRegistry();
  const mine = fresh();
  kopf.setDefaultRegistry(mine);
  try {
    const byDefault = function byDefault() {};
    kopf.on.login(byDefault);
    kopf.on.event("pods", byDefault);
    assertEquals(matcherOf(mine).handlers.map((h) => h.kind), ["activity", "event"]);
    assertEquals(matcherOf(mine).activityHandlers("login")[0].id, "byDefault");
  } finally {
    kopf.setDefaultRegistry(previous);
  }
});

Deno.test("ids: explicit id, else the function's name; fields are suffixed", () => {
  const registry = fresh();
  const named = async function createFn() {};
  const arrow = () => {};
  kopf.on.create("kex", { registry }, named);
  kopf.on.create("kex", { registry }, arrow); // const-assigned arrows have names
  kopf.on.create("kex", { registry, id: "explicit" }, named);
  kopf.on.update("kex", { registry, id: "explicit", field: "spec.items" }, named);
  kopf.on.update("kex", { registry, field: ["metadata", "labels"] }, named);
  kopf.on.create("kex", { registry }, named.bind(null));
  assertEquals(matcherOf(registry).handlers.map((h) => h.id), [
    "createFn",
    "arrow",
    "explicit",
    "explicit/spec.items",
    "createFn/metadata.labels",
    "createFn",
  ]);
});

Deno.test("anonymous functions get deterministic ids with ordinals, and a warning", () => {
  const warnings: string[] = [];
  const registry = new kopf.OperatorRegistry({ onWarning: (m) => warnings.push(m) });
  kopf.on.create("kopfexamples", { registry }, (() => () => {})());
  kopf.on.create("kopfexamples", { registry }, (() => () => {})());
  kopf.on.update(
    "kopf.dev",
    "v1",
    "kopfexamples",
    { registry, field: "spec.x" },
    (() => () => {})(),
  );
  kopf.on.probe({ registry }, (() => () => {})());
  assertEquals(matcherOf(registry).handlers.map((h) => h.id), [
    "create-kopfexamples",
    "create-kopfexamples-2",
    "update-kopfexamples.v1.kopf.dev/spec.x",
    "probe-probe",
  ]);
  assertEquals(warnings.length, 4);
  assertStringIncludes(warnings[1], 'its id is "create-kopfexamples-2"');
  assertStringIncludes(warnings[1], 'give it an explicit id (option "id")');
  assertEquals(registry.warnings, warnings);
});

Deno.test("handlers are de-duplicated by function and id when selected", () => {
  const registry = fresh();
  function fn() {}
  kopf.on.event("kopfexamples", { registry }, fn);
  kopf.on.event("kex", { registry }, fn); // an accidental overlap
  kopf.on.event("v1", "pods", { registry }, fn);
  const body = { metadata: { name: "x" } };
  assertEquals(matcherOf(registry).handlersFor(kexV1).event.length, 2);
  assertEquals(matcherOf(registry).selectEventHandlers(kexV1, { body }).length, 1);
  assertEquals(matcherOf(registry).selectEventHandlers(pods, { body }).length, 1);
});

Deno.test("param is stored per registration and overlapping field handlers stay distinct", () => {
  const registry = fresh();
  function fn() {}
  kopf.on.update("KopfExample", { registry, param: 10, field: "spec.field" }, fn);
  kopf.on.update("KopfExample", { registry, param: 1, field: "spec" }, fn);
  const cause = {
    reason: "update" as const,
    body: { metadata: {}, spec: { field: "b" } },
    old: { spec: { field: "a" } },
    new: { spec: { field: "b" } },
  };
  const selected = matcherOf(registry).selectChangingHandlers(kexV1, causeOf(cause));
  assertEquals(selected.map((h) => [h.id, h.param]), [["fn/spec.field", 10], ["fn/spec", 1]]);
});

Deno.test("the registry resolves all selectors against discovery, warning about ambiguity", () => {
  const registry = fresh();
  function fn() {}
  kopf.on.event("kopfexamples", { registry }, fn);
  kopf.on.event("widgets", { registry }, fn);
  kopf.on.create("pods", { registry }, fn);
  kopf.on.startup({ registry }, fn);
  const selection = matcherOf(registry).resolve(DISCOVERED);
  assertEquals(selection.resources.map(String).sort(), ["kopfexamples.v1.kopf.dev", "pods.v1"]);
  assertEquals(selection.warnings.length, 1);
  assertStringIncludes(selection.warnings[0], "widgets");
  assert(matcherOf(registry).hasHandlers(kexV1) && matcherOf(registry).hasHandlers(pods));
});

Deno.test("finalizers are required by non-optional deletion handlers, daemons and timers", () => {
  const body = { metadata: { name: "x", labels: { a: "1" } } };
  const r1 = fresh();
  kopf.on.delete("kex", { registry: r1, optional: true }, function d() {});
  assert(!matcherOf(r1).requiresFinalizer(kexV1, { body }));
  kopf.on.delete("kex", { registry: r1, labels: { a: "2" } }, function d() {});
  assert(!matcherOf(r1).requiresFinalizer(kexV1, { body }), "filters decide");
  kopf.on.delete("kex", { registry: r1, labels: { a: "1" } }, function d() {});
  assert(matcherOf(r1).requiresFinalizer(kexV1, { body }));
  assert(!matcherOf(r1).requiresFinalizer(pods, { body }));
  const r2 = fresh();
  kopf.timer("kex", { registry: r2, interval: 1 }, function t() {});
  assert(matcherOf(r2).requiresFinalizer(kexV1, { body }));
});

Deno.test("fields of changing handlers are reported for the diff-base", () => {
  const registry = fresh();
  function fn() {}
  kopf.on.update("batch/v1", "jobs", { registry, field: "status" }, fn);
  kopf.on.field("batch/v1", "jobs", { registry, field: "status" }, fn);
  kopf.on.field("kex", { registry, field: "spec.x" }, fn);
  const jobs = DISCOVERED.find((r) => r.plural === "jobs")!;
  assertEquals(matcherOf(registry).extraFields(jobs), [["status"]]);
});

Deno.test("what is derived per resource is derived anew when a handler is added later", () => {
  const registry = fresh();
  const body = { metadata: { name: "x" }, spec: { x: 1 } };
  function fn() {}
  kopf.on.create("kex", { registry }, fn);
  // Asked as during the handling of a first event: the answers are kept for the resource.
  assert(!matcherOf(registry).requiresFinalizer(kexV1, { body }));
  assertEquals(matcherOf(registry).extraFields(kexV1), []);
  assertEquals(
    matcherOf(registry).selectChangingHandlers(
      kexV1,
      causeOf({ reason: "update", body, old: body }),
    ).length,
    0,
  );
  kopf.on.delete("kex", { registry }, fn);
  kopf.on.field("kex", { registry, field: "spec.x" }, fn);
  kopf.on.update("kex", { registry }, fn);
  assert(matcherOf(registry).requiresFinalizer(kexV1, { body }));
  assertEquals(matcherOf(registry).extraFields(kexV1), [["spec", "x"]]);
  assertEquals(
    matcherOf(registry).selectChangingHandlers(
      kexV1,
      causeOf({ reason: "update", body, old: body }),
    ).length,
    1,
  );
  // An equal resource record of its own gets the same answers.
  const copy = new kopf.Resource({ ...kexV1 });
  assert(copy !== kexV1 && matcherOf(registry).requiresFinalizer(copy, { body }));
  assertEquals(matcherOf(registry).extraFields(copy), [["spec", "x"]]);
});

Deno.test("selectors count once per specification, and resolve by handler kind", () => {
  const registry = fresh();
  function fn() {}
  kopf.on.event("widgets", { registry }, fn);
  kopf.on.create("widgets", { registry }, fn);
  kopf.on.validate("kopfexamples", { registry }, fn);
  const predicate = (r: { plural: string; group: string }) => r.plural === "pods" && r.group === "";
  kopf.on.event(predicate, { registry }, fn);
  kopf.on.update(predicate, { registry }, fn);
  assertEquals(matcherOf(registry).selectors().map(String), [
    "widgets",
    "kopfexamples",
    "predicate",
  ]);
  assertEquals(matcherOf(registry).resolve(DISCOVERED).warnings.length, 1, "one warning per spec");
  const watched = matcherOf(registry).resolve(DISCOVERED, [
    "changing",
    "event",
    "daemon",
    "timer",
    "index",
  ]);
  assertEquals(watched.resources.map(String), ["pods.v1"]);
  assertEquals(matcherOf(registry).resolve(DISCOVERED, ["webhook"]).resources.map(String), [
    "kopfexamples.v1.kopf.dev",
  ]);
});

Deno.test("a typed resource selects what its names select, with or without options", () => {
  const registry = fresh();
  const kex = kopf.resource<{ spec?: { field: string } }>("kopf.dev", "v1", "kopfexamples");
  function fn() {}
  kopf.on.create(kex, { registry, id: "with-options" }, fn);
  kopf.timer(kex, { registry, interval: 1 }, fn);
  kopf.daemon(kopf.resource("pods"), { registry }, fn);
  assertEquals(matcherOf(registry).handlers.map((h) => h.id), ["with-options", "fn", "fn"]);
  assertEquals(matcherOf(registry).resolve(DISCOVERED).resources.map(String).sort(), [
    "kopfexamples.v1.kopf.dev",
    "pods.v1",
  ]);
  // Without the registry option, the typed resource is not mistaken for options.
  const previous = kopf.getDefaultRegistry();
  kopf.setDefaultRegistry(registry);
  try {
    kopf.on.update(kex, function typed() {});
  } finally {
    kopf.setDefaultRegistry(previous);
  }
  assertEquals(only(registry).id, "typed");
  assert(matcherOf(registry).hasHandlers(kexV1));
});

Deno.test("a typed resource is the only positional selector; extra names are refused", () => {
  const kex = kopf.resource("kopf.dev", "v1", "kopfexamples");
  let message = "";
  try {
    // @ts-expect-error: the types forbid it too.
    kopf.on.create(kex, "pods", { registry: fresh() }, function fn() {});
  } catch (error) {
    message = (error as Error).message;
  }
  assertStringIncludes(
    message,
    'kopf.on.create(kopf.resource("kopf.dev", "v1", "kopfexamples"), "pods") handler fn: ',
  );
});
