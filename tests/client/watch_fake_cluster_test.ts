/**
 * The client against the FakeCluster over HTTPS: kubeconfig login, discovery, object
 * operations, and a watch that survives dropped streams, a compacted history (410) and
 * a rotated token (401 → re-login).
 */
import { assert, assertEquals } from "../assert.ts";
import { FakeCluster } from "../../src/testing/mod.ts";
import { ApiClient } from "../../src/client/api.ts";
import { Vault } from "../../src/client/vault.ts";
import { Discovery } from "../../src/client/discovery.ts";
import { loginWithKubeconfig } from "../../src/client/kubeconfig.ts";
import { createObject, deleteObject, patchObject } from "../../src/client/objects.ts";
import { type WatchItem, watchObjects } from "../../src/client/watch.ts";

for (const listMode of ["paginate", "stream"] as const) {
  Deno.test(`a watch on the fake cluster survives dropped streams, 410 Gone and a rotated token (${listMode})`, async () => {
    await survives(listMode);
  });
}

const streamed = (query: string) => query.includes("sendInitialEvents=true");

async function survives(listMode: "paginate" | "stream"): Promise<void> {
  await using cluster = await FakeCluster.start({ tls: true });
  const dir = await Deno.makeTempDir({ prefix: "kopf-client-fake-" });
  try {
    const kubeconfig = await cluster.writeKubeconfig(`${dir}/config`);
    let logins = 0;
    const vault = new Vault({
      relogin: async () => {
        logins++;
        return { kubeconfig: await loginWithKubeconfig({ kubeconfig }) };
      },
    });
    await using api = new ApiClient(vault, {
      networking: { errorBackoffs: [0.05, 0.05] },
      watching: { reconnectBackoff: 0.01, listMode },
    });
    const resources = await new Discovery(api).resources();
    const configmaps = resources.find((r) => r.group === "" && r.plural === "configmaps");
    assert(configmaps, "discovery serves configmaps");

    const controller = new AbortController();
    const iterator = watchObjects(api, configmaps, {
      namespace: "default",
      signal: controller.signal,
    });
    const next = async (): Promise<WatchItem> => (await iterator.next()).value as WatchItem;
    const describe = (item: WatchItem) =>
      item.type === "LISTED" || item.type === "LISTING"
        ? `${item.type} ${item.objects.map((o) => o.metadata?.name).join(",")}`
        : `${item.type} ${item.object.metadata?.name}`;
    const watchesOpened = () => cluster.requests.filter((r) => r.verb === "watch").length;
    const listings = () =>
      cluster.requests.filter((r) =>
        listMode === "paginate" ? r.verb === "list" : r.verb === "watch" && streamed(r.query)
      ).length;

    assertEquals(describe(await next()), "LISTED ");
    const ref = { namespace: "default", name: "one" };
    await createObject(api, configmaps, { metadata: { name: "one" }, data: { a: "1" } }, {
      namespace: "default",
    });
    assertEquals(describe(await next()), "ADDED one");
    await patchObject(api, configmaps, ref, { data: { a: "2" } });
    assertEquals(describe(await next()), "MODIFIED one");

    // A dropped stream resumes from the last resourceVersion: no new listing.
    const opened = watchesOpened();
    cluster.faults.dropWatches();
    await createObject(api, configmaps, { metadata: { name: "two" } }, { namespace: "default" });
    assertEquals(describe(await next()), "ADDED two");
    assert(watchesOpened() > opened, "the watch was reopened");
    assertEquals(listings(), 1);

    // A change while the stream is down, then a compacted history: resuming fails with
    // 410, and a fresh listing follows. (The generator reconnects only when asked for
    // the next item, so the order here is deterministic.)
    cluster.faults.dropWatches();
    await deleteObject(api, configmaps, ref);
    cluster.faults.compact();
    const relisted = await next();
    assertEquals(describe(relisted), "LISTED two");
    assertEquals(listings(), 2);

    // A rotated token: the next call gets 401, logs in again (with the new kubeconfig).
    cluster.faults.expireToken();
    await cluster.writeKubeconfig(kubeconfig);
    await createObject(api, configmaps, { metadata: { name: "three" } }, { namespace: "default" });
    assertEquals(logins, 2);
    const added = await next();
    assertEquals(describe(added), "ADDED three");

    controller.abort();
    assertEquals((await iterator.next()).done, true);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  // The other way of listing was never used.
  const other = cluster.requests.filter((r) =>
    listMode === "paginate" ? r.verb === "watch" && streamed(r.query) : r.verb === "list"
  );
  assertEquals(other.length, 0);
}
