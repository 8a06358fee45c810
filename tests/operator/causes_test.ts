/**
 * Every cause over HTTP with the real client against the fake cluster: creation,
 * updates with diffs, field handlers, deletion with the finalizer, resuming once per
 * lifetime, deletions during downtime, optional deletion handlers, stealth objects.
 */
import { assert, assertEquals } from "../assert.ts";
import { TemporaryError } from "../../src/structs/errors.ts";
import { on } from "../../src/intents/registration.ts";
import {
  Calls,
  clusterRegistry,
  DIFFBASE,
  FINALIZER,
  handled,
  kex,
  kopfStatus,
  logsOf,
  patchesOf,
  startCluster,
  whileRunning,
} from "./harness.ts";

Deno.test("create: the handler runs once, its result goes to the status, one patch", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry }, function create_fn({ spec, reason, name }) {
    calls.add(`${reason} ${name} ${spec.field}`);
    return { message: "hello" };
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("kex1"));
    const body = await cluster.waitFor("kopfexamples", "kex1", handled);
    assertEquals(calls.list, ["create kex1 value"]);
    assertEquals((body?.status as Record<string, unknown>)?.create_fn, { message: "hello" });
    assertEquals(
      body?.metadata?.annotations?.[DIFFBASE],
      '{"spec":{"field":"value"}}\n',
    );
    // Progress is purged after the cycle: no progress annotations, no status.kopf.
    const keys = Object.keys(body?.metadata?.annotations ?? {});
    assertEquals(keys, [DIFFBASE]);
    assertEquals(body?.metadata?.finalizers, undefined);
    assert(logsOf("kex1").some((l) => l.includes("Handler 'create_fn' succeeded.")));
    assert(logsOf("kex1").some((l) => l.includes("Creation is processed: 1 succeeded; 0 failed.")));
  });
  assertEquals(calls.list.length, 1);
  assertEquals(patchesOf(cluster, "kex1").length, 1);
});

Deno.test("objects created with generateName reach every watched handler named, with a uid", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.event("kopfexamples", { registry }, ({ name, uid, type }) => {
    if (type !== "DELETED") calls.add(`event ${name} ${uid}`);
  });
  on.create("kopfexamples", { registry }, ({ name, uid }) => calls.add(`create ${name} ${uid}`));
  await whileRunning(registry, async () => {
    const created = cluster.create(kex("", {}, { metadata: { generateName: "kex-" } }));
    const { name, uid } = created.metadata ?? {};
    assert(name?.startsWith("kex-") && uid, JSON.stringify(created.metadata));
    await calls.until(1, (call) => call.startsWith("create "));
    assertEquals(calls.count((call) => call === `create ${name} ${uid}`), 1);
    assert(calls.list.includes(`event ${name} ${uid}`), calls.list.join("; "));
  });
});

Deno.test("update: old/new essences and the diff; field handlers get their field", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<unknown[]>();
  on.update("kopfexamples", { registry }, function update_fn({ old, new: neu, diff }) {
    calls.add(["update", old, neu, diff]);
  });
  on.field("kopfexamples", { registry, field: "spec.field" }, function field_fn(kwargs) {
    calls.add([`field ${kwargs.reason}`, kwargs.old, kwargs.new, kwargs.diff]);
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("kex1"));
    await calls.until(1);
    await cluster.waitFor("kopfexamples", "kex1", handled);
    cluster.patch("kopfexamples", "kex1", { spec: { field: "changed" } });
    await calls.until(3);
    await cluster.waitFor(
      "kopfexamples",
      "kex1",
      (b) => b?.metadata?.annotations?.[DIFFBASE] === '{"spec":{"field":"changed"}}\n',
    );
    // A change outside the essence (the status) is not an update.
    cluster.patch("kopfexamples", "kex1", { status: { x: 1 } });
    cluster.patch("kopfexamples", "kex1", { metadata: { labels: { a: "b" } } });
    await calls.until(4);
  });
  assertEquals(JSON.parse(JSON.stringify(calls.list)), [
    ["field create", null, "value", [["add", [], null, "value"]]],
    ["update", { spec: { field: "value" } }, { spec: { field: "changed" } }, [[
      "change",
      ["spec", "field"],
      "value",
      "changed",
    ]]],
    ["field update", "value", "changed", [["change", [], "value", "changed"]]],
    ["update", { spec: { field: "changed" } }, {
      spec: { field: "changed" },
      metadata: { labels: { a: "b" } },
    }, [["add", ["metadata"], null, { labels: { a: "b" } }]]],
  ]);
});

Deno.test("delete: the finalizer is added first, the handler runs on deletion, then released", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry }, function create_fn({ meta }) {
    calls.add(`create finalizers=${JSON.stringify(meta.finalizers)}`);
  });
  on.delete("kopfexamples", { registry }, function delete_fn({ reason }) {
    calls.add(reason);
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("kex1"));
    await cluster.waitFor("kopfexamples", "kex1", handled);
    cluster.delete("kopfexamples", "kex1");
    await cluster.waitFor("kopfexamples", "kex1", (b) => b === undefined);
  });
  // The finalizer was in place before the creation handler ran.
  assertEquals(calls.list, [`create finalizers=${JSON.stringify([FINALIZER])}`, "delete"]);
  assert(logsOf("kex1").some((l) => l.includes("Deletion is processed: 1 succeeded; 0 failed.")));
});

Deno.test("delete: other finalizers are kept; objects deleted while down get their handlers", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.delete("kopfexamples", { registry }, function delete_fn({ name }) {
    calls.add(`delete ${name}`);
  });
  on.resume("kopfexamples", { registry }, function resume_fn({ name }) {
    calls.add(`resume ${name}`);
  });
  on.resume("kopfexamples", { registry, deleted: true }, function resume_deleted({ name }) {
    calls.add(`resume-deleted ${name}`);
  });
  // Handled by an earlier run of the operator, then deleted while it was down.
  cluster.create(kex("kex1", {}, {
    metadata: {
      annotations: { [DIFFBASE]: '{"spec":{"field":"value"}}\n' },
      finalizers: ["other.example.com/keep", FINALIZER],
    },
  }));
  cluster.delete("kopfexamples", "kex1");
  await whileRunning(registry, async () => {
    await calls.until(2);
    const body = await cluster.waitFor(
      "kopfexamples",
      "kex1",
      (b) => !b?.metadata?.finalizers?.includes(FINALIZER),
    );
    assertEquals(body?.metadata?.finalizers, ["other.example.com/keep"]);
  });
  // In declaration order.
  assertEquals(calls.list, ["delete kex1", "resume-deleted kex1"]);
});

Deno.test("optional delete handlers add no finalizer", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  on.delete("kopfexamples", { registry, optional: true }, () => {});
  await whileRunning(registry, async () => {
    cluster.create(kex("kex1"));
    const body = await cluster.waitFor("kopfexamples", "kex1", handled);
    assertEquals(body?.metadata?.finalizers, undefined);
  });
});

Deno.test("resume: once per object per operator lifetime, mixed into updates", async () => {
  await using cluster = await startCluster();
  const calls = new Calls<string>();
  const registry = clusterRegistry(cluster);
  on.resume("kopfexamples", { registry }, function resume_fn({ reason, name }) {
    calls.add(`${reason} ${name}`);
  });
  on.update("kopfexamples", { registry }, function update_fn({ reason, name }) {
    calls.add(`${reason} ${name}`);
  });
  const annotated = (spec: string) => ({
    metadata: { annotations: { [DIFFBASE]: `{"spec":{"field":"${spec}"}}\n` } },
  });
  cluster.create(kex("same", {}, annotated("value")));
  cluster.create(kex("changed", { field: "new" }, annotated("value")));
  await whileRunning(registry, async () => {
    await calls.until(3);
    await cluster.waitFor(
      "kopfexamples",
      "changed",
      (b) => b?.metadata?.annotations?.[DIFFBASE] === '{"spec":{"field":"new"}}\n',
    );
    // Later changes are updates only; resuming does not repeat in this lifetime.
    cluster.patch("kopfexamples", "same", { spec: { field: "later" } });
    await calls.until(1, (c) => c === "update same");
  });
  // The changed object: its update and the resume handler mixed in (reason "update").
  assertEquals(calls.list.toSorted(), [
    "resume same",
    "update changed",
    "update changed",
    "update same",
  ]);
  // A new lifetime resumes again.
  calls.list.length = 0;
  await whileRunning(registry, async () => {
    await calls.until(2);
  });
  assertEquals(calls.list.toSorted(), ["resume changed", "resume same"]);
});

Deno.test("stealth: objects matching no handler's filters (labels, field values) are untouched", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry, labels: { app: "mine" } }, ({ name }) => {
    calls.add(String(name));
  });
  on.delete("kopfexamples", { registry, labels: { app: "mine" } }, () => {});
  on.field("kopfexamples", { registry, field: "spec.watched" }, ({ name }) => {
    calls.add(`field ${name}`);
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("other"));
    cluster.create(kex("mine", {}, { metadata: { labels: { app: "mine" } } }));
    cluster.create(kex("watched", { watched: 1 }));
    await cluster.waitFor("kopfexamples", "watched", handled);
    await cluster.waitFor("kopfexamples", "mine", handled);
    assertEquals(calls.list.toSorted(), ["field watched", "mine"]);
  });
  const other = cluster.get("kopfexamples", "other");
  assertEquals(other?.metadata?.annotations, undefined);
  assertEquals(other?.metadata?.finalizers, undefined);
  assertEquals(patchesOf(cluster, "other"), []);
  assertEquals(logsOf("other"), []);
});

Deno.test("a deletion supersedes an unfinished creation", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry }, function create_fn({ retry }) {
    calls.add(`create ${retry}`);
    throw new TemporaryError("never ready", { delay: 0.05 });
  });
  on.delete("kopfexamples", { registry }, function delete_fn() {
    calls.add("delete");
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("kex1"));
    await calls.until(2);
    cluster.delete("kopfexamples", "kex1");
    await cluster.waitFor("kopfexamples", "kex1", (b) => b === undefined);
  });
  assertEquals(calls.list.at(-1), "delete");
  assertEquals(calls.count((c) => c === "delete"), 1);
  assert(
    logsOf("kex1").some((l) =>
      l.includes("Creation is superseded by deletion: 0 succeeded; 0 failed; 1 left to the moment.")
    ),
  );
});

Deno.test("results and patch values taken from the read-only views are stored as plain data", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  on.create("kopfexamples", { registry }, function whole_fn({ spec }) {
    return spec;
  });
  on.create("kopfexamples", { registry }, function part_fn({ spec, patch }) {
    patch.status.copy = spec;
    return { x: spec, list: [spec.field] };
  });
  on.event("kopfexamples", { registry }, function event_fn({ spec }) {
    return spec;
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("kex-views"));
    const body = await cluster.waitFor(
      "kopfexamples",
      "kex-views",
      (b) => handled(b) && (b?.status as Record<string, unknown>)?.event_fn !== undefined,
    );
    assertEquals(kopfStatus(body), {
      whole_fn: { field: "value" },
      part_fn: { x: { field: "value" }, list: ["value"] },
      copy: { field: "value" },
      event_fn: { field: "value" },
    });
    const logs = logsOf("kex-views");
    assert(logs.some((l) => l.includes("Creation is processed: 2 succeeded; 0 failed.")));
    assert(!logs.some((l) => l.includes("failed permanently")), logs.join("\n"));
  });
});

Deno.test("field handlers as Kopf's: when the field changes — on creation only if it is set", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.field("kopfexamples", { registry, field: "spec.field" }, function field_fn(kwargs) {
    calls.add(`${kwargs.reason} ${kwargs.name} ${kwargs.old} -> ${kwargs.new}`);
  });
  on.create("kopfexamples", { registry }, function create_fn({ name }) {
    calls.add(`create_fn ${name}`);
  });
  on.delete("kopfexamples", { registry }, function delete_fn({ name }) {
    calls.add(`delete_fn ${name}`);
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("with"));
    cluster.create(kex("without", { field: undefined }));
    await cluster.waitFor("kopfexamples", "with", handled);
    await cluster.waitFor("kopfexamples", "without", handled);
    // An absent field that appears is a change of it too; other fields are not.
    cluster.patch("kopfexamples", "without", { spec: { field: "added" } });
    cluster.patch("kopfexamples", "with", { spec: { other: 1 } });
    await calls.until(1, (c) => c.startsWith("update without"));
    await cluster.waitFor(
      "kopfexamples",
      "with",
      (b) => handled(b) && !!b?.metadata?.annotations?.[DIFFBASE]?.includes("other"),
    );
  });
  assertEquals(calls.list.toSorted(), [
    "create with null -> value",
    "create_fn with",
    "create_fn without",
    "update without null -> added",
  ]);
  // A new lifetime (resuming) and the deletion: the field does not change, nothing runs.
  calls.list.length = 0;
  await whileRunning(registry, async () => {
    cluster.delete("kopfexamples", "with");
    cluster.delete("kopfexamples", "without");
    await cluster.waitFor("kopfexamples", "with", (b) => b === undefined);
    await cluster.waitFor("kopfexamples", "without", (b) => b === undefined);
  });
  assertEquals(calls.list.toSorted(), ["delete_fn with", "delete_fn without"]);
});
