/**
 * Leader election inside one process, with the real operator against the fake cluster:
 * a standby keeps its indices full but runs nothing; a leader whose Lease is taken over
 * (as after a network partition) stops its daemons and its handling at once, stands by,
 * and leads again when the Lease is free; a second operator takes over at once from one
 * that stops gracefully; with webhooks, a standby is not ready.
 */
import { assert, assertEquals } from "../assert.ts";
import { daemon, index, on } from "../../src/intents/registration.ts";
import { formatMicroTime, recordOf } from "../../src/engines/leases.ts";
import type { Index } from "../../src/structs/indices.ts";
import {
  Calls,
  clusterRegistry,
  handled,
  kex,
  LOGS,
  startCluster,
  startOperator,
  testSettings,
} from "./harness.ts";
import { until } from "./replicas.ts";

const KEX = "kopfexamples";
const LEASE = { apiVersion: "coordination.k8s.io/v1", kind: "Lease" };

function leadershipSettings(name: string) {
  return testSettings({
    leadership: {
      leaderElection: true,
      name,
      leaseDuration: 2,
      renewDeadline: 1.5,
      retryPeriod: 0.2,
    },
  });
}

Deno.test("a leader whose Lease is taken stops its daemons and handlers, and leads again later", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create(KEX, { registry }, function creator({ name }) {
    calls.add(`create ${name}`);
  });
  daemon(KEX, { registry, cancellationPolling: 0.05 }, async function monitor({ name, stopped }) {
    calls.add(`start ${name}`);
    while (!stopped.isSet) await stopped.wait(0.02);
    calls.add(`stop ${name} ${stopped.reason}`);
  });
  cluster.create(kex("first"));
  const op = await startOperator(registry, {
    settings: leadershipSettings("stolen"),
    standalone: false,
  });
  try {
    await calls.until(1, (c) => c === "start first");
    await calls.until(1, (c) => c === "create first");
    const ours = recordOf(cluster.get(LEASE, "stolen")!).holderIdentity;

    // Another holder writes the Lease: the leader finds it held at its next renewal.
    const lease = cluster.get(LEASE, "stolen")!;
    const now = formatMicroTime(Date.now());
    cluster.replace({
      ...lease,
      spec: { ...(lease.spec as object), holderIdentity: "intruder", renewTime: now },
    });
    await calls.until(1, (c) => c === "stop first operator-pausing");
    assert(LOGS.some((line) => line.includes("Leadership is lost")));

    // Standing by: a new object is not handled while the intruder holds the Lease.
    cluster.create(kex("second"));
    await until("the standby to see the intruder", () => {
      return LOGS.some((line) => line.includes("held by intruder"));
    }, 10);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assertEquals(calls.count((c) => c.endsWith(" second")), 0);
    assert(!handled(cluster.get(KEX, "second")));

    // The intruder lets go: leading again, the objects seen meanwhile are handled.
    const taken = cluster.get(LEASE, "stolen")!;
    cluster.replace({
      ...taken,
      spec: { ...(taken.spec as object), holderIdentity: "", leaseDurationSeconds: 1 },
    });
    await calls.until(1, (c) => c === "create second");
    await calls.until(1, (c) => c === "start second");
    await calls.until(2, (c) => c === "start first");
    assertEquals(recordOf(cluster.get(LEASE, "stolen")!).holderIdentity, ours);
    assertEquals(calls.count((c) => c === "create first"), 1, "not run again: it was stored");
  } finally {
    await op.stop();
  }
  assertEquals(recordOf(cluster.get(LEASE, "stolen")!).holderIdentity, "", "released");
});

Deno.test("a standby indexes every object but runs nothing; it leads at once after a graceful stop", async () => {
  await using cluster = await startCluster();
  const calls = new Calls<string>();
  const indices = new Map<string, Index>();
  const registries = ["one", "two"].map((replica) => {
    const registry = clusterRegistry(cluster);
    on.startup({ registry }, function keep(kwargs) {
      // Indices come as keyword arguments by their names; not declared in this registry's type.
      indices.set(replica, (kwargs as unknown as { names: Index }).names);
    });
    on.create(KEX, { registry }, function creator({ name }) {
      calls.add(`${replica} ${name}`);
    });
    index(KEX, { registry }, function names({ name }) {
      return { [name!]: true };
    });
    return registry;
  });
  cluster.create(kex("a"));
  const one = await startOperator(registries[0], { settings: leadershipSettings("pair") });
  let two: Awaited<ReturnType<typeof startOperator>> | undefined;
  try {
    await calls.until(1, (c) => c === "one a");
    two = await startOperator(registries[1], { settings: leadershipSettings("pair") });
    cluster.create(kex("b"));
    await calls.until(1, (c) => c === "one b");
    // The standby's index has both objects although it handled neither.
    await until("the standby's index to fill", () => indices.get("two")?.size === 2, 10);
    assertEquals(calls.count((c) => c.startsWith("two ")), 0);

    const stoppedAt = Date.now();
    await one.stop();
    cluster.create(kex("c"));
    await calls.until(1, (c) => c === "two c");
    const seconds = (Date.now() - stoppedAt) / 1000;
    assert(seconds < 2, `took over in ${seconds}s: at once, not after the lease duration (2s)`);
    assertEquals(calls.count((c) => c === "two a" || c === "two b"), 0, "stored: not rerun");
  } finally {
    await one.stop().catch(() => {});
    await two?.stop();
  }
});
