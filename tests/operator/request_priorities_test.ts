/**
 * The priority of the requests each kind of handler makes, in a real operator against the
 * fake cluster: live changes are `live`; resumes, retries, timers and daemons `deferred`,
 * so that under the client's limit of requests in flight they wait behind live changes.
 */
import { assert, assertEquals } from "../assert.ts";
import { TemporaryError } from "../../src/structs/errors.ts";
import { daemon, on, timer } from "../../src/intents/registration.ts";
import { currentRequestPriority } from "../../src/client/request_priorities.ts";
import { recordOf } from "../../src/engines/leases.ts";
import {
  Calls,
  clusterRegistry,
  DIFFBASE,
  handled,
  kex,
  LOGS,
  startCluster,
  startOperator,
  testSettings,
} from "./harness.ts";
import { until } from "./replicas.ts";
import { holdingWebhook } from "../testing/fake_cluster/helpers.ts";

const LEASE = { apiVersion: "coordination.k8s.io/v1", kind: "Lease" };

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

Deno.test("a leader renews its Lease while the handlers' requests hold every place of the client", async () => {
  await using cluster = await startCluster();
  // The operator's writes of kopfexamples are held in the server until released: with a
  // client limit of one, its one place stays taken meanwhile.
  await using held = await holdingWebhook();
  const [webhook] = held.configuration.webhooks;
  cluster.create({
    ...held.configuration,
    webhooks: [{
      ...webhook,
      rules: [{
        operations: ["UPDATE"],
        apiGroups: ["kopf.dev"],
        apiVersions: ["v1"],
        resources: ["kopfexamples"],
      }],
    }],
  });
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create(KEX, { registry }, function create_fn({ name }) {
    calls.add(`create ${name}`);
  });
  const op = await startOperator(registry, {
    standalone: false,
    settings: testSettings({
      leadership: {
        leaderElection: true,
        name: "held",
        leaseDuration: 2,
        renewDeadline: 1.5,
        retryPeriod: 0.2,
      },
      networking: { minConcurrency: 1, initialConcurrency: 1, maxConcurrency: 1 },
    }),
  });
  try {
    cluster.create(kex("kex1"));
    await calls.until(1);
    await held.arrived(1);
    // Renewed again and again (every 0.2 s) past the renew deadline, the place still held.
    const renewals = new Set<string>();
    await until(
      "renewals while the write is held",
      () => {
        renewals.add(String(recordOf(cluster.get(LEASE, "held")!).renewTime));
        return renewals.size >= 10;
      },
      10,
      50,
    );
    assert(!LOGS.some((line) => line.includes("Leadership is lost")), "still the leader");
    held.release();
    await until("the outcome stored", () => handled(cluster.get(KEX, "kex1")), 10);
  } finally {
    await op.stop();
  }
});
