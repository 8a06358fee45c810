/**
 * Discovery against a fake cluster under API Priority and Fairness with one seat and no
 * queue: the group-versions refused with 429 are asked again after `Retry-After`, not skipped
 * as an aggregated API that is down would be.
 */
import { assert, assertEquals } from "../assert.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { ApiClient } from "../../src/client/api.ts";
import { Vault } from "../../src/client/vault.ts";
import { Discovery } from "../../src/client/discovery.ts";

Deno.test("discovery under APF: group-versions refused with 429 are asked again, none skipped", async () => {
  await using cluster = await FakeCluster.start({ maxInflight: 1, maxQueued: 0 });
  // Held with the seat, so that the discovery's requests overlap as across a network.
  cluster.faults.latency(5);
  await using api = new ApiClient(
    new Vault({ relogin: () => Promise.resolve({ fake: cluster.connectionInfo }) }),
  );
  const discovery = new Discovery(api);
  const resources = await discovery.resources();
  assert(cluster.traffic.flowControl.rejected > 0, "the discovery met the server's limit");
  assertEquals(discovery.skipped, []);
  for (const name of ["deployments", "jobs", "leases", "configmaps"]) {
    assert(resources.some((r) => r.plural === name), `${name} discovered`);
  }
});
