/**
 * Sub-handlers (`kopf.execute`, `kopf.subhandler`, `kopf.register`) and event handlers,
 * over HTTP against the fake cluster.
 */
import { assert, assertEquals } from "../assert.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { TemporaryError } from "../../src/structs/errors.ts";
import { on } from "../../src/intents/registration.ts";
import { register, subhandler } from "../../src/intents/subhandlers.ts";
import { execute } from "../../src/handling/subhandler_execution.ts";
import { type LifeCycleFn, lifecycles } from "../../src/intents/lifecycles.ts";
import {
  Calls,
  clusterRegistry,
  DIFFBASE,
  handled,
  kex,
  logsOf,
  startCluster,
  whileRunning,
} from "./harness.ts";

const EXECUTE_CASES: [string, LifeCycleFn | undefined, string[]][] = [
  // Kopf's default: one sub-handler per cycle, the parent re-run in each.
  ["asap (the default)", undefined, [
    "parent 0",
    "first 0",
    "parent 1",
    "second 0",
    "parent 2",
    "second 1",
    "parent after 2",
  ]],
  ["allAtOnce", lifecycles.allAtOnce, [
    "parent 0",
    "first 0",
    "second 0",
    "parent 1",
    "second 1",
    "parent after 1",
  ]],
];

for (const [title, lifecycle, expected] of EXECUTE_CASES) {
  Deno.test(`kopf.execute, ${title}: sub-handlers with parent/child ids, retried without re-running the done ones`, async () => {
    await using cluster = await startCluster();
    const registry = clusterRegistry(cluster);
    const calls = new Calls<string>();
    on.create("kopfexamples", { registry }, async function create_fn({ retry }) {
      calls.add(`parent ${retry}`);
      await execute({
        fns: {
          first: ({ retry }: { retry: number }) => {
            calls.add(`first ${retry}`);
            return 1;
          },
          second: ({ retry }: { retry: number }) => {
            calls.add(`second ${retry}`);
            if (retry === 0) throw new TemporaryError("wait", { delay: 0.05 });
            return 2;
          },
        },
      });
      calls.add(`parent after ${retry}`);
      return "parent";
    });
    let body: RawBody | undefined;
    await whileRunning(registry, async () => {
      cluster.create(kex("kex1"));
      body = await cluster.waitFor("kopfexamples", "kex1", handled);
    }, { lifecycle });
    assertEquals(calls.list, expected);
    const status = body?.status as Record<string, unknown>;
    assertEquals(status["create_fn/first"], 1);
    assertEquals(status["create_fn/second"], 2);
    assertEquals(status.create_fn, "parent");
    // Everything purged at the end: the sub-handlers' records too, and their emptied stanza.
    assertEquals(Object.keys(body?.metadata?.annotations ?? {}), [DIFFBASE]);
    assertEquals(status.kopf, undefined);
  });
}

Deno.test("kopf.subhandler and kopf.register: run after the parent, nested ids", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry }, function create_fn({ spec }) {
    for (const item of ["a", "b"]) {
      subhandler({ id: `item-${item}` }, ({ reason }) => {
        calls.add(`${reason} ${item} ${spec.field}`);
      });
    }
    register(function registered() {
      calls.add("registered");
      subhandler({ id: "deeper" }, () => calls.add("deeper"));
    });
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("kex1"));
    await cluster.waitFor("kopfexamples", "kex1", handled);
  });
  assertEquals(calls.list, ["create a value", "create b value", "registered", "deeper"]);
  assert(
    logsOf("kex1").some((l) => l.includes("Handler 'create_fn/registered/deeper' succeeded.")),
  );
});

Deno.test("event handlers: every event incl. the listing, no state, errors ignored", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.event("kopfexamples", { registry }, function watcher({ type, event, name }) {
    calls.add(`${type} ${name} ${event.object.spec?.field}`);
    throw new Error("ignored");
  });
  on.event("kopfexamples", { registry, id: "marker" }, () => ({ seen: true }));
  cluster.create(kex("before"));
  await whileRunning(registry, async () => {
    await calls.until(1);
    cluster.create(kex("kex1"));
    await calls.until(1, (c) => c.startsWith("ADDED kex1"));
    cluster.patch("kopfexamples", "kex1", { spec: { field: "x" } });
    await calls.until(1, (c) => c.startsWith("MODIFIED kex1 x"));
    cluster.delete("kopfexamples", "kex1");
    await calls.until(1, (c) => c.startsWith("DELETED kex1"));
  });
  assertEquals(calls.list[0], "null before value");
  // No state is kept; results go to the status (a repeated result changes nothing).
  const body = cluster.get("kopfexamples", "before");
  assertEquals(body?.metadata?.annotations, undefined);
  assertEquals(body?.status, { marker: { seen: true } });
  assert(logsOf("kex1").some((l) => l.includes("Handler 'watcher' failed with an exception")));
});

Deno.test("kopf.execute() without arguments runs the sub-handlers registered so far, once", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry }, async function create_fn({ retry }) {
    calls.add(`parent ${retry}`);
    subhandler({ id: "a" }, () => calls.add("a"));
    subhandler({ id: "b" }, () => calls.add("b"));
    await execute({ lifecycle: lifecycles.allAtOnce });
    calls.add("after");
    await execute(); // done already: nothing runs twice
    subhandler({ id: "late" }, () => calls.add("late")); // neither now nor after the handler
    return "parent";
  });
  let body: RawBody | undefined;
  await whileRunning(registry, async () => {
    cluster.create(kex("kex1"));
    body = await cluster.waitFor("kopfexamples", "kex1", handled);
  });
  assertEquals(calls.list, ["parent 0", "a", "b", "after"]);
  assertEquals((body?.status as Record<string, unknown>).create_fn, "parent");
});

Deno.test("kopf.execute({ lifecycle }): the sub-handlers' own lifecycle, not the operator's", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry }, async function create_fn({ retry }) {
    calls.add(`parent ${retry}`);
    await execute({
      fns: { x: () => calls.add("x"), y: () => calls.add("y") },
      lifecycle: lifecycles.oneByOne,
    });
    calls.add("after");
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("kex1"));
    await cluster.waitFor("kopfexamples", "kex1", handled);
  }, { lifecycle: lifecycles.allAtOnce });
  assertEquals(calls.list, ["parent 0", "x", "parent 1", "y", "after"]);
});

Deno.test("kopf.execute({ cause }): sub-handlers run for another reason and change", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry }, async function create_fn({ spec }) {
    subhandler({ id: "watched", field: "spec.field" }, ({ reason, old, new: now, diff }) => {
      calls.add(`${reason}: ${old} → ${now}, ${diff.length} change(s)`);
    });
    subhandler({ id: "deleting", when: ({ reason }) => reason === "delete" }, () => {
      calls.add("never: filtered out by the reason");
    });
    await execute({
      cause: { reason: "update", old: { spec: { field: "before" } }, new: { spec } },
    });
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("kex1"));
    await cluster.waitFor("kopfexamples", "kex1", handled);
  });
  assertEquals(calls.list, ["update: before → value, 1 change(s)"]);
});
