/**
 * The priority of the requests each kind of handler makes, in a real operator against the
 * fake cluster: live changes are `live`; resumes, retries, timers and daemons `deferred`,
 * so that under the client's limit of requests in flight they wait behind live changes.
 */
import { assertEquals } from "../assert.ts";
import { TemporaryError } from "../../src/structs/errors.ts";
import { daemon, on, timer } from "../../src/intents/registration.ts";
import { currentRequestPriority } from "../../src/client/request_priorities.ts";
import { Calls, clusterRegistry, DIFFBASE, kex, startCluster, startOperator } from "./harness.ts";

const KEX = "kopfexamples";

Deno.test("created objects are handled at the live priority, their retries at the deferred one", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create(KEX, { registry }, function create_fn({ retry }) {
    // Awaited first: the priority follows the handler's awaits, not only its first steps.
    return Promise.resolve().then(() => {
      calls.add(`create ${retry} ${currentRequestPriority()}`);
      if (retry === 0) throw new TemporaryError("again", { delay: 0 });
    });
  });
  const op = await startOperator(registry);
  try {
    cluster.create(kex("kex1"));
    await calls.until(2);
    assertEquals(calls.list, ["create 0 live", "create 1 deferred"]);
  } finally {
    await op.stop();
  }
});

Deno.test("resumes, timers and daemons run at the deferred priority", async () => {
  await using cluster = await startCluster();
  // Handled by an earlier operator (its diff-base is there): resumed.
  const diffbase = { [DIFFBASE]: '{"spec":{"field":"value"}}\n' };
  cluster.create(kex("kex1", {}, { metadata: { annotations: diffbase } }));
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.resume(KEX, { registry }, function resume_fn() {
    calls.add(`resume ${currentRequestPriority()}`);
  });
  timer(KEX, { registry, interval: 60 }, function tick() {
    calls.add(`timer ${currentRequestPriority()}`);
  });
  daemon(KEX, { registry }, async function monitor({ stopped }) {
    calls.add(`daemon ${currentRequestPriority()}`);
    await stopped.wait();
  });
  const op = await startOperator(registry);
  try {
    await calls.until(3);
    assertEquals(calls.list.toSorted(), ["daemon deferred", "resume deferred", "timer deferred"]);
  } finally {
    await op.stop();
  }
});
