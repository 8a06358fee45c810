/**
 * `simulate()` itself: a run is a function of its seed (the same seed writes the same trace,
 * byte for byte; another seed another), a broken invariant comes back with its seed, name,
 * message and trace, and a sound operator passes many seeds under every default fault.
 */
import { assert, assertEquals, assertNotEquals, assertRejects } from "../../assert.ts";
import { kopf } from "../../../mod.ts";
import { simulate } from "../../../src/testing/mod.ts";
import { allMarked, createSome as some, labeller } from "./labelling.ts";

const createSome = some();

Deno.test("the same seed gives a byte-identical trace; another seed another", async () => {
  const registry = labeller();
  const traceOf = async (seed: number) => {
    const report = await simulate({
      operator: registry,
      seed,
      settle: 120,
      scenario: createSome,
      invariants: [function always() {
        return "broken on purpose, for the trace";
      }],
    });
    assertEquals(report.runs, 1);
    assertEquals(report.failures.length, 1);
    return report.failures[0].trace;
  };
  const first = await traceOf(7);
  const again = await traceOf(7);
  const other = await traceOf(8);
  assertEquals(again, first);
  assertNotEquals(other, first);
  assert(first.includes("scenario create ConfigMap default/c0"), first.slice(0, 2000));
  assert(/watch +#1\.\d+ configmaps (ADDED|MODIFIED) default\/c\d/.test(first));
  assert(first.includes("Handler 'mark' succeeded"));
});

Deno.test("a broken invariant is reported with its seed, name, message and trace", async () => {
  const report = await simulate({
    operator: labeller(),
    seeds: 3,
    firstSeed: 40,
    settle: 60,
    scenario: createSome,
    invariants: [function nothingMarked(sim) {
      const marked = sim.cluster.list("configmaps", { namespace: "default" })
        .filter((c) => c.metadata?.labels?.done === "yes");
      return marked.length ? `${marked.length} marked` : undefined;
    }],
  });
  assertEquals(report.runs, 3);
  assertEquals(report.failures.map((f) => f.seed), [40, 41, 42]);
  for (const failure of report.failures) {
    assertEquals(failure.invariant, "nothingMarked");
    assertEquals(failure.message, "10 marked");
    assert(failure.trace.endsWith("nothingMarked: 10 marked\n"), failure.trace.slice(-300));
  }
});

Deno.test("a sound operator passes 30 seeds under all the default faults", async () => {
  const seen: number[] = [];
  const report = await simulate({
    operator: labeller(),
    seeds: 30,
    scenario: createSome,
    invariants: [allMarked],
    onRun: (run) => seen.push(run.seed),
  });
  assertEquals(report.failures.map((f) => `${f.seed}: ${f.invariant}: ${f.message}`), []);
  assertEquals(report.runs, 30);
  assertEquals(seen, Array.from({ length: 30 }, (_, i) => i + 1));
});

Deno.test("the process's own timers, time and chance are back after a run", async () => {
  const setTimeoutBefore = globalThis.setTimeout;
  const DateBefore = Date;
  const randomBefore = Math.random;
  await simulate({ operator: labeller(), seed: 1, settle: 10, scenario: createSome });
  assertEquals(globalThis.setTimeout, setTimeoutBefore);
  assertEquals(Date, DateBefore);
  assertEquals(Math.random, randomBefore);
  assert(Math.abs(Date.now() - new Date().getTime()) < 1000);
});

Deno.test("bad options are refused with one clear line", async () => {
  const registry = labeller();
  await assertRejects(
    () => simulate({ operator: registry, seed: 1, seeds: 2, scenario: () => {} }),
    Error,
    "either one seed",
  );
  await assertRejects(
    // deno-lint-ignore no-explicit-any
    () => simulate({ operator: registry, faults: { crash: false } as any, scenario: () => {} }),
    Error,
    'Unknown simulation fault "crash"',
  );
});

Deno.test("with checkEveryStep, an invariant broken mid-run is caught when it breaks", async () => {
  const report = await simulate({
    operator: labeller(),
    seed: 2,
    settle: 60,
    faults: false, // the label comes within the 5 s the object lives
    checkEveryStep: true,
    scenario: async (sim) => {
      sim.cluster.create({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "brief", namespace: "default" },
      });
      await sim.sleep(5);
      sim.cluster.delete("configmaps", "brief");
      await sim.sleep(5);
    },
    invariants: [function neverMarked(sim) {
      const brief = sim.cluster.get("configmaps", "brief");
      return brief?.metadata?.labels?.done === "yes" ? "brief was marked" : undefined;
    }],
  });
  assertEquals(report.failures.length, 1, "gone by the end, yet caught on the way");
  assertEquals(report.failures[0].message, "brief was marked (checked after every step)");
});

Deno.test("a scenario that throws, and an operator that ends by itself, are failures", async () => {
  const thrown = await simulate({
    operator: labeller(),
    seed: 1,
    scenario: () => {
      throw new Error("no such fixture");
    },
  });
  assertEquals(thrown.failures[0].invariant, "the scenario");
  assertEquals(thrown.failures[0].message, "it threw: Error: no such fixture");

  const registry = labeller();
  kopf.on.startup({ registry }, () => {
    throw new kopf.PermanentError("the configuration is broken");
  });
  const ended = await simulate({ operator: registry, seed: 1, scenario: createSome });
  assertEquals(ended.failures[0].invariant, "the operator starts");
  assert(ended.failures[0].message.includes("ended on its own"), ended.failures[0].message);
});

Deno.test("a promise a handler leaves rejected unhandled fails the run", async () => {
  const registry = new kopf.OperatorRegistry();
  kopf.on.create("configmaps", { registry, id: "careless" }, () => {
    Promise.reject(new Error("forgotten"));
  });
  const report = await simulate({ operator: registry, seed: 1, settle: 30, scenario: createSome });
  assertEquals(report.failures[0]?.invariant, "the operator runs");
  assertEquals(report.failures[0].message, "an unhandled rejection: Error: forgotten");
});

Deno.test("the built-in invariants: a handler left retrying and a stuck deletion are named", async () => {
  const registry = new kopf.OperatorRegistry();
  kopf.on.create("configmaps", { registry, id: "never" }, () => {
    throw new kopf.TemporaryError("not yet", { delay: 3600 });
  });
  const retrying = await simulate({
    operator: registry,
    seed: 1,
    settle: 60,
    scenario: createSome,
  });
  assertEquals(retrying.failures[0].invariant, "no handler left retrying");
  assert(
    retrying.failures[0].message.startsWith("configmaps default/c"),
    retrying.failures[0].message,
  );
  assert(retrying.failures[0].message.includes("never (retries: 1) not done"));

  const stuck = await simulate({
    operator: labeller(),
    seed: 1,
    settle: 60,
    scenario: async (sim) => {
      sim.cluster.create({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "held", namespace: "default", finalizers: ["example.com/hold"] },
      });
      await sim.sleep(1);
      sim.cluster.delete("configmaps", "held");
    },
  });
  assertEquals(stuck.failures[0].invariant, "no object stuck deleting");
  assert(stuck.failures[0].message.includes('["example.com/hold"]'), stuck.failures[0].message);
});

Deno.test("a handler that spins on zero-second timers stalls the run: a failure with its trace", async () => {
  const registry = new kopf.OperatorRegistry();
  kopf.on.create("configmaps", { registry, id: "spin" }, async () => {
    for (;;) await new Promise((resolve) => setTimeout(resolve, 0));
  });
  const report = await simulate({ operator: registry, seed: 1, settle: 10, scenario: createSome });
  assertEquals(report.failures[0]?.invariant, "the simulation stalls");
  assert(report.failures[0].message.includes("without it moving on"));
  assert(report.failures[0].trace.includes("scenario create ConfigMap default/c0"));
});
