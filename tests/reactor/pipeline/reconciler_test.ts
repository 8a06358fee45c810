/**
 * The reconciler on a watch of the test's own: the public client's `watchObjects` against
 * the fake cluster, each listed object and event reconciled in turn, the revisits it asks
 * for honoured — the handlers run, retry and store their progress as in an operator.
 */
import { assert, assertEquals, assertThrows } from "../../assert.ts";
import { kopf } from "../../../mod.ts";
import type { ObjectEvent, Reconciler, Resource } from "../../../mod.ts";
import { ApiClient, Discovery, Vault, watchObjects } from "../../../src/client/mod.ts";
import type { FakeCluster } from "../../../src/testing/mod.ts";
import { DIFFBASE, kex, startCluster } from "../../operator/harness.ts";

function client(cluster: FakeCluster): ApiClient {
  const vault = new Vault();
  vault.populate({ test: cluster.connectionInfo });
  return new ApiClient(vault);
}

/**
 * Reconcile every state a watch delivers until `done()` holds, one at a time, and again
 * when a reconciliation asks for it (with the latest state seen, as the queueing would).
 */
async function reconcileWatch(
  api: ApiClient,
  resource: Resource,
  reconcile: Reconciler,
  done: () => boolean,
): Promise<void> {
  const stop = new AbortController();
  const latest = new Map<string, ObjectEvent>();
  const due: { at: number; key: string }[] = [];
  // One reconciliation at a time (the reconciler's rule for one object; simplest for all).
  let turn = Promise.resolve();
  const handle = (event: ObjectEvent) =>
    turn = turn.then(async () => {
      const key = event.object.metadata?.uid ?? "";
      latest.set(key, event);
      const { delay } = await reconcile(resource, event, { signal: stop.signal });
      if (delay !== undefined) due.push({ at: Date.now() + delay * 1000, key });
    });
  const items = watchObjects(api, resource, { namespace: "default", signal: stop.signal });
  const watching = (async () => {
    for await (const item of items) {
      const events = item.type === "LISTED"
        ? item.objects.map((object): ObjectEvent => ({ type: null, object }))
        : [{ type: item.type, object: item.object }];
      for (const event of events) await handle(event);
    }
  })().catch((error) => {
    if (!stop.signal.aborted) throw error;
  });
  const deadline = Date.now() + 10_000;
  while (!done()) {
    assert(Date.now() < deadline, "the reconciliations did not get there in 10s");
    await new Promise((resolve) => setTimeout(resolve, 20));
    const now = Date.now();
    const ripe = due.filter((d) => d.at <= now);
    due.splice(0, due.length, ...due.filter((d) => d.at > now));
    for (const revisit of ripe) await handle(latest.get(revisit.key)!);
  }
  stop.abort();
  await watching;
}

Deno.test("a reconciler on a watch of one's own runs, retries and stores the handlers as an operator does", async () => {
  await using cluster = await startCluster();
  await using api = client(cluster);
  const registry = new kopf.OperatorRegistry();
  let attempts = 0;
  kopf.on.create("kopfexamples", { registry }, function greet({ name, retry }) {
    attempts++;
    if (retry === 0) throw new kopf.TemporaryError("not yet", { delay: 0.1 });
    return { greeted: name };
  });
  kopf.on.update("kopfexamples", { registry }, function grow({ old, new: now }) {
    return { from: (old as { spec?: { value?: unknown } } | null)?.spec?.value ?? null, to: now };
  });
  const [resource] = (await new Discovery(api).resources())
    .filter((r) => r.plural === "kopfexamples" && r.preferred);
  const reconcile = kopf.reconciler({ api, registry });

  cluster.create(kex("kex1", { value: 1 }));
  await reconcileWatch(api, resource, reconcile, () => {
    const status = cluster.get("kopfexamples", "kex1")?.status as Record<string, unknown>;
    return status?.greet !== undefined;
  });
  const created = cluster.get("kopfexamples", "kex1")!;
  assertEquals((created.status as Record<string, unknown>).greet, { greeted: "kex1" });
  assertEquals(attempts, 2, "retried once, after the delay the reconciliation asked for");
  assert(created.metadata?.annotations?.[DIFFBASE] !== undefined, "the diff-base is stored");

  cluster.patch("kopfexamples", "kex1", { spec: { value: 2 } });
  await reconcileWatch(api, resource, reconcile, () => {
    const status = cluster.get("kopfexamples", "kex1")?.status as Record<string, unknown>;
    return status?.grow !== undefined;
  });
  const updated = cluster.get("kopfexamples", "kex1")!.status as Record<string, unknown>;
  assertEquals((updated.grow as { from: unknown }).from, 1);
  assertEquals(attempts, 2, "the creation is not handled again");
});

Deno.test("a reconciler refuses registries with daemons, timers or indices", async () => {
  await using cluster = await startCluster();
  await using api = client(cluster);
  const registry = new kopf.OperatorRegistry();
  kopf.daemon("kopfexamples", { registry }, async function watch({ stopped }) {
    await stopped.wait();
  });
  assertThrows(
    () => kopf.reconciler({ api, registry }),
    kopf.ConfigurationError,
    'The registry has daemon "watch"',
  );
});

Deno.test("an object that left a selected watch: its finalizer goes if it exists; a deletion if not", async () => {
  await using cluster = await startCluster();
  await using api = client(cluster);
  const registry = new kopf.OperatorRegistry();
  const ran: string[] = [];
  kopf.on.delete("kopfexamples", { registry }, function cleanup({ name }) {
    ran.push(`delete ${name}`);
  });
  kopf.on.update("kopfexamples", { registry }, function changed({ name }) {
    ran.push(`update ${name}`);
  });
  const [resource] = (await new Discovery(api).resources())
    .filter((r) => r.plural === "kopfexamples" && r.preferred);
  const reconcile = kopf.reconciler({ api, registry });
  const finalizer = "kopf.zalando.org/KopfFinalizerMarker";
  const kept = cluster.create(kex("kept", { value: 1 }, { metadata: { finalizers: [finalizer] } }));
  const selects = () => false;
  await reconcile(resource, { type: "LEFT", object: { ...kept, spec: { value: 2 } }, selects });
  const after = cluster.get("kopfexamples", "kept")!;
  assertEquals(after.metadata?.finalizers, undefined, "the finalizer is removed");
  assertEquals(after.metadata?.annotations?.[DIFFBASE], undefined, "nothing else is written");
  // Gone meanwhile: it is a deletion, known by reading (nothing to write, nothing fails).
  const gone = cluster.create(kex("gone"));
  cluster.delete("kopfexamples", "gone");
  const result = await reconcile(resource, { type: "LEFT", object: gone, selects });
  assertEquals(result, {});
  assertEquals(ran, [], "no handler runs for an object out of sight");
  // Deleted and made anew under its name: the namesake is not the object that left.
  const old = cluster.create(kex("renamed", {}, { metadata: { finalizers: [finalizer] } }));
  cluster.patch("kopfexamples", "renamed", { metadata: { finalizers: null } });
  cluster.delete("kopfexamples", "renamed");
  const namesake = cluster.create(kex("renamed", {}, { metadata: { finalizers: [finalizer] } }));
  assert(namesake.metadata?.uid !== old.metadata?.uid);
  await reconcile(resource, { type: "LEFT", object: old, selects });
  const untouched = cluster.get("kopfexamples", "renamed")!;
  assertEquals(untouched.metadata?.finalizers, [finalizer], "the namesake keeps our finalizer");
  assertEquals(untouched.metadata?.resourceVersion, namesake.metadata?.resourceVersion);
  // Left, and back in the selection when read: its watch tells of it again; nothing here.
  const back = cluster.create(kex("back", {}, { metadata: { finalizers: [finalizer] } }));
  await reconcile(resource, { type: "LEFT", object: back, selects: () => true });
  const kept2 = cluster.get("kopfexamples", "back")!;
  assertEquals(kept2.metadata?.finalizers, [finalizer], "an object back in sight keeps it");
  assertEquals(kept2.metadata?.resourceVersion, back.metadata?.resourceVersion);
  assertEquals(ran, []);
});
