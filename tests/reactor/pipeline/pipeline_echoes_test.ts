/**
 * The states our own writes make, and whether the processing that wrote them says they need
 * nothing (`Reconciliation.echoes`, which lets the queueing pass their events by): each
 * case processes a new object against the fake cluster, then processes the state its writes
 * made, as the echo would bring it. Where `echoes` is said, that processing must come to
 * nothing -- no handler, no write; where it is not, the cases show why not.
 */
import { assert, assertEquals } from "../../assert.ts";
import type { RawBody } from "../../../src/structs/bodies.ts";
import { TemporaryError } from "../../../src/structs/errors.ts";
import { OperatorSettings } from "../../../src/settings/operator_settings.ts";
import { AnnotationsDiffBaseStorage } from "../../../src/settings/diffbase_storages.ts";
import { StatusDiffBaseStorage } from "../../../src/settings/diffbase_storages.ts";
import { StatusProgressStorage } from "../../../src/settings/object_progress_storages.ts";
import { OperatorRegistry } from "../../../src/intents/registry.ts";
import { on } from "../../../src/intents/registration.ts";
import { ObjectTable } from "../../../src/reactor/objects/object_table.ts";
import { Pipeline } from "../../../src/reactor/pipeline/pipeline.ts";
import type { Reconciliation } from "../../../src/reactor/pipeline/object_processing.ts";
import { apiClientOf, kex, startCluster } from "../../operator/harness.ts";
import { KEX } from "../../client/scripted_server.ts";

/** What came of processing a new object, then the state its writes made. */
interface Echoed {
  /** The first processing's answer. */
  first: Reconciliation;
  /** How many writes the first processing made. */
  writes: number;
  /** The version of the state its writes made. */
  version: string | undefined;
  /** The handlers called while processing that state. */
  calledOnEcho: string[];
  /** The writes made while processing that state. */
  writesOnEcho: number;
}

/**
 * Process a new object with the handlers `register` adds (given the list their calls go
 * into), then the state its writes made.
 */
async function echoed(
  register: (registry: OperatorRegistry, calls: string[]) => void,
  settings = new OperatorSettings(),
): Promise<Echoed> {
  await using cluster = await startCluster({ status: true });
  await using api = apiClientOf(cluster);
  const registry = new OperatorRegistry({ onWarning: () => {} });
  const calls: string[] = [];
  register(registry, calls);
  const pipeline = new Pipeline({ api, registry, settings, objects: new ObjectTable({}) });
  const patches = () => cluster.requests.filter((r) => r.method === "PATCH").length;
  const created = cluster.create(kex("kex1"));
  const first = await pipeline.process(KEX, { type: "ADDED", object: created });
  const writes = patches();
  const echo = cluster.get("kopfexamples", "kex1") as RawBody;
  const before = calls.length;
  await pipeline.process(KEX, { type: "MODIFIED", object: echo });
  return {
    first,
    writes,
    version: echo.metadata?.resourceVersion,
    calledOnEcho: calls.slice(before),
    writesOnEcho: patches() - writes,
  };
}

/** The settings with the progress and the diff-base in the status: one write per cycle. */
function inStatus(): OperatorSettings {
  return new OperatorSettings({
    persistence: {
      progressStorage: new StatusProgressStorage(),
      diffbaseStorage: new StatusDiffBaseStorage(),
    },
  });
}

/** A create handler that returns a result, and an update handler: both noted when called. */
function createAndUpdate(registry: OperatorRegistry, calls: string[]): void {
  on.create("kopfexamples", { registry }, function create_fn() {
    calls.push("create");
    return { done: true };
  });
  on.update("kopfexamples", { registry }, function update_fn() {
    calls.push("update");
  });
}

Deno.test("a cycle done and stored: its writes' states need nothing, and processed, do nothing", async () => {
  // Kopf's default storages with a status subresource: two writes (annotations, status).
  for (const settings of [new OperatorSettings(), inStatus()]) {
    const { first, writes, version, calledOnEcho, writesOnEcho } = await echoed(
      createAndUpdate,
      settings,
    );
    assert(writes > 0);
    assertEquals(first.echoes?.length, writes, "one version per write");
    assertEquals(first.echoes?.at(-1), version);
    assertEquals(first.echoes?.at(-1), first.expectedResourceVersion);
    assertEquals([calledOnEcho, writesOnEcho], [[], 0]);
  }
});

Deno.test("a handler's change of the essence: its write's state is processed, as an update", async () => {
  for (const change of ["label", "spec", "annotation"]) {
    const { first, calledOnEcho } = await echoed((registry, calls) => {
      on.create("kopfexamples", { registry }, function create_fn({ patch }) {
        calls.push("create");
        if (change === "label") patch.metadata.labels.touched = "yes";
        if (change === "annotation") patch.metadata.annotations["example.com/touched"] = "yes";
        if (change === "spec") patch.spec.touched = "yes";
      });
      on.update("kopfexamples", { registry }, function update_fn() {
        calls.push("update");
      });
    }, inStatus());
    assertEquals(first.echoes, undefined, change);
    assertEquals(calledOnEcho, ["update"], change);
  }
});

Deno.test("handlers that act on every state: their resource's write states are processed", async () => {
  const cases: Record<string, (registry: OperatorRegistry, calls: string[]) => void> = {
    event: (registry, calls) => {
      createAndUpdate(registry, calls);
      on.event("kopfexamples", { registry }, ({ type }) => void calls.push(`event ${type}`));
    },
    // (This pipeline has no indexers, which would call it: only the answer is looked at.)
    index: (registry, calls) => {
      createAndUpdate(registry, calls);
      on.index("kopfexamples", { registry }, function by_name({ name }) {
        calls.push("index");
        return { [String(name)]: true };
      });
    },
    "status field": (registry, calls) => {
      createAndUpdate(registry, calls);
      on.field("kopfexamples", { registry, field: "status.create_fn" }, () => {
        calls.push("field");
      });
    },
  };
  for (const [name, register] of Object.entries(cases)) {
    const { first, calledOnEcho } = await echoed(register, inStatus());
    assertEquals(first.echoes, undefined, name);
    if (name === "event") assertEquals(calledOnEcho, ["event MODIFIED"]);
    // The status field is in the essence compared then: its change is an update.
    if (name === "status field") assertEquals(calledOnEcho, ["update"]);
  }
});

Deno.test("a cycle not done, or a diff-base built another way: the states are processed", async () => {
  const retried = await echoed((registry, calls) => {
    on.create("kopfexamples", { registry }, function create_fn({ retry }) {
      calls.push(`create ${retry}`);
      if (retry === 0) throw new Error("once");
    });
  }, inStatus());
  assertEquals(retried.first.echoes, undefined);
  class WholeDiffBase extends AnnotationsDiffBaseStorage {
    override build(args: Parameters<AnnotationsDiffBaseStorage["build"]>[0]): RawBody {
      return { ...super.build(args), status: args.body.status ?? {} } as RawBody;
    }
  }
  const custom = await echoed(
    createAndUpdate,
    new OperatorSettings({ persistence: { diffbaseStorage: new WholeDiffBase() } }),
  );
  assertEquals(custom.first.echoes, undefined);
});

Deno.test("a cause done after a change between its cycles: the write's state is an update", async () => {
  await using cluster = await startCluster({ status: true });
  await using api = apiClientOf(cluster);
  const registry = new OperatorRegistry({ onWarning: () => {} });
  const calls: string[] = [];
  on.create("kopfexamples", { registry }, function create_fn({ retry }) {
    calls.push(`create ${retry}`);
    if (retry === 0) throw new TemporaryError("once", { delay: 0 });
  });
  on.update("kopfexamples", { registry }, function update_fn() {
    calls.push("update");
  });
  const pipeline = new Pipeline({
    api,
    registry,
    settings: inStatus(),
    objects: new ObjectTable({}),
  });
  const created = cluster.create(kex("kex1"));
  await pipeline.process(KEX, { type: "ADDED", object: created });
  // Someone changes the object before the cause's next cycle: the diff-base stored when it is
  // done is the essence the cause began with, so the change is an update after it.
  const changed = cluster.patch("kopfexamples", "kex1", { spec: { field: "changed" } })!;
  const done = await pipeline.process(KEX, { type: "MODIFIED", object: changed });
  assertEquals(calls, ["create 0", "create 1"]);
  assertEquals(done.echoes, undefined);
  const echo = cluster.get("kopfexamples", "kex1") as RawBody;
  await pipeline.process(KEX, { type: "MODIFIED", object: echo });
  assertEquals(calls, ["create 0", "create 1", "update"]);
});
