/**
 * The engine of daemons and timers on its own: what it keeps per object (nothing for
 * objects that no daemon or timer applies to; nothing once an object is gone), and that a
 * daemon that has ended is not spawned again for its object.
 */
import { assert, assertEquals, assertEventually } from "../assert.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { Resource } from "../../src/structs/resources.ts";
import type { ApiClient } from "../../src/client/api.ts";
import { OperatorSettings } from "../../src/settings/operator_settings.ts";
import { OperatorRegistry } from "../../src/intents/registry.ts";
import { daemon } from "../../src/intents/registration.ts";
import { createObjectScope } from "../../src/handling/object_loggers.ts";
import { Spawner } from "../../src/engines/daemons.ts";
import { realClock } from "../../src/structs/clock.ts";
import { Calls, logsOf } from "../operator/harness.ts";

const KEX = new Resource({ group: "kopf.dev", version: "v1", plural: "kopfexamples" });

function object(uid: string, labels: Record<string, string> = {}): RawBody {
  return { metadata: { name: uid, namespace: "default", uid, labels, resourceVersion: "1" } };
}

/** The stop budget the operator's manager gives the engine by default. */
const EXIT_TIMEOUT = new OperatorSettings().batching.exitTimeout;

function spawner(registry: OperatorRegistry): Spawner {
  // No API requests are expected: the daemons here patch nothing.
  return new Spawner({
    api: {} as ApiClient,
    registry,
    settings: new OperatorSettings(),
    clock: realClock,
  });
}

function stateOf(
  body: RawBody,
  flags: { deleted?: boolean; gone?: boolean; left?: boolean } = {},
) {
  const scope = createObjectScope(body);
  return {
    resource: KEX,
    body,
    deleted: flags.deleted ?? false,
    gone: flags.gone ?? false,
    left: flags.left ?? false,
    memory: { memo: {} },
    logger: scope.logger,
    ref: scope.ref,
  };
}

Deno.test("nothing is kept for objects that no daemon applies to, nor for gone ones", async () => {
  const registry = new OperatorRegistry({ onWarning: () => {} });
  const calls = new Calls<string>();
  daemon(KEX.plural, { registry, labels: { run: "yes" } }, async function watcher({ stopped }) {
    calls.add("start");
    await stopped.wait();
    calls.add(`stop ${stopped.reason}`);
  });
  const engine = spawner(registry);
  await engine.process(stateOf(object("a")));
  assertEquals([engine.objects, engine.size], [0, 0]);

  const b = object("b", { run: "yes" });
  await engine.process(stateOf(b));
  await engine.process(stateOf(b)); // the same state again: never a second daemon
  await calls.until(1);
  assertEquals([engine.objects, engine.size], [1, 1]);

  await engine.process(stateOf(b, { gone: true }));
  await calls.until(1, (c) => c === "stop resource-deleted");
  await new Promise((resolve) => setTimeout(resolve, 0));
  assertEquals([engine.objects, engine.size], [0, 0]);
  assertEquals(calls.list, ["start", "stop resource-deleted"]);
  await engine.shutdown(EXIT_TIMEOUT);
});

Deno.test("a daemon that has ended is not spawned again for its object", async () => {
  const registry = new OperatorRegistry({ onWarning: () => {} });
  const calls = new Calls<string>();
  daemon(KEX.plural, { registry }, function once() {
    calls.add("run");
  });
  const engine = spawner(registry);
  const body = object("a");
  await engine.process(stateOf(body));
  await calls.until(1);
  await assertEventually("the daemon's end", () => engine.size === 0);
  await engine.process(stateOf({ ...body, metadata: { ...body.metadata, resourceVersion: "2" } }));
  await new Promise((resolve) => setTimeout(resolve, 10));
  assertEquals(calls.list, ["run"]);
  assertEquals([engine.objects, engine.size], [1, 0], "its end is remembered while it exists");
  await engine.process(stateOf(body, { gone: true }));
  assertEquals(engine.objects, 0);
  await engine.shutdown(EXIT_TIMEOUT);
});

Deno.test("the operator's exit stops the daemons and spawns no more", async () => {
  const registry = new OperatorRegistry({ onWarning: () => {} });
  const calls = new Calls<string>();
  daemon(KEX.plural, { registry }, async function watcher({ name, stopped }) {
    calls.add(`start ${name}`);
    await stopped.wait();
    calls.add(`stop ${name} ${stopped.reason}`);
  });
  const engine = spawner(registry);
  await engine.process(stateOf(object("a")));
  await calls.until(1);
  await engine.shutdown(EXIT_TIMEOUT);
  assertEquals(calls.list, ["start a", "stop a operator-exiting"]);
  await engine.process(stateOf(object("b")));
  assertEquals(engine.size, 0);
  assertEquals(calls.list.length, 2);
});

Deno.test("at the operator's exit, a deleted object's processing still waits for its daemons' exits", async () => {
  // Returning at once while they still run would have the object processed again at once,
  // over and over, for as long as they take to exit.
  const registry = new OperatorRegistry({ onWarning: () => {} });
  const calls = new Calls<string>();
  daemon(KEX.plural, { registry }, async function slow({ stopped }) {
    calls.add("start");
    await stopped.wait();
    await new Promise((resolve) => setTimeout(resolve, 100));
    calls.add(`exit ${stopped.reason}`);
  });
  const engine = spawner(registry);
  const body = object("a");
  await engine.process(stateOf(body));
  await calls.until(1);
  const exiting = engine.shutdown(EXIT_TIMEOUT);
  // The processing waits for the exits it is given (aside, in the queueing), then asks again.
  const outcome = engine.process(stateOf(body, { deleted: true }));
  assertEquals(outcome.stopping, true);
  assert(outcome.exits !== undefined, "the exits to wait for");
  await outcome.exits;
  assertEquals(engine.recheck(KEX, body), { stopping: false });
  assertEquals(calls.list, ["start", "exit operator-exiting"]);
  await exiting;
  assertEquals([engine.objects, engine.size], [0, 0]);
});

Deno.test("a paused operator's daemons are stopped and spawned again on resumption", async () => {
  const registry = new OperatorRegistry({ onWarning: () => {} });
  const calls = new Calls<string>();
  daemon(KEX.plural, { registry }, async function watcher({ name, stopped }) {
    calls.add(`start ${name}`);
    await stopped.wait();
    if (name === "slow") await new Promise((resolve) => setTimeout(resolve, 50));
    calls.add(`stop ${name} ${stopped.reason}`);
  });
  const engine = spawner(registry);
  await engine.process(stateOf(object("a")));
  await engine.process(stateOf(object("slow")));
  await calls.until(2);
  engine.pause();
  await calls.until(1, (c) => c === "stop a operator-pausing");
  await engine.process(stateOf(object("b"))); // seen while paused: nothing is spawned
  await new Promise((resolve) => setTimeout(resolve, 10));
  assertEquals(calls.count((c) => c.startsWith("start")), 2);
  engine.resume(); // "slow" is still stopping: it is spawned again once it has exited
  await calls.until(1, (c) => c === "start b");
  await calls.until(2, (c) => c === "start a");
  await calls.until(2, (c) => c === "start slow");
  assertEquals(calls.count((c) => c === "stop slow operator-pausing"), 1);
  assertEquals([engine.objects, engine.size], [3, 3]);
  await engine.shutdown(EXIT_TIMEOUT);
  assertEquals(calls.count((c) => c.endsWith("operator-exiting")), 3);
});

Deno.test("a result that cannot be stored fails the daemon with the reason why", async () => {
  const registry = new OperatorRegistry({ onWarning: () => {} });
  const calls = new Calls<string>();
  daemon(KEX.plural, { registry }, function unstorable() {
    calls.add("run");
    return { callback: () => 1 };
  });
  const engine = spawner(registry);
  const body = object("unstorable-result");
  await engine.process(stateOf(body));
  await calls.until(1);
  await new Promise((resolve) => setTimeout(resolve, 10));
  const failure = logsOf("unstorable-result").find((l) => l.includes("failed permanently"));
  assert(failure?.includes("a function cannot be stored"), `the reason is told: ${failure}`);
  assertEquals(calls.list, ["run"], "a permanent failure: not run again");
  await engine.process(stateOf(body, { gone: true }));
  await engine.shutdown(EXIT_TIMEOUT);
});
