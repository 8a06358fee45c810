/**
 * Discovery against a fake cluster under API Priority and Fairness with one seat and no
 * queue: the documents refused with 429 are asked again after `Retry-After`, not skipped as
 * an aggregated API that is down would be — `/api` and `/apis` of the whole discovery, and
 * the group versions of a discovery of some groups.
 */
import { assert, assertEquals } from "../assert.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { ApiClient } from "../../src/client/api.ts";
import { Vault } from "../../src/client/vault.ts";
import { Discovery } from "../../src/client/discovery.ts";

async function throttledCluster(): Promise<FakeCluster> {
  const cluster = await FakeCluster.start({ maxInflight: 1, maxQueued: 0 });
  // Held with the seat, so that the discovery's requests overlap as across a network.
  cluster.faults.latency(5);
  return cluster;
}

function clientOf(cluster: FakeCluster): ApiClient {
  return new ApiClient(
    new Vault({ relogin: () => Promise.resolve({ fake: cluster.connectionInfo }) }),
  );
}

Deno.test("discovery under APF: /api and /apis refused with 429 are asked again, none skipped", async () => {
  await using cluster = await throttledCluster();
  await using api = clientOf(cluster);
  const discovery = new Discovery(api);
  const resources = await discovery.resources();
  assert(cluster.traffic.flowControl.rejected > 0, "the discovery met the server's limit");
  assertEquals(discovery.skipped, []);
  for (const name of ["deployments", "jobs", "leases", "configmaps"]) {
    assert(resources.some((r) => r.plural === name), `${name} discovered`);
  }
});

Deno.test("discovery of some groups under APF: group-versions refused with 429 are asked again, none skipped", async () => {
  await using cluster = await throttledCluster();
  await using api = clientOf(cluster);
  const discovery = new Discovery(api);
  const groups = ["apps", "batch", "coordination.k8s.io"];
  const resources = await discovery.resourcesIn(groups.map((group) => ({ group })));
  assert(cluster.traffic.flowControl.rejected > 0, "the discovery met the server's limit");
  assertEquals(discovery.skipped, []);
  for (const name of ["deployments", "jobs", "leases"]) {
    assert(resources.some((r) => r.plural === name), `${name} discovered`);
  }
});
