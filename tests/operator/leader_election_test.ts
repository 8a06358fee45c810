/**
 * Leader election with real processes: two replicas of one operator, the leader killed
 * with SIGKILL in the middle of a handler run. The standby takes over within the lease
 * duration and a retry period or two, runs nothing before that, and no two runs for one
 * object ever overlap. Then a graceful stop: the leader finishes, releases the Lease, and
 * the next standby takes over at once — well before the lease would have expired.
 */
import { assert, assertEquals } from "../assert.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import {
  holderOf,
  installCrd,
  KIND,
  overlappingRuns,
  type Replica,
  startReplica,
  until,
} from "./replicas.ts";

const LEASE_DURATION = 4;
const RENEW_DEADLINE = 3;
const RETRY_PERIOD = 0.5;
/** client-go's jitter of the retries: up to 120% more. */
const JITTERED_RETRY = RETRY_PERIOD * 2.2;
const ENV = {
  REPLICA_TIMINGS: `${LEASE_DURATION},${RENEW_DEADLINE},${RETRY_PERIOD}`,
  REPLICA_HANDLER_MS: "300",
};
const FLAGS = ["-n", "default", "--leader-election", "--leader-election-id", "replicas-test"];

Deno.test({
  name:
    "leader election: SIGKILL the leader mid-run, the standby takes over in time, no run overlaps",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await using cluster = await FakeCluster.start();
    await installCrd(cluster);
    const kubeconfig = await cluster.writeKubeconfig();
    const create = (name: string) =>
      cluster.create({ ...KIND, metadata: { name, namespace: "default" }, spec: { value: 1 } });
    const handled = (name: string) => {
      const body = cluster.get(KIND, name);
      return (body?.status as Record<string, unknown> | undefined)?.create !== undefined;
    };
    const replicas: Replica[] = [];
    await using a = startReplica("replica-a", kubeconfig, FLAGS, ENV);
    replicas.push(a);
    await until("replica-a to lead", () => holderOf(cluster, "replicas-test") === "replica-a", 30);
    await using b = startReplica("replica-b", kubeconfig, FLAGS, ENV);
    replicas.push(b);
    await until("replica-b on standby", () => b.logged(/On standby/), 30);

    for (let i = 0; i < 5; i++) create(`early-${i}`);
    // Their runs' END lines too: they may come through the pipe after the status is written,
    // and an early run still open would pass for one cut short by the kill below.
    await until(
      "the early objects handled",
      () => [0, 1, 2, 3, 4].every((i) => handled(`early-${i}`)) && a.open.length === 0,
      30,
    );
    for (let i = 0; i < 10; i++) create(`late-${i}`);
    await until("a handler run of the leader", () => a.open.length > 0, 30);
    const interrupted = a.open.map((r) => r.object);
    a.kill("SIGKILL");
    const killedAt = a.killedAt!;
    const takenAt = await until(
      "replica-b to take over",
      () => holderOf(cluster, "replicas-test") === "replica-b",
      30,
    );
    const takeover = (takenAt - killedAt) / 1000;
    // The standby counts the expiry from when it last saw the record change: at most a
    // jittered retry after the last renewal; it then tries every jittered retry period.
    const bound = LEASE_DURATION + 2 * JITTERED_RETRY + 0.5;
    assert(takeover <= bound, `took over in ${takeover}s, more than ${bound}s`);
    assert(takeover >= LEASE_DURATION - JITTERED_RETRY, `took over in ${takeover}s: too early`);
    await until("every object handled", () => {
      return [0, 1, 2, 3, 4].every((i) => handled(`early-${i}`)) &&
        [...Array(10).keys()].every((i) => handled(`late-${i}`));
    }, 60);

    assertEquals(overlappingRuns(replicas), []);
    // The standby ran nothing while it stood by; the killed leader nothing after its death.
    assertEquals(b.runs.filter((r) => r.start < killedAt).map((r) => r.object), []);
    // (The kill's time is taken after the signal is sent: a run started in that very
    // millisecond started before it.)
    assert(a.runs.every((r) => r.start <= killedAt));
    // The run cut short by the kill was run again by the new leader.
    for (const object of interrupted) {
      assert(b.runs.some((r) => r.object === object), `${object} handled again by replica-b`);
    }
    assertEquals(await a.exited(), 137);

    // A graceful stop: the leader releases the Lease after its work is stored.
    await using c = startReplica("replica-c", kubeconfig, FLAGS, ENV);
    replicas.push(c);
    await until("replica-c on standby", () => c.logged(/On standby/), 30);
    for (let i = 0; i < 5; i++) create(`graceful-${i}`);
    await until("a handler run of the new leader", () => b.open.length > 0, 30);
    const stoppedAt = Date.now();
    b.kill("SIGTERM");
    const handedAt = await until(
      "replica-c to take over",
      () => holderOf(cluster, "replicas-test") === "replica-c",
      30,
    );
    const handover = (handedAt - stoppedAt) / 1000;
    assert(
      handover < LEASE_DURATION,
      `a released Lease is taken at once, not after it expires: ${handover}s`,
    );
    assertEquals(await b.exited(), 0, b.log);
    await until("every graceful object handled", () => {
      return [0, 1, 2, 3, 4].every((i) => handled(`graceful-${i}`));
    }, 60);
    assertEquals(overlappingRuns(replicas), []);
    assert(c.runs.every((r) => r.start >= stoppedAt));
  },
});
