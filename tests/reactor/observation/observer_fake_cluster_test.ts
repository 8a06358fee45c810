/**
 * Observation and queueing over real HTTP against the fake cluster: namespaces and CRDs
 * appearing and disappearing, deletions missed during a broken watch, and discovery
 * that runs only when CRDs change.
 */
import { assert, assertEquals, assertSettlesWithin } from "../../assert.ts";
import type { RawBody } from "../../../src/structs/bodies.ts";
import type { Resource } from "../../../src/structs/resources.ts";
import { ApiClient } from "../../../src/client/api.ts";
import { Vault } from "../../../src/client/vault.ts";
import { FakeCluster } from "../../../src/testing/fake_cluster/mod.ts";
import { makeScope, type NamespacePattern } from "../../../src/structs/namespace_scopes.ts";
import {
  type ObservationClient,
  observationClient,
} from "../../../src/reactor/observation/observation_client.ts";
import { Observer } from "../../../src/reactor/observation/observer.ts";
import { watchSelection } from "../../../src/intents/watch_selections.ts";
import type { ObservedEvent } from "../../../src/structs/bodies.ts";
import { Multiplexer } from "../../../src/reactor/queueing/multiplexer.ts";
import { silentLogger } from "../../../src/reactor/default_logger.ts";
import { exampleCrd } from "../../testing/fake_cluster/helpers.ts";

const CRD = exampleCrd();

function kex(name: string, namespace: string): RawBody {
  return {
    apiVersion: "kopf.dev/v1",
    kind: "KopfExample",
    metadata: { name, namespace },
    spec: { field: name },
  };
}

/** A log of what happened, with a way to wait for an entry (no polling). */
class Log {
  readonly entries: string[] = [];
  #waiters: { entry: string; resolve: () => void }[] = [];

  add(entry: string): void {
    this.entries.push(entry);
    for (const waiter of this.#waiters.filter((w) => w.entry === entry)) waiter.resolve();
  }

  has(entry: string): boolean {
    return this.entries.includes(entry);
  }

  until(entry: string, seconds = 10): Promise<void> {
    if (this.has(entry)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(new Error(`not seen in ${seconds}s: ${entry}; seen: ${this.entries.join(", ")}`));
      }, seconds * 1000);
      const waiter = {
        entry,
        resolve: () => {
          this.#waiters = this.#waiters.filter((w) => w !== waiter);
          clearTimeout(timer);
          resolve();
        },
      };
      this.#waiters.push(waiter);
    });
  }
}

/** The real client, reporting the watches that end and the listings that arrive. */
function tracked(client: ObservationClient, log: Log): ObservationClient {
  return {
    discover: (options) => client.discover(options),
    wholeSource: (resource) => client.wholeSource(resource),
    currentVersion: (resource, namespace, options) =>
      client.currentVersion(resource, namespace, options),
    watch: async function* (resource, namespace, signal, options) {
      try {
        yield* client.watch(resource, namespace, signal, options);
      } finally {
        log.add(`closed ${resource.plural}@${namespace ?? "*"}`);
      }
    },
  };
}

function describe(event: ObservedEvent): string {
  const meta = event.object.metadata ?? {};
  return `${event.type ?? "LISTED"} ${meta.namespace}/${meta.name}`;
}

async function operate(
  cluster: FakeCluster,
  namespaces: NamespacePattern[] | "clusterwide",
  body: (observer: Observer, seen: Log) => Promise<void>,
  tuning: {
    /** What the feed returns after pushing an event to the queue. */
    hold?: () => Promise<void> | undefined;
    inactivityTimeout?: number;
  } = {},
): Promise<void> {
  const vault = new Vault({ relogin: () => Promise.resolve({ fake: cluster.connectionInfo }) });
  const api = new ApiClient(vault, {
    networking: { errorBackoffs: [0.05, 0.1] },
    watching: { reconnectBackoff: 0.05, inactivityTimeout: tuning.inactivityTimeout },
  });
  const seen = new Log();
  const mux = new Multiplexer({
    processor: { reconcile: (event) => Promise.resolve(seen.add(describe(event))) },
    batching: {
      batchWindow: 0,
      idleTimeout: 1,
      workerLimit: null,
      exitTimeout: 1,
      errorDelays: [],
    },
    logger: silentLogger,
  });
  const observer = new Observer({
    client: tracked(observationClient(api), seen),
    scope: namespaces === "clusterwide"
      ? makeScope({ clusterwide: true })
      : makeScope({ namespaces }),
    select: (all: readonly Resource[]) => all.filter((r) => r.plural === "kopfexamples"),
    feed: (resource, event) => {
      mux.push(resource, event);
      return tuning.hold?.();
    },
    onListed: ({ resource, namespace }) =>
      seen.add(`listed ${resource.plural}@${namespace ?? "*"}`),
    backoff: { initial: 0.05, cap: 0.05, jitter: 0 },
    logger: silentLogger,
  });
  const controller = new AbortController();
  const running = observer.run(controller.signal);
  try {
    await assertSettlesWithin(Promise.race([observer.ready, running]), 10, "the observer's start");
    await body(observer, seen);
  } finally {
    controller.abort();
    await assertSettlesWithin(running, 10, "the observer's stop");
    await mux.shutdown(1);
    await api.close();
  }
}

function createNamespace(cluster: FakeCluster, name: string): void {
  cluster.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
}

Deno.test("over HTTP: served namespaces and a CRD created after the start are picked up", async () => {
  await using cluster = await FakeCluster.start();
  createNamespace(cluster, "team-a");
  createNamespace(cluster, "other");
  await operate(cluster, ["team-*"], async (observer, seen) => {
    assertEquals(observer.resources, [], "the CRD does not exist yet");
    assertEquals(observer.namespaces, ["team-a"]);

    cluster.create(CRD);
    cluster.create(kex("one", "team-a"));
    cluster.create(kex("ignored", "other"));
    await seen.until("LISTED team-a/one");

    createNamespace(cluster, "team-b");
    // The namespace's watch starts after the namespace event arrives; an object created
    // before that is picked up by the watch's initial listing.
    cluster.create(kex("two", "team-b"));
    await seen.until("LISTED team-b/two");
    cluster.create(kex("three", "team-b"));
    await seen.until("ADDED team-b/three");
    assert(!seen.entries.some((e) => e.includes("other/")), "other namespaces are not served");
  });
});

Deno.test("over HTTP: discovery runs at the start and on CRD changes only, not per event", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(CRD);
  const discoveries = () => cluster.requests.filter((r) => r.path === "/apis").length;
  await operate(cluster, "clusterwide", async (_observer, seen) => {
    await seen.until("listed kopfexamples@*");
    const atStart = discoveries();
    assertEquals(atStart, 1);
    for (let i = 0; i < 10; i++) cluster.create(kex(`o${i}`, "default"));
    await seen.until("ADDED default/o9");
    cluster.patch("kopfexamples.kopf.dev", "o3", { spec: { field: "x" } }, {
      namespace: "default",
    });
    await seen.until("MODIFIED default/o3");
    assertEquals(discoveries(), atStart, "object events never re-run discovery");
  });
});

Deno.test("over HTTP: a deletion missed while the watch was broken is still delivered", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(CRD);
  cluster.create(kex("doomed", "default"));
  cluster.create(kex("kept", "default"));
  await operate(cluster, ["default"], async (_observer, seen) => {
    await seen.until("LISTED default/doomed");
    await seen.until("LISTED default/kept");
    // Break the watch, delete meanwhile, and forget the history: the watch must list again.
    cluster.faults.dropWatches();
    cluster.delete("kopfexamples.kopf.dev", "doomed", { namespace: "default" });
    cluster.faults.compact();
    await seen.until("DELETED default/doomed");
    assertEquals(seen.entries.filter((e) => e.endsWith("default/kept")).length, 1, "not re-fed");
  });
});

Deno.test("over HTTP: a deleted namespace stops being watched", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(CRD);
  createNamespace(cluster, "team-a");
  await operate(cluster, ["team-*"], async (observer, seen) => {
    await seen.until("listed kopfexamples@team-a");
    cluster.create(kex("x", "team-a"));
    await seen.until("ADDED team-a/x");
    cluster.delete("kopfexamples.kopf.dev", "x", { namespace: "team-a" });
    await seen.until("DELETED team-a/x");
    cluster.delete("namespaces", "team-a");
    await cluster.waitFor("namespaces", "team-a", (ns) => ns === undefined);
    await seen.until("closed kopfexamples@team-a");
    assertEquals(observer.watchers, []);
    assertEquals(observer.namespaces, []);
  });
});

Deno.test("over HTTP: without permission for namespaces and CRDs, literal names are served", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(CRD);
  createNamespace(cluster, "team-a");
  cluster.faults.failRequests({
    share: 1,
    status: 403,
    verbs: ["list", "watch"],
    resources: ["namespaces", "customresourcedefinitions"],
  });
  await operate(cluster, ["default", "team-*"], async (observer, seen) => {
    assertEquals(observer.namespaces, ["default"]);
    assertEquals(observer.watchers.map((w) => `${w.resource.plural}@${w.namespace}`), [
      "kopfexamples@default",
    ]);
    await seen.until("listed kopfexamples@default");
    cluster.create(kex("x", "default"));
    cluster.create(kex("y", "team-a"));
    await seen.until("ADDED default/x");
    assert(!seen.entries.some((e) => e.includes("team-a/")), "patterns cannot be resolved");
  });
});

Deno.test("over HTTP: a feed that pushes back leaves the events in the stream, not reconnecting", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(CRD);
  let gate: Promise<void> | undefined;
  let open!: () => void;
  const watches = () =>
    cluster.requests.filter((r) =>
      r.verb === "watch" && r.path.endsWith("/namespaces/default/kopfexamples")
    ).length;
  await operate(cluster, ["default"], async (_observer, seen) => {
    await seen.until("listed kopfexamples@default");
    gate = new Promise<void>((resolve) => (open = resolve));
    cluster.create(kex("a", "default"));
    cluster.create(kex("b", "default"));
    cluster.create(kex("c", "default"));
    await seen.until("ADDED default/a");
    const opened = watches();
    // Longer than the inactivity timeout: the wait for the feed is not the server's silence.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert(!seen.has("ADDED default/b"), "nothing more is taken while the feed pushes back");
    assertEquals(watches(), opened, "no reconnection while the feed pushes back");
    gate = undefined;
    open();
    await seen.until("ADDED default/c");
    assertEquals(watches(), opened);
  }, { hold: () => gate, inactivityTimeout: 0.2 });
});

Deno.test("over HTTP: a metadata-only watch's events say so, with where the whole object is read", async () => {
  await using cluster = await FakeCluster.start();
  cluster.create(CRD);
  cluster.create(kex("slim", "default"));
  const vault = new Vault({ relogin: () => Promise.resolve({ fake: cluster.connectionInfo }) });
  await using api = new ApiClient(vault);
  const events: ObservedEvent[] = [];
  let seen: () => void = () => {};
  const first = new Promise<void>((resolve) => seen = resolve);
  const observer = new Observer({
    client: observationClient(api),
    scope: makeScope({ namespaces: ["default"] }),
    select: (all: readonly Resource[]) => all.filter((r) => r.plural === "kopfexamples"),
    selection: () => watchSelection([], [], true, "metadata only"),
    feed: (_resource, event) => {
      events.push(event);
      seen();
    },
    logger: silentLogger,
  });
  const controller = new AbortController();
  const running = observer.run(controller.signal);
  try {
    await assertSettlesWithin(first, 10, "the first event");
    const [event] = events;
    assertEquals([event.object.apiVersion, event.object.kind], ["kopf.dev/v1", "KopfExample"]);
    assertEquals(event.object.spec, undefined, "the metadata only");
    assertEquals(Object.getOwnPropertySymbols(event.object), [], "nothing hidden on the body");
    assert(event.source !== undefined, "the event says where the whole object is");
    const whole = await event.source.read(event.object);
    assertEquals((whole.spec as { field?: string }).field, "slim");
  } finally {
    controller.abort();
    await running;
  }
});
