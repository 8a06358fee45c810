/**
 * Processing single object states directly (no watches, no queues) against the fake
 * cluster: patch application with a vanished object, a refused finalizer removal with its
 * fallback, and the expected resourceVersion and delays reported to the worker.
 */
import { assert, assertEquals } from "../../assert.ts";
import type { RawBody } from "../../../src/structs/bodies.ts";
import { TemporaryError } from "../../../src/structs/errors.ts";
import { Patch } from "../../../src/structs/patches.ts";
import { Resource } from "../../../src/structs/resources.ts";
import type { ApiClient } from "../../../src/client/api.ts";
import { OperatorSettings } from "../../../src/settings/operator_settings.ts";
import { OperatorRegistry } from "../../../src/intents/registry.ts";
import { index, on } from "../../../src/intents/registration.ts";
import { applyChanges } from "../../../src/handling/application.ts";
import { ObjectTable } from "../../../src/reactor/objects/object_table.ts";
import { Pipeline } from "../../../src/reactor/pipeline/pipeline.ts";
import { apiClientOf, FINALIZER, kex, startCluster } from "../../operator/harness.ts";
import { wallClockAt } from "../../clocks.ts";

const KEX = new Resource({
  group: "kopf.dev",
  version: "v1",
  plural: "kopfexamples",
  kind: "KopfExample",
  namespaced: true,
});

Deno.test("applying to a vanished object is not an error", async () => {
  await using cluster = await startCluster();
  await using api = apiClientOf(cluster);
  const patch = new Patch();
  patch.metadata.annotations.x = "y";
  const result = await applyChanges({
    api,
    resource: KEX,
    body: kex("never-existed"),
    patch,
    finalizer: FINALIZER,
  });
  assertEquals([result.gone, result.conflict, result.body], [true, false, undefined]);
});

Deno.test("a finalizer change on a stale state is refused, not forced", async () => {
  await using cluster = await startCluster();
  await using api = apiClientOf(cluster);
  const stale = cluster.create(kex("kex1"));
  cluster.patch("kopfexamples", "kex1", { metadata: { finalizers: ["other.example.com/x"] } });
  const result = await applyChanges({
    api,
    resource: KEX,
    body: stale,
    patch: new Patch(),
    finalizer: FINALIZER,
    finalizerChange: "add",
  });
  assertEquals(result.conflict, true);
  assertEquals(cluster.get("kopfexamples", "kex1")?.metadata?.finalizers, [
    "other.example.com/x",
  ]);
});

Deno.test("a refused finalizer removal keeps the delete handlers' success; they do not re-run", async () => {
  await using cluster = await startCluster();
  await using api = apiClientOf(cluster);
  const registry = new OperatorRegistry({ onWarning: () => {} });
  const calls: string[] = [];
  on.delete("kopfexamples", { registry }, function delete_fn() {
    calls.push("delete");
    return "bye";
  });
  const processor = new Pipeline({
    api,
    registry,
    settings: new OperatorSettings(),
    objects: new ObjectTable({}),
  });
  cluster.create(kex("kex1", {}, {
    metadata: {
      finalizers: [FINALIZER],
      annotations: {
        "kopf.zalando.org/last-handled-configuration": '{"spec":{"field":"value"}}\n',
      },
    },
  }));
  const stale = cluster.delete("kopfexamples", "kex1")!;
  // Someone changes the object after the state the processor is given.
  cluster.patch("kopfexamples", "kex1", { metadata: { labels: { late: "change" } } });

  const first = await processor.process(KEX, { type: "MODIFIED", object: stale });
  assertEquals(calls, ["delete"]);
  const kept = cluster.get("kopfexamples", "kex1") as RawBody;
  assertEquals(kept.metadata?.finalizers, [FINALIZER]);
  assert(kept.metadata?.annotations?.["kopf.zalando.org/delete_fn"]?.includes('"success":true'));
  assertEquals(first.expectedResourceVersion, kept.metadata?.resourceVersion);

  await processor.process(KEX, { type: "MODIFIED", object: kept });
  assertEquals(calls, ["delete"]);
  assertEquals(cluster.get("kopfexamples", "kex1"), undefined);
});

Deno.test("the worker learns the patched resourceVersion and when to come back", async () => {
  await using cluster = await startCluster();
  await using api = apiClientOf(cluster);
  const registry = new OperatorRegistry({ onWarning: () => {} });
  on.create("kopfexamples", { registry }, () => {
    throw new TemporaryError("later", { delay: 30 });
  });
  const t0 = Date.UTC(2024, 0, 1);
  const processor = new Pipeline({
    api,
    registry,
    settings: new OperatorSettings(),
    objects: new ObjectTable({}),
    clock: wallClockAt(t0),
  });
  const created = cluster.create(kex("kex1"));
  const result = await processor.process(KEX, { type: "ADDED", object: created });
  const stored = cluster.get("kopfexamples", "kex1");
  assertEquals(result, { expectedResourceVersion: stored?.metadata?.resourceVersion, delay: 30 });
  // The stale state again (e.g. a revisit before the echo): the newer patched state is used.
  const again = await processor.process(KEX, { type: "ADDED", object: created });
  assertEquals(again, { delay: 30 });
});

Deno.test("our finalizer is released when no changing handler serves the resource any more", async () => {
  await using cluster = await startCluster();
  await using api = apiClientOf(cluster);
  const registry = new OperatorRegistry({ onWarning: () => {} });
  on.event("kopfexamples", { registry }, () => {});
  const processor = new Pipeline({
    api,
    registry,
    settings: new OperatorSettings(),
    objects: new ObjectTable({}),
  });
  cluster.create(kex("kex1", {}, { metadata: { finalizers: [FINALIZER, "other.example.com/x"] } }));
  const deleting = cluster.delete("kopfexamples", "kex1")!;
  await processor.process(KEX, { type: "MODIFIED", object: deleting });
  assertEquals(cluster.get("kopfexamples", "kex1")?.metadata?.finalizers, ["other.example.com/x"]);
});

/** A processor over the given parts, with default settings. */
function processorOf(
  api: ApiClient,
  registry: OperatorRegistry,
  objects = new ObjectTable({}),
): Pipeline {
  return new Pipeline({ api, registry, settings: new OperatorSettings(), objects });
}

Deno.test("the newest version known is kept: our patch's, then the echo's", async () => {
  await using cluster = await startCluster();
  await using api = apiClientOf(cluster);
  const registry = new OperatorRegistry({ onWarning: () => {} });
  on.create("kopfexamples", { registry }, () => ({ done: true }));
  const memories = new ObjectTable({});
  const processor = processorOf(api, registry, memories);
  const created = cluster.create(kex("kex1"));
  const memory = () => memories.recall(KEX, created, { noticedByListing: false });
  const first = await processor.process(KEX, { type: "ADDED", object: created });
  assertEquals(memory().newest, first.expectedResourceVersion);
  const echo = cluster.get("kopfexamples", "kex1")!;
  assertEquals(echo.metadata?.resourceVersion, first.expectedResourceVersion);
  await processor.process(KEX, { type: "MODIFIED", object: echo });
  assertEquals(memory().newest, echo.metadata?.resourceVersion);
});

Deno.test("objects' memos are copied when a handler first runs for them, one copy each", async () => {
  await using cluster = await startCluster();
  await using api = apiClientOf(cluster);
  const registry = new OperatorRegistry({ onWarning: () => {} });
  const memos = new Map<string, Record<string, unknown>>();
  on.create("kopfexamples", { registry }, ({ name, memo }) => {
    memos.set(String(name), memo as Record<string, unknown>);
    (memo as Record<string, unknown>).seen = name;
  });
  let copies = 0;
  const operatorMemo = {
    copy: () => {
      copies++;
      return {};
    },
  };
  const memories = new ObjectTable(operatorMemo);
  const processor = processorOf(api, registry, memories);
  const stealth = cluster.create(kex("kex0"));
  memories.recall(KEX, stealth, { noticedByListing: false });
  assertEquals(copies, 0, "remembered, but no handler has needed its memo");
  for (const name of ["kex1", "kex2"]) {
    await processor.process(KEX, { type: "ADDED", object: cluster.create(kex(name)) });
  }
  assertEquals(copies, 2);
  assertEquals(memos.get("kex1"), { seen: "kex1" });
  assertEquals(memos.get("kex2"), { seen: "kex2" });
});

Deno.test("the filters' callbacks of one cause get one set of arguments, built once", async () => {
  await using cluster = await startCluster();
  await using api = apiClientOf(cluster);
  const registry = new OperatorRegistry({ onWarning: () => {} });
  const seen: object[] = [];
  const when = (kwargs: object) => {
    seen.push(kwargs);
    return true;
  };
  const calls: string[] = [];
  on.create("kopfexamples", { registry, when }, () => {
    calls.push("create");
  });
  on.delete("kopfexamples", { registry, when }, () => {}); // requires the finalizer
  const processor = processorOf(api, registry);
  const created = cluster.create(kex("kex1", {}, { metadata: { finalizers: [FINALIZER] } }));
  await processor.process(KEX, { type: "ADDED", object: created });
  assertEquals(calls, ["create"]);
  // The finalizer check, the pre-match and the selection all asked the callbacks.
  assert(seen.length >= 3, `only ${seen.length} calls`);
  assertEquals(new Set(seen).size, 1);
});

Deno.test("a state older than our patch is processed as the object is now, read afresh", async () => {
  await using cluster = await startCluster();
  await using api = apiClientOf(cluster);
  const registry = new OperatorRegistry({ onWarning: () => {} });
  const seen: string[] = [];
  on.create("kopfexamples", { registry }, ({ name }) => {
    seen.push(String(name));
    return { done: true };
  });
  const memories = new ObjectTable({});
  const processor = processorOf(api, registry, memories);
  const created = cluster.create(kex("kex1"));
  await processor.process(KEX, { type: "ADDED", object: created });
  // The echo is late; the stale state again (e.g. after the consistency timeout).
  const gets = cluster.requests.filter((r) => r.verb === "get").length;
  const again = await processor.process(KEX, { type: "ADDED", object: created });
  assertEquals(seen, ["kex1"], "the handler did not run again on the stale state");
  assertEquals(again, {});
  assertEquals(cluster.requests.filter((r) => r.verb === "get").length, gets + 1);
  const memory = memories.recall(KEX, created, { noticedByListing: false });
  assertEquals(
    memory.newest,
    cluster.get("kopfexamples", "kex1")!.metadata?.resourceVersion,
    "the fresh state is as new as our patch",
  );

  // Gone meanwhile: nothing is processed; the deletion comes through the watch.
  const other = cluster.create(kex("kex2"));
  await processor.process(KEX, { type: "ADDED", object: other });
  cluster.delete("kopfexamples", "kex2");
  assertEquals(await processor.process(KEX, { type: "ADDED", object: other }), {});
  assertEquals(seen, ["kex1", "kex2"]);

  // Deleted and made anew under its name: the namesake is not the stale state's object.
  const third = cluster.create(kex("kex3"));
  await processor.process(KEX, { type: "ADDED", object: third });
  cluster.delete("kopfexamples", "kex3");
  const namesake = cluster.create(kex("kex3"));
  assertEquals(await processor.process(KEX, { type: "ADDED", object: third }), {});
  assertEquals(seen, ["kex1", "kex2", "kex3"], "nothing runs for the namesake here");
  const now = cluster.get("kopfexamples", "kex3")!;
  assertEquals(now.metadata?.resourceVersion, namesake.metadata?.resourceVersion, "untouched");
});

Deno.test("a state that a fresh read had shown already, delivered again later, runs nothing again", async () => {
  await using cluster = await startCluster();
  await using api = apiClientOf(cluster);
  const registry = new OperatorRegistry({ onWarning: () => {} });
  const runs: string[] = [];
  on.create("kopfexamples", { registry }, () => {
    runs.push("create");
    return { done: true };
  });
  on.update("kopfexamples", { registry, field: "spec.value" }, ({ new: value }) => {
    runs.push(`update ${value}`);
    return { done: true };
  });
  const memories = new ObjectTable({});
  const processor = processorOf(api, registry, memories);
  const created = cluster.create(kex("kex1", { value: 1 }));
  await processor.process(KEX, { type: "ADDED", object: created });
  // The user changes the object while the watch is down; a stale state is processed
  // meanwhile (a revisit, a late echo): it is read afresh, and the change is handled.
  const updated = cluster.patch("kopfexamples", "kex1", { spec: { value: 2 } });
  await processor.process(KEX, { type: "ADDED", object: created });
  assertEquals(runs, ["create", "update 2"]);
  const echo = cluster.get("kopfexamples", "kex1")!;
  await processor.process(KEX, { type: "MODIFIED", object: echo });
  // The watch resumes and delivers the user's change, older than what was processed.
  await processor.process(KEX, { type: "MODIFIED", object: updated });
  assertEquals(runs, ["create", "update 2"], "not run again on a state that has moved on");
});

Deno.test("another replica's objects are skipped at the feed unless indexed here", async () => {
  await using cluster = await startCluster();
  await using api = apiClientOf(cluster);
  const body = cluster.create(kex("kex1"));
  const event = { type: "MODIFIED" as const, object: body };
  const plain = new OperatorRegistry({ onWarning: () => {} });
  on.create("kopfexamples", { registry: plain }, () => {});
  const settings = new OperatorSettings();
  const memories = new ObjectTable({});
  const of = (registry: OperatorRegistry, owns?: () => boolean) =>
    new Pipeline({
      api,
      registry,
      settings,
      objects: memories,
      ownership: owns === undefined ? undefined : { owns },
    });
  assertEquals(of(plain).skips(KEX, event), false, "no replicas: every object is ours");
  assertEquals(of(plain, () => true).skips(KEX, event), false, "ours");
  assertEquals(of(plain, () => false).skips(KEX, event), true, "another's");
  const indexed = new OperatorRegistry({ onWarning: () => {} });
  index("kopfexamples", { registry: indexed }, function names({ name }) {
    return name;
  });
  assertEquals(of(indexed, () => false).skips(KEX, event), false, "indexed here");
  // Whose an object is may depend on its body: a state without one is judged only alone.
  assertEquals(of(plain).judgesByIdentity(KEX), true, "no replicas: nothing to judge");
  assertEquals(of(plain, () => true).judgesByIdentity(KEX), false, "replicas: the body");
});
