/**
 * Embedding: kopf.spawnTasks() returns at once with a handle on the running operator, and
 * kopf.runTasks() waits for operators, stopping all once one ends or a signal aborts.
 */
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { kopf, type OperatorTasks } from "../../mod.ts";
import { PermanentError } from "../../src/structs/errors.ts";
import {
  Calls,
  clusterRegistry,
  handled,
  kex,
  startCluster,
  testSettings,
} from "../operator/harness.ts";

Deno.test("spawnTasks returns at once; ready, done and stop() follow the operator", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  kopf.on.create("kopfexamples", { registry }, ({ name }) => calls.add(`created ${name}`));
  let readyCalls = 0;
  const tasks = kopf.spawnTasks({
    registry,
    settings: testSettings(),
    namespaces: ["default"],
    standalone: true,
    onReady: () => readyCalls++,
  });
  assert(tasks.running, "running as soon as it is spawned");
  assertEquals(readyCalls, 0, "not awaited: not ready yet");
  await tasks.ready;
  assertEquals(readyCalls, 1, "the operator's own onReady is still called");
  cluster.create(kex("kex1"));
  await cluster.waitFor("kopfexamples", "kex1", handled);
  assertEquals(calls.list, ["created kex1"]);
  assert(!tasks.signal.aborted);
  await tasks.stop();
  assert(tasks.signal.aborted);
  assert(!tasks.running);
  await tasks.done;
});

Deno.test("spawnTasks: a failure rejects ready and done; await using stops it", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  kopf.on.startup({ registry }, () => {
    throw new PermanentError("no configuration");
  });
  const logs: string[] = [];
  const logger = {
    debug: () => {},
    info: () => {},
    warning: () => {},
    error: (message: string) => logs.push(message),
  };
  const tasks = kopf.spawnTasks({ registry, settings: testSettings(), clusterwide: true, logger });
  await assertRejects(() => tasks.ready, Error, "no configuration");
  await assertRejects(() => tasks.done, Error, "no configuration");
  assert(logs.some((line) => line.startsWith("The operator has failed:")), logs.join("\n"));

  const controller = new AbortController();
  let handle: OperatorTasks | undefined;
  {
    await using stopped = kopf.spawnTasks({
      registry: clusterRegistry(cluster),
      settings: testSettings(),
      clusterwide: true,
      standalone: true,
      signal: controller.signal,
    });
    await stopped.ready;
    handle = stopped;
  }
  assert(handle !== undefined && !handle.running, "stopped at the end of the block");
  assert(!controller.signal.aborted, "the caller's signal is only listened to");
});

Deno.test("runTasks: a signal stops all; one operator's end stops the others", async () => {
  await using cluster = await startCluster();
  const spawn = (registry = clusterRegistry(cluster)) =>
    kopf.spawnTasks({
      registry,
      settings: testSettings(),
      namespaces: ["default"],
      standalone: true,
    });

  const controller = new AbortController();
  const first = spawn();
  const second = spawn();
  await Promise.all([first.ready, second.ready]);
  const running = kopf.runTasks([first, second], { signal: controller.signal });
  controller.abort();
  await running;
  assert(!first.running && !second.running);

  const third = spawn();
  const fourth = spawn();
  await Promise.all([third.ready, fourth.ready]);
  const together = kopf.runTasks([third, fourth]);
  await third.stop();
  await together;
  assert(!fourth.running, "the other operator is stopped too");
  await kopf.runTasks([]);
});

Deno.test("runTasks rejects with a failure after stopping the others", async () => {
  await using cluster = await startCluster();
  const failing = clusterRegistry(cluster);
  kopf.on.startup({ registry: failing }, async () => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    throw new PermanentError("cannot start");
  });
  const quiet = { debug: () => {}, info: () => {}, warning: () => {}, error: () => {} };
  const healthy = kopf.spawnTasks({
    registry: clusterRegistry(cluster),
    settings: testSettings(),
    namespaces: ["default"],
    standalone: true,
  });
  const broken = kopf.spawnTasks({
    registry: failing,
    settings: testSettings(),
    clusterwide: true,
    logger: quiet,
  });
  await assertRejects(() => kopf.runTasks([healthy, broken]), Error, "cannot start");
  assert(!healthy.running, "the healthy operator is stopped");
  await healthy.done;
});
