/**
 * The current version of a collection, and a watch that begins from a version instead of a
 * listing: only the later changes come; once the version is gone (410), it lists as usual.
 */
import { assertEquals } from "../assert.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { ApiClient } from "../../src/client/api.ts";
import { Vault } from "../../src/client/vault.ts";
import { Discovery } from "../../src/client/discovery.ts";
import { currentVersion } from "../../src/client/current_versions.ts";
import { type WatchItem, watchObjects } from "../../src/client/watch.ts";

function configmap(name: string, labels: Record<string, string> = {}) {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default", labels } };
}

function describe(item: WatchItem): string {
  return item.type === "LISTED" || item.type === "LISTING"
    ? `${item.type} ${item.objects.map((o) => o.metadata?.name).join(",")}`
    : `${item.type} ${item.object.metadata?.name}`;
}

Deno.test("a watch from the current version sees only what changes afterwards; 410 lists", async () => {
  await using cluster = await FakeCluster.start();
  const vault = new Vault();
  vault.populate({ fake: cluster.connectionInfo });
  await using api = new ApiClient(vault, { watching: { reconnectBackoff: 0.01 } });
  const configmaps = (await new Discovery(api).resources())
    .find((r) => r.group === "" && r.plural === "configmaps")!;
  cluster.create(configmap("before", { app: "x" }));
  cluster.create(configmap("other"));
  const version = await currentVersion(api, configmaps, {
    namespace: "default",
    labelSelector: "app=x",
  });
  const listing = cluster.requests.at(-1)!;
  assertEquals(new URLSearchParams(listing.query).get("limit"), "1");
  assertEquals(listing.items, 1, "one object at most");
  cluster.create(configmap("after", { app: "x" }));

  const controller = new AbortController();
  const items = watchObjects(api, configmaps, {
    namespace: "default",
    labelSelector: "app=x",
    resourceVersion: version,
    signal: controller.signal,
  });
  const first = await items.next();
  assertEquals(describe(first.value as WatchItem), "ADDED after", "no listing: the later change");
  // The watch's last version compacted away (a change it does not see moves the history on):
  // it reconnects, gets 410, and lists.
  cluster.create(configmap("unseen"));
  cluster.faults.compact();
  cluster.faults.dropWatches();
  const seen: string[] = [];
  for await (const item of items) {
    seen.push(describe(item));
    if (item.type === "LISTED") break;
  }
  assertEquals(seen.at(-1), "LISTED after,before");
  controller.abort();
  await items.return();
});
