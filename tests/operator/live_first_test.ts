/**
 * Live events before the backlog: while a big listing waits for the processing (its
 * back-pressure), an object created meanwhile is handled first, not after the listing.
 * The listing's objects are held in their handler until the end, so the listing completes
 * only as their processings give their places up (every second): seconds later.
 */
import { assert, assertEquals } from "../assert.ts";
import { on } from "../../src/intents/registration.ts";
import { operator } from "../../src/reactor/running.ts";
import { Calls, clusterRegistry, kex, startCluster, testSettings } from "./harness.ts";

Deno.test("an object created while a held listing waits is handled before the listing's objects", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  on.create("kopfexamples", { registry }, async function created({ name }) {
    if (name?.startsWith("old-")) await gate; // the listing's objects wait: the backlog fills
    calls.add(name!);
  });
  for (let i = 0; i < 300; i++) cluster.create(kex(`old-${i}`));
  // Not ready until the listing is complete: the operator runs without waiting for that.
  const stop = new AbortController();
  const running = operator({
    registry,
    // Pushed without a batch window and listed in parts, the listing meets the back-pressure.
    settings: testSettings({ batching: { batchWindow: 0 }, watching: { listPageSize: 50 } }),
    namespaces: ["default"],
    standalone: true,
    signal: stop.signal,
    onReady: () => calls.add("ready: the listing is complete"),
  });
  try {
    // The listing is held once the backlog is full; the objects made now come live.
    await cluster.waitForRequest((r) => r.path.endsWith("/kopfexamples") && r.verb === "watch");
    cluster.create(kex("new-1"));
    cluster.create(kex("new-2"));
    await calls.until(2, (name) => name.startsWith("new-"));
    assertEquals(calls.list.slice(0, 2).sort(), ["new-1", "new-2"], "before the listing's end");
    release();
    await calls.until(303, () => true, 30);
  } finally {
    release();
    stop.abort();
    await running;
  }
  const old = calls.list.filter((name) => name.startsWith("old-"));
  assertEquals([old.length, new Set(old).size], [300, 300], "each listed object once");
  const watches = cluster.requests.filter((r) =>
    r.path.endsWith("/kopfexamples") && r.verb === "watch"
  );
  assert(
    watches.some((r) => new URLSearchParams(r.query).get("resourceVersion") !== null),
    "a watch began from a version, beside the listing",
  );
});
