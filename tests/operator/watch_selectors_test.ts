/**
 * Server-side selection: the operator's list and watch requests carry the selectors its
 * handlers' filters imply, objects outside them are never touched, and an object that
 * leaves them is let go — its finalizer removed, its daemons stopped — not taken for deleted.
 */
import { assert, assertEquals } from "../assert.ts";
import { on } from "../../src/intents/registration.ts";
import { daemon } from "../../src/intents/registration.ts";
import type { FakeCluster } from "../../src/testing/fake_cluster/mod.ts";
import {
  Calls,
  clusterRegistry,
  FINALIZER,
  handled,
  kex,
  LOGS,
  startCluster,
  testSettings,
  whileRunning,
} from "./harness.ts";

const WATCHED = { metadata: { labels: { app: "watched" } } };

/** The label selectors of the list and watch requests of KopfExamples so far (`null`: none). */
function selectorsOf(cluster: FakeCluster): (string | null)[] {
  return cluster.requests
    .filter((r) => r.path.endsWith("/kopfexamples") && (r.verb === "list" || r.verb === "watch"))
    .map((r) => new URLSearchParams(r.query).get("labelSelector"));
}

Deno.test("handlers that all filter by a label: every list and watch carries it", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry, labels: { app: "watched" } }, function created({ name }) {
    calls.add(`created ${name}`);
  });
  on.delete("kopfexamples", { registry, labels: { app: "watched" } }, function deleted({ name }) {
    calls.add(`deleted ${name}`);
  });
  cluster.create(kex("before", {}, WATCHED));
  cluster.create(kex("plain-before"));
  await whileRunning(registry, async () => {
    cluster.create(kex("after", {}, WATCHED));
    cluster.create(kex("plain-after"));
    await calls.until(2);
    await cluster.waitFor("kopfexamples", "after", handled);
  });
  assertEquals(calls.list.sort(), ["created after", "created before"]);
  const selectors = selectorsOf(cluster);
  assert(selectors.length >= 1, "no list or watch request");
  for (const selector of selectors) assertEquals(selector, "app=watched");
  // The objects outside the selection were never seen: no annotation, no finalizer.
  for (const name of ["plain-before", "plain-after"]) {
    const body = cluster.get("kopfexamples", name);
    assertEquals(body?.metadata?.annotations, undefined, name);
    assertEquals(body?.metadata?.finalizers, undefined, name);
  }
  assert(
    LOGS.some((line) =>
      line.includes("Watching kopfexamples.v1.kopf.dev in default with labelSelector=app=watched")
    ),
    "the debug log says which selector the watch uses",
  );
});

Deno.test("a callback filter cannot be sent: the requests carry no selector, and the log says why", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", {
    registry,
    labels: { app: (value: unknown) => value === "watched" },
  }, function byCallback({ name }) {
    calls.add(`created ${name}`);
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("one", {}, WATCHED));
    cluster.create(kex("two"));
    cluster.create(kex("three", {}, WATCHED));
    await calls.until(2);
  });
  assertEquals(calls.list.sort(), ["created one", "created three"]);
  for (const selector of selectorsOf(cluster)) assertEquals(selector, null);
  assert(
    LOGS.some((line) =>
      line.includes('without selectors (the handler "byCallback" (kopf.on.create) has no filter')
    ),
  );
});

Deno.test("an object that leaves the selection gets its finalizer back and its daemon stopped", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry, labels: { app: "watched" } }, function created() {});
  on.delete("kopfexamples", { registry, labels: { app: "watched" } }, function deleted({ name }) {
    calls.add(`deleted ${name}`);
  });
  daemon("kopfexamples", { registry, labels: { app: "watched" } }, async function watcher({
    name,
    stopped,
  }) {
    calls.add(`daemon ${name}`);
    await stopped.wait();
    calls.add(`daemon ${name} stopped: ${stopped.reason}`);
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("leaving", {}, WATCHED));
    await calls.until(1, (c) => c === "daemon leaving");
    const kept = await cluster.waitFor("kopfexamples", "leaving", (b) => handled(b));
    assert(kept?.metadata?.finalizers?.includes(FINALIZER), "the finalizer is on while watched");
    const since = Date.now();
    cluster.patch("kopfexamples", "leaving", { metadata: { labels: { app: null } } });
    await cluster.waitFor(
      "kopfexamples",
      "leaving",
      (b) => !(b?.metadata?.finalizers ?? []).includes(FINALIZER),
    );
    assert(Date.now() - since < 5000, `released after ${Date.now() - since} ms`);
    await calls.until(1, (c) => c.startsWith("daemon leaving stopped"));
    // Out of sight now: deleting it runs nothing, and nothing holds it.
    cluster.delete("kopfexamples", "leaving");
    await cluster.waitFor("kopfexamples", "leaving", (b) => b === undefined);
  });
  assertEquals(calls.list, ["daemon leaving", "daemon leaving stopped: filters-mismatch"]);
});

Deno.test("a deletion of a selected object is a deletion, not a departure", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry, labels: { app: "watched" } }, function created() {});
  on.delete("kopfexamples", { registry, labels: { app: "watched" } }, function deleted({ name }) {
    calls.add(`deleted ${name}`);
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("going", {}, WATCHED));
    await cluster.waitFor("kopfexamples", "going", (b) => handled(b));
    cluster.delete("kopfexamples", "going");
    await calls.until(1);
    await cluster.waitFor("kopfexamples", "going", (b) => b === undefined);
  });
  assertEquals(calls.list, ["deleted going"]);
});

Deno.test("settings.watching.selectors narrow the watches; selectByFilters off sends only them", async () => {
  await using cluster = await startCluster();
  const registry = clusterRegistry(cluster);
  const calls = new Calls<string>();
  on.create("kopfexamples", { registry, labels: { app: "watched" } }, function created({ name }) {
    calls.add(`created ${name}`);
  });
  on.event("kopfexamples", { registry }, function seen({ name, type }) {
    if (type !== null) calls.add(`seen ${name}`);
  });
  const settings = testSettings({
    watching: {
      selectByFilters: false,
      selectors: [{ resource: "kopfexamples", labelSelector: "team in (a,b)" }, {
        resource: "pods",
        labelSelector: "never=used",
      }],
    },
  });
  await whileRunning(registry, async () => {
    cluster.create(kex("team-a", {}, { metadata: { labels: { app: "watched", team: "a" } } }));
    cluster.create(kex("team-c", {}, { metadata: { labels: { app: "watched", team: "c" } } }));
    cluster.create(kex("unlabelled-a", {}, { metadata: { labels: { team: "a" } } }));
    await calls.until(1, (c) => c === "created team-a");
    await calls.until(1, (c) => c === "seen unlabelled-a");
  }, { settings });
  assert(!calls.list.some((c) => c.includes("team-c")), calls.list.join(", "));
  assertEquals(cluster.get("kopfexamples", "team-c")?.metadata?.annotations, undefined);
  for (const selector of selectorsOf(cluster)) assertEquals(selector, "team in (a,b)");
});
