/**
 * The Lease lock against the fake cluster over HTTP: client-go's record, optimistic
 * concurrency, expiry judged by the local clock, release and deletion.
 */
import { assert, assertEquals } from "../assert.ts";
import { ManualClock } from "../clocks.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { ApiClient } from "../../src/client/api.ts";
import { Vault } from "../../src/client/vault.ts";
import { formatMicroTime, LeaseLock, recordOf } from "../../src/engines/leases.ts";

const LEASE = { apiVersion: "coordination.k8s.io/v1", kind: "Lease" };

function apiOf(cluster: FakeCluster): ApiClient {
  return new ApiClient(
    new Vault({
      relogin: () => Promise.resolve({ fake: cluster.connectionInfo }),
    }),
  );
}

function lockOf(api: ApiClient, identity: string, clock: ManualClock, name = "op"): LeaseLock {
  return new LeaseLock({ api, namespace: "default", name, identity, leaseDuration: 15, clock });
}

/** A fake cluster, a client of it, a manual clock, and locks "a" and "b" of the Lease "op". */
async function setUp() {
  const cluster = await FakeCluster.start();
  const api = apiOf(cluster);
  const clock = new ManualClock();
  return {
    cluster,
    api,
    clock,
    a: lockOf(api, "a", clock),
    b: lockOf(api, "b", clock),
    async [Symbol.asyncDispose]() {
      await api[Symbol.asyncDispose]();
      await cluster[Symbol.asyncDispose]();
    },
  };
}

Deno.test("MicroTime has six fractional digits in UTC, as client-go writes it", () => {
  assertEquals(formatMicroTime(Date.UTC(2026, 10, 26, 1, 2, 3, 45)), "2026-11-26T01:02:03.045000Z");
});

Deno.test("a Lease is created by the first, kept from others, renewed with its acquire time", async () => {
  await using setup = await setUp();
  const { cluster, a, b, clock } = setup;
  assert(await a.tryAcquireOrRenew());
  const created = recordOf(cluster.get(LEASE, "op")!);
  assertEquals(created.holderIdentity, "a");
  assertEquals(created.leaseDurationSeconds, 15);
  assertEquals(created.leaseTransitions, 0);
  assert(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/.test(created.renewTime!));

  assert(!await b.tryAcquireOrRenew(), "a valid lease of another is not taken");
  assert(b.heldByAnother());
  await clock.advance(5);
  assert(await a.tryAcquireOrRenew());
  const renewed = recordOf(cluster.get(LEASE, "op")!);
  assertEquals(renewed.acquireTime, created.acquireTime);
  assert(renewed.renewTime! > created.renewTime!);
  assertEquals(renewed.leaseTransitions, 0);
});

Deno.test("expiry counts from when the record was last seen to change, by the local clock", async () => {
  await using setup = await setUp();
  const { cluster, a, b, clock } = setup;
  assert(await a.tryAcquireOrRenew());
  assert(!await b.tryAcquireOrRenew()); // b sees the record now
  await clock.advance(14);
  assert(!await b.tryAcquireOrRenew(), "not expired 14s after b first saw it");
  await clock.advance(1.5);
  assert(await b.tryAcquireOrRenew(), "expired 15s after b first saw it unchanged");
  const record = recordOf(cluster.get(LEASE, "op")!);
  assertEquals(record.holderIdentity, "b");
  assertEquals(record.leaseTransitions, 1);
  assert(!await a.tryAcquireOrRenew(), "the old holder finds it taken");
  assert(!a.held);
});

Deno.test("of candidates taking over an expired Lease at once, the stale writes get 409s", async () => {
  await using setup = await setUp();
  const { cluster, api, a, clock } = setup;
  assert(await a.tryAcquireOrRenew());
  const candidates = ["b", "c", "d"].map((id) => lockOf(api, id, clock));
  for (const lock of candidates) assert(!await lock.tryAcquireOrRenew());
  await clock.advance(16);
  // All read the same resourceVersion; the updates with it race: one wins, the rest
  // are refused by the optimistic concurrency and report false, not an error.
  const results = await Promise.all(candidates.map((lock) => lock.tryAcquireOrRenew()));
  assertEquals(results.filter(Boolean).length, 1, String(results));
  const record = recordOf(cluster.get(LEASE, "op")!);
  assertEquals(record.holderIdentity, candidates[results.indexOf(true)].identity);
  assertEquals(record.leaseTransitions, 1);
  const conflicts = cluster.requests.filter((r) => r.method === "PUT" && r.status === 409);
  assertEquals(conflicts.length, 2);
});

Deno.test("of candidates racing for a free Lease, exactly one gets it", async () => {
  await using setup = await setUp();
  const { cluster, api, clock } = setup;
  const locks = ["a", "b", "c", "d"].map((id) => lockOf(api, id, clock));
  const results = await Promise.all(locks.map((lock) => lock.tryAcquireOrRenew()));
  assertEquals(results.filter(Boolean).length, 1, String(results));
  const holder = recordOf(cluster.get(LEASE, "op")!).holderIdentity;
  assertEquals(locks[results.indexOf(true)].identity, holder);
});

Deno.test("a released Lease is free at once: another takes it without waiting", async () => {
  await using setup = await setUp();
  const { cluster, a, b } = setup;
  assert(await a.tryAcquireOrRenew());
  assert(!await b.tryAcquireOrRenew());
  assert(await a.release());
  const released = recordOf(cluster.get(LEASE, "op")!);
  assertEquals(released.holderIdentity, "");
  assertEquals(released.leaseDurationSeconds, 1);
  assert(await b.tryAcquireOrRenew(), "taken at once");
  assertEquals(recordOf(cluster.get(LEASE, "op")!).leaseTransitions, 1);
  assert(await a.release(), "releasing what another holds changes nothing");
  assertEquals(recordOf(cluster.get(LEASE, "op")!).holderIdentity, "b");
});

Deno.test("a Lease is deleted only if unchanged since last seen", async () => {
  await using setup = await setUp();
  const { cluster, api, a, clock } = setup;
  const observer = lockOf(api, "", clock);
  assert(await a.tryAcquireOrRenew());
  observer.observe(cluster.get(LEASE, "op")!);
  await clock.advance(1);
  assert(await a.tryAcquireOrRenew()); // a renews: the observer's view is stale
  assert(!await observer.delete(), "a renewed Lease is kept");
  assert(cluster.get(LEASE, "op") !== undefined);
  observer.observe(cluster.get(LEASE, "op")!);
  assert(await observer.delete());
  assertEquals(cluster.get(LEASE, "op"), undefined);
  assert(await observer.delete(), "a Lease already gone counts as deleted");
});

Deno.test("the fake cluster refuses Leases with malformed times or durations, as kube-apiserver", async () => {
  await using cluster = await FakeCluster.start();
  const base =
    `${cluster.connectionInfo.server}/apis/coordination.k8s.io/v1/namespaces/default/leases`;
  const post = async (spec: Record<string, unknown>) => {
    const response = await fetch(base, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(cluster.token ? { authorization: `Bearer ${cluster.token}` } : {}),
      },
      body: JSON.stringify({ ...LEASE, metadata: { generateName: "l-" }, spec }),
    });
    const body = await response.json();
    return { status: response.status, message: String(body.message ?? "") };
  };
  assertEquals((await post({ renewTime: "yesterday" })).status, 400);
  assertEquals((await post({ leaseDurationSeconds: 0 })).status, 422);
  assertEquals((await post({ leaseTransitions: -1 })).status, 422);
  assertEquals((await post({ holderIdentity: "a", leaseDurationSeconds: 15 })).status, 201);
});

Deno.test("a replica's own Lease is deleted as it is on the server, even when its last write went unseen", async () => {
  await using setup = await setUp();
  const { cluster, api, a, b, clock } = setup;
  assert(await a.tryAcquireOrRenew());
  // The same replica's renewal that reached the server but whose answer was cut off.
  await clock.advance(1);
  assert(await lockOf(api, "a", clock).tryAcquireOrRenew());
  assert(!await a.delete(), "the lock's own view is stale");
  assert(await a.deleteOwn(), "read afresh, it is ours and deleted");
  assertEquals(cluster.get(LEASE, "op"), undefined);
  // A creation whose answer never came: the lock saw nothing, the server has it.
  assert(await lockOf(api, "a", clock).tryAcquireOrRenew());
  assert(await lockOf(api, "a", clock).deleteOwn());
  assertEquals(cluster.get(LEASE, "op"), undefined);
  // Another's Lease is left alone.
  assert(await b.tryAcquireOrRenew());
  assert(await a.deleteOwn(), "nothing of a's remains");
  assertEquals(recordOf(cluster.get(LEASE, "op")!).holderIdentity, "b");
});
