/**
 * Lifecycles end to end: what each costs in writes for a create with three handlers, the
 * order of handlers under `asap` when one fails, what a handler sees of the previous ones'
 * results, the process's default lifecycle and the refused option.
 */
import { assertEquals, assertRejects } from "../assert.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { TemporaryError } from "../../src/structs/errors.ts";
import { on } from "../../src/intents/registration.ts";
import { OperatorRegistry } from "../../src/intents/registry.ts";
import { type LifeCycleFn, lifecycles, setDefaultLifecycle } from "../../src/intents/lifecycles.ts";
import { operator } from "../../src/reactor/running.ts";
import { OperatorConfigurationError } from "../../src/reactor/operator_options.ts";
import {
  Calls,
  clusterRegistry,
  handled,
  kex,
  patchesOf,
  startCluster,
  whileRunning,
} from "./harness.ts";

/**
 * PATCH requests of a create with three handlers, by lifecycle, without and with the status
 * subresource (then each cycle writes `/status` and the object apart). One cycle writes
 * once (twice with `/status`); one handler per cycle makes it three cycles.
 */
const WRITES: [string, number, number][] = [
  ["allAtOnce", 1, 2],
  ["shuffled", 1, 2],
  ["asap", 3, 6],
  ["oneByOne", 3, 6],
  ["randomized", 3, 6],
];

for (const [name, plain, withStatus] of WRITES) {
  for (const status of [false, true]) {
    const expected = status ? withStatus : plain;
    Deno.test(`${name}: a create with 3 handlers costs ${expected} PATCH requests${status ? " with /status" : ""}`, async () => {
      await using cluster = await startCluster({ status });
      const registry = clusterRegistry(cluster);
      for (const id of ["one", "two", "three"]) {
        on.create("kopfexamples", { registry, id }, () => ({ done: id }));
      }
      let body: RawBody | undefined;
      await whileRunning(registry, async () => {
        cluster.create(kex("kex1"));
        body = await cluster.waitFor("kopfexamples", "kex1", handled);
      }, { lifecycle: lifecycles[name as keyof typeof lifecycles] });
      assertEquals(patchesOf(cluster, "kex1").length, expected);
      const results = body?.status as Record<string, unknown>;
      assertEquals([results.one, results.two, results.three], [
        { done: "one" },
        { done: "two" },
        { done: "three" },
      ]);
    });
  }
}

Deno.test("asap (the default): one handler per cycle, a failing one goes last", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry }, function first({ retry }) {
    calls.add(`first ${retry}`);
    if (retry === 0) throw new TemporaryError("not yet", { delay: 0 });
  });
  on.create("kopfexamples", { registry }, function second({ retry }) {
    calls.add(`second ${retry}`);
  });
  on.create("kopfexamples", { registry }, function third({ retry }) {
    calls.add(`third ${retry}`);
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("kex1"));
    await cluster.waitFor("kopfexamples", "kex1", handled);
  });
  assertEquals(calls.list, ["first 0", "second 0", "third 0", "first 1"]);
});

Deno.test("one handler per cycle: each sees the results of the previous ones in the body", async () => {
  for (
    const [lifecycle, seen] of [[lifecycles.asap, "one"], [lifecycles.allAtOnce, "none"]] as const
  ) {
    await using cluster = await startCluster();
    const registry = clusterRegistry(cluster);
    on.create("kopfexamples", { registry }, function one() {
      return "one";
    });
    let sawOne: unknown;
    on.create("kopfexamples", { registry }, function two({ status }) {
      sawOne = status.one ?? "none";
    });
    await whileRunning(registry, async () => {
      cluster.create(kex("kex1"));
      await cluster.waitFor("kopfexamples", "kex1", handled);
    }, { lifecycle });
    assertEquals(sawOne, seen, lifecycle.name);
  }
});

Deno.test("kopf.setDefaultLifecycle: operators given none use it", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  for (const id of ["one", "two"]) on.create("kopfexamples", { registry, id }, () => {});
  const chosen: string[][] = [];
  const recording: LifeCycleFn = (handlers, context) => {
    chosen.push(handlers.map((h) => h.id));
    return lifecycles.allAtOnce(handlers, context);
  };
  setDefaultLifecycle(recording);
  try {
    await whileRunning(registry, async () => {
      cluster.create(kex("kex1"));
      await cluster.waitFor("kopfexamples", "kex1", handled);
    });
  } finally {
    setDefaultLifecycle(null);
  }
  assertEquals(chosen, [["one", "two"]]);
  assertEquals(patchesOf(cluster, "kex1").length, 1);
});

Deno.test("a lifecycle option that is not a function is refused at once", async () => {
  const registry = new OperatorRegistry({ onWarning: () => {} });
  await assertRejects(
    () => operator({ registry, lifecycle: "asap" as unknown as LifeCycleFn, clusterwide: true }),
    OperatorConfigurationError,
    "The lifecycle option must be a lifecycle function such as kopf.lifecycles.asap, not string.",
  );
});
