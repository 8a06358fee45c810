import {
  assert,
  assertEquals,
  assertRejects,
  assertSettlesWithin,
  assertStringIncludes,
} from "../../assert.ts";
import { Resource } from "../../../src/structs/resources.ts";
import type { RawBody } from "../../../src/structs/bodies.ts";
import { APIForbiddenError, APINotFoundError } from "../../../src/client/api_errors.ts";
import { makeScope, type NamespacePattern } from "../../../src/structs/namespace_scopes.ts";
import { Observer } from "../../../src/reactor/observation/observer.ts";
import { WatchDefectsError } from "../../../src/structs/watch_restarts.ts";
import type { WatchedDimension } from "../../../src/reactor/observation/observation_client.ts";
import type { ObservedEvent } from "../../../src/structs/bodies.ts";
import { deferred, ManualClock, settle } from "../../clocks.ts";
import { ScriptedClient } from "../scripted_client.ts";
import type { WatchSelection } from "../../../src/intents/watch_selections.ts";
import { parseLabelSelector } from "../../../src/structs/label_selectors.ts";
import { RecordingLogger } from "../recording_logger.ts";

const VERBS = ["list", "watch", "patch", "get"];
const KEX = new Resource({
  group: "kopf.dev",
  version: "v1",
  plural: "kopfexamples",
  kind: "KopfExample",
  verbs: VERBS,
});
const PODS = new Resource({ group: "", version: "v1", plural: "pods", kind: "Pod", verbs: VERBS });
const NODES = new Resource({
  group: "",
  version: "v1",
  plural: "nodes",
  kind: "Node",
  namespaced: false,
  verbs: VERBS,
});
const LATER = new Resource({
  group: "later.dev",
  version: "v1",
  plural: "laters",
  kind: "Later",
  verbs: VERBS,
});

function obj(uid: string, rv = "1", namespace = "a"): RawBody {
  return { metadata: { uid, name: `n-${uid}`, namespace, resourceVersion: rv } };
}

function ns(name: string, extra: Record<string, string> = {}): RawBody {
  return { metadata: { uid: `ns-${name}`, name, ...extra } };
}

function crd(name: string, rv = "1", established = "True"): RawBody {
  return {
    metadata: { uid: `crd-${name}`, name, resourceVersion: rv },
    spec: { group: name },
    status: { conditions: [{ type: "Established", status: established }] },
  };
}

function forbidden(path: string): APIForbiddenError {
  return new APIForbiddenError(403, {}, { method: "GET", path });
}

interface Setup {
  resources?: Resource[];
  select?: (resources: readonly Resource[]) => readonly Resource[];
  clusterwide?: boolean;
  namespaces?: NamespacePattern[];
  scanningDisabled?: boolean;
  /** Errors thrown when the named streams are opened first. */
  openErrors?: Record<string, unknown>;
  keepsLastStates?: (resource: Resource) => boolean;
  /** What the feed returns for every event, after recording it. */
  feedResult?: (event: ObservedEvent) => void | Promise<void>;
  /** `settings.watching`, or what of it observation reads. */
  watching?: { listPatience: number };
  /** The watches' selectors. */
  selection?: (resource: Resource) => WatchSelection | undefined;
  /** The initial discovery fails with this (it runs as the observer starts). */
  discoveryError?: unknown;
  /** Whether the operator's writes are told to the observer (it then keeps deletions). */
  toldOfWrites?: boolean;
  /** Whether the queueing takes a state from its text (asked as `uid@version`). */
  takes?: (version: string) => boolean;
}

function start(setup: Setup = {}) {
  const client = new ScriptedClient(setup.resources ?? [KEX, PODS]);
  client.discoveryError = setup.discoveryError;
  for (const [key, error] of Object.entries(setup.openErrors ?? {})) {
    client.openErrors.set(key, error);
  }
  const clock = new ManualClock();
  const logs = new RecordingLogger();
  const fed: string[] = [];
  /** What the queueing was asked to take from its text, and the text. */
  const taken: string[] = [];
  const feeds: { resource: Resource; event: ObservedEvent }[] = [];
  const listed: WatchedDimension[] = [];
  /** What the selection was asked, call by call (plurals). */
  const selects: string[][] = [];
  const observer = new Observer({
    client,
    scope: makeScope({ clusterwide: setup.clusterwide, namespaces: setup.namespaces }),
    select: (all) => {
      selects.push(all.map((resource) => resource.plural));
      return setup.select?.(all) ?? all;
    },
    feed: (resource, event) => {
      const meta = event.object.metadata ?? {};
      const type = event.type ?? "LISTED";
      fed.push(`${resource.plural}:${type}:${meta.uid}@${meta.resourceVersion}`);
      feeds.push({ resource, event });
      return setup.feedResult?.(event);
    },
    keepsLastStates: setup.keepsLastStates,
    selection: setup.selection,
    onListed: (dimension) => listed.push(dimension),
    scanning: { disabled: setup.scanningDisabled ?? false },
    toldOfWrites: setup.toldOfWrites,
    takes: setup.takes === undefined ? undefined : (entry, object, text) => {
      taken.push(`${entry.key}@${object.resourceVersion} ${text}`);
      return setup.takes!(object.resourceVersion);
    },
    watching: setup.watching,
    backoff: { initial: 1, factor: 5, cap: 5, jitter: 0 },
    clock,
    logger: logs,
  });
  const controller = new AbortController();
  const running = observer.run(controller.signal);
  running.catch(() => {}); // tests that expect a failure await it themselves
  const stop = async () => {
    controller.abort();
    await running;
    assertEquals(client.openIds(), [], "all watches are closed after the stop");
  };
  return {
    client,
    clock,
    logs,
    fed,
    taken,
    feeds,
    listed,
    selects,
    observer,
    controller,
    running,
    stop,
  };
}

/** Answer the CRD listing, so that the initial discovery runs. */
async function listCrds(client: ScriptedClient, crds: RawBody[] = []): Promise<void> {
  (await client.stream("customresourcedefinitions@*")).listed(crds);
  await settle();
}

Deno.test("cluster-wide: one cluster-wide watch per served resource, no namespace watch", async () => {
  const t = start({ clusterwide: true });
  await listCrds(t.client);
  await t.observer.ready;
  await settle(); // the watches open once the current versions are asked for
  assertEquals(t.client.openIds(), ["customresourcedefinitions@*", "kopfexamples@*", "pods@*"]);
  assertEquals(t.observer.namespaces, undefined);
  assertEquals(t.client.discoveries, [{ fresh: false }]);
  await t.stop();
});

Deno.test("objects are fed: listed ones with a null type, then the live events", async () => {
  const t = start({ clusterwide: true, resources: [KEX] });
  await listCrds(t.client);
  const stream = await t.client.stream("kopfexamples@*");
  stream.listed([obj("a"), obj("b")]);
  stream.event("MODIFIED", obj("a", "2"));
  stream.event("DELETED", obj("b", "3"));
  stream.event("ADDED", obj("c", "4"));
  await settle();
  assertEquals(t.fed, [
    "kopfexamples:LISTED:a@1",
    "kopfexamples:LISTED:b@1",
    "kopfexamples:MODIFIED:a@2",
    "kopfexamples:DELETED:b@3",
    "kopfexamples:ADDED:c@4",
  ]);
  assertEquals(t.feeds[0].resource, KEX);
  assertEquals(t.listed, [{ resource: KEX, namespace: undefined }]);
  await t.stop();
});

Deno.test("only the resources chosen by the selection are watched", async () => {
  let offered: readonly Resource[] = [];
  const t = start({
    clusterwide: true,
    resources: [KEX, PODS, NODES],
    select: (all) => {
      offered = all;
      return all.filter((r) => r.plural === "pods");
    },
  });
  await listCrds(t.client);
  await t.observer.ready;
  await settle(); // the watches open once the current versions are asked for
  assertEquals(offered.map((r) => r.plural), ["kopfexamples", "pods", "nodes"]);
  assertEquals(t.client.openIds(), ["customresourcedefinitions@*", "pods@*"]);
  assertEquals(t.observer.resources, [PODS]);
  await t.stop();
});

Deno.test("resources that cannot be listed and watched are not served, with a warning", async () => {
  const readOnly = new Resource({
    group: "x.dev",
    version: "v1",
    plural: "things",
    verbs: ["get"],
  });
  const t = start({ clusterwide: true, resources: [KEX, readOnly] });
  await listCrds(t.client);
  await t.observer.ready;
  await settle(); // the watches open once the current versions are asked for
  assertEquals(t.client.openIds(), ["customresourcedefinitions@*", "kopfexamples@*"]);
  assertStringIncludes(t.logs.at("warning").join("\n"), "things.v1.x.dev");
  await t.stop();
});

Deno.test("namespaced: namespaces matching the patterns are watched; cluster-scoped resources once", async () => {
  const t = start({ namespaces: ["team-*,!team-x", "default"], resources: [KEX, NODES] });
  await listCrds(t.client);
  (await t.client.stream("namespaces@*")).listed([
    ns("default"),
    ns("team-a"),
    ns("team-x"),
    ns("kube-system"),
  ]);
  await t.observer.ready;
  await settle(); // the watches open once the current versions are asked for
  assertEquals(t.observer.namespaces, ["default", "team-a"]);
  assertEquals(t.client.openIds(), [
    "customresourcedefinitions@*",
    "kopfexamples@default",
    "kopfexamples@team-a",
    "namespaces@*",
    "nodes@*",
  ]);
  await t.stop();
});

Deno.test("namespaces that appear and disappear start and stop their watches", async () => {
  const t = start({ namespaces: ["team-*"], resources: [KEX] });
  await listCrds(t.client);
  const namespaces = await t.client.stream("namespaces@*");
  namespaces.listed([ns("team-a")]);
  await t.observer.ready;
  await settle(); // the watches open once the current versions are asked for
  namespaces.event("ADDED", ns("team-b"));
  namespaces.event("ADDED", ns("other"));
  await settle();
  assertEquals(t.observer.namespaces, ["team-a", "team-b"]);
  assert(!t.client.latest("kopfexamples@team-b")!.closed);
  assertEquals(t.client.latest("kopfexamples@other"), undefined);

  // Being deleted is not gone yet: the objects there still need their finalizers removed.
  namespaces.event("MODIFIED", ns("team-a", { deletionTimestamp: "2024-01-01T00:00:00Z" }));
  await settle();
  assert(!t.client.latest("kopfexamples@team-a")!.closed);

  namespaces.event("DELETED", ns("team-a"));
  await settle();
  assert(t.client.latest("kopfexamples@team-a")!.closed);
  assertEquals(t.observer.namespaces, ["team-b"]);
  assertEquals(t.observer.watchers.map((w) => w.namespace), ["team-b"]);
  await t.stop();
});

Deno.test("a re-listing of namespaces replaces the served set", async () => {
  const t = start({ namespaces: ["*"], resources: [KEX] });
  await listCrds(t.client);
  const namespaces = await t.client.stream("namespaces@*");
  namespaces.listed([ns("a"), ns("b")]);
  await t.observer.ready;
  await settle(); // the watches open once the current versions are asked for
  namespaces.listed([ns("b"), ns("c")]);
  await settle();
  assertEquals(t.observer.namespaces, ["b", "c"]);
  assertEquals(t.client.openIds(), [
    "customresourcedefinitions@*",
    "kopfexamples@b",
    "kopfexamples@c",
    "namespaces@*",
  ]);
  await t.stop();
});

Deno.test("without permission to list namespaces, only the literal names are served", async () => {
  const t = start({
    namespaces: ["default", "team-*", "!x", "prod"],
    resources: [KEX],
    openErrors: { "namespaces@*": forbidden("/api/v1/namespaces") },
  });
  await listCrds(t.client);
  await t.observer.ready;
  await settle(); // the watches open once the current versions are asked for
  assertEquals(t.observer.namespaces, ["default", "prod"]);
  assertEquals(t.client.openIds(), [
    "customresourcedefinitions@*",
    "kopfexamples@default",
    "kopfexamples@prod",
  ]);
  assertStringIncludes(t.logs.at("warning").join("\n"), "serving the namespaces named literally");
  assertEquals(t.client.opened.get("namespaces@*"), undefined, "the namespaces are not retried");
  await t.stop();
});

Deno.test("with scanning disabled, nothing but the objects is watched; literal names only", async () => {
  const t = start({ namespaces: ["default", "team-*"], resources: [KEX], scanningDisabled: true });
  await t.observer.ready;
  await settle(); // the watches open once the current versions are asked for
  assertEquals(t.client.openIds(), ["kopfexamples@default"]);
  assertEquals(t.client.discoveries, [{ fresh: false }]);
  await t.stop();
});

Deno.test("a new CRD leads to a fresh discovery and to watching the new resource", async () => {
  const t = start({ clusterwide: true, resources: [KEX] });
  await listCrds(t.client, [crd("kopf.dev")]);
  await t.observer.ready;
  await settle(); // the watches open once the current versions are asked for
  const crds = await t.client.stream("customresourcedefinitions@*");
  t.client.resources = [KEX, LATER];
  crds.event("ADDED", crd("later.dev"));
  await settle();
  assertEquals(t.client.discoveries, [{ fresh: false }, { fresh: true }]);
  assertEquals(t.client.openIds(), [
    "customresourcedefinitions@*",
    "kopfexamples@*",
    "laters@*",
  ]);

  // The CRD goes away: so do the resource and its watch.
  t.client.resources = [KEX];
  crds.event("DELETED", crd("later.dev"));
  await settle();
  assertEquals(t.client.openIds(), ["customresourcedefinitions@*", "kopfexamples@*"]);
  assertStringIncludes(t.logs.at("info").join("\n"), "Not serving laters.v1.later.dev");
  await t.stop();
});

/**
 * A CRD as the API server lists it once established: its names and served versions, the names
 * accepted and the conditions that its naming and establishing controllers set
 * (apiextensions-apiserver's `status/naming_controller.go`, `establish/establishing_controller.go`).
 */
function definition(group: string, plural: string, kind: string): RawBody {
  const names = { plural, kind, singular: kind.toLowerCase(), listKind: `${kind}List` };
  return {
    metadata: { uid: `crd-${plural}.${group}`, name: `${plural}.${group}`, resourceVersion: "1" },
    spec: {
      group,
      names,
      scope: "Namespaced",
      versions: [{
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        },
      }],
    },
    status: {
      acceptedNames: names,
      storedVersions: ["v1"],
      conditions: [
        { type: "NamesAccepted", status: "True", reason: "NoConflicts" },
        { type: "Established", status: "True", reason: "InitialNamesAccepted" },
      ],
    },
  };
}

Deno.test("the initial discovery runs at once with the CRDs' listing; the watches do not wait for the listing", async () => {
  const t = start({ clusterwide: true, resources: [KEX] });
  await t.observer.ready; // the CRDs not listed yet: a cluster's many CRDs take long to list
  await settle();
  assertEquals(t.client.discoveries, [{ fresh: false }], "not held until the CRDs are listed");
  assertEquals(t.client.openIds(), ["customresourcedefinitions@*", "kopfexamples@*"]);
  await listCrds(t.client, [definition("kopf.dev", "kopfexamples", "KopfExample")]);
  assertEquals(t.client.discoveries, [{ fresh: false }], "the listing showed nothing it missed");
  await t.stop();
});

Deno.test("a CRD change that the discovery does not show (its schema) discovers nothing again", async () => {
  const t = start({ clusterwide: true, resources: [KEX] });
  const before = definition("kopf.dev", "kopfexamples", "KopfExample");
  await listCrds(t.client, [before]);
  await t.observer.ready;
  await settle();
  const stream = await t.client.stream("customresourcedefinitions@*");
  const versions = (before.spec as { versions: Record<string, unknown>[] }).versions;
  const schema = { openAPIV3Schema: { type: "object", description: "Now described." } };
  stream.event("MODIFIED", {
    ...before,
    metadata: { ...before.metadata, resourceVersion: "2" },
    spec: { ...before.spec as object, versions: [{ ...versions[0], schema }] },
  });
  await settle();
  assertEquals(t.client.discoveries, [{ fresh: false }]);
  // A change it shows (a version served no more) discovers again.
  stream.event("MODIFIED", {
    ...before,
    metadata: { ...before.metadata, resourceVersion: "3" },
    spec: { ...before.spec as object, versions: [{ ...versions[0], schema, served: false }] },
  });
  await settle();
  assertEquals(t.client.discoveries, [{ fresh: false }, { fresh: true }]);
  await t.stop();
});

Deno.test("a CRD of the first listing that the initial discovery missed is discovered and served", async () => {
  const t = start({ clusterwide: true, resources: [KEX] });
  await settle(); // discovered: KopfExamples alone
  t.client.resources = [KEX, LATER]; // the CRD of Laters is made now, before the listing
  await listCrds(t.client, [
    definition("kopf.dev", "kopfexamples", "KopfExample"),
    definition("later.dev", "laters", "Later"),
  ]);
  await t.observer.ready;
  await settle();
  assertEquals(t.client.discoveries, [{ fresh: false }, { fresh: true }]);
  assertEquals(t.client.openIds(), [
    "customresourcedefinitions@*",
    "kopfexamples@*",
    "laters@*",
  ]);
  // The selection is asked of whole discoveries only (it tells the webhooks, warns of
  // selectors matching nothing), never of the missed resources alone.
  assertEquals(t.selects, [["kopfexamples"], ["kopfexamples", "laters"]]);
  await t.stop();
});

Deno.test("a missed CRD of a group the discovery does not ask, or one not established, discovers nothing again", async () => {
  const t = start({ clusterwide: true, resources: [KEX] });
  t.client.askedGroups = ["kopf.dev"]; // the handlers name their group: discovery asks it alone
  await settle();
  const unestablished = definition("kopf.dev", "drafts", "Draft");
  unestablished.status = { conditions: [{ type: "Established", status: "False" }] };
  await listCrds(t.client, [definition("later.dev", "laters", "Later"), unestablished]);
  await t.observer.ready;
  await settle();
  assertEquals(t.client.discoveries, [{ fresh: false }]);
  await t.stop();
});

Deno.test("a watch that finds its resource gone (404) discovers again, and the watch stops", async () => {
  const t = start({ clusterwide: true, resources: [KEX, LATER] });
  await listCrds(t.client);
  await t.observer.ready;
  await settle();
  assertEquals(t.client.openIds(), ["customresourcedefinitions@*", "kopfexamples@*", "laters@*"]);
  // Its CRD went without a deletion seen (e.g. between the first discovery and listing).
  t.client.resources = [KEX];
  const gone = new APINotFoundError(404, {}, { method: "GET", path: "/apis/later.dev/v1" });
  (await t.client.stream("laters@*")).fail(gone);
  await settle();
  assertEquals(t.client.discoveries, [{ fresh: false }, { fresh: true }]);
  assertEquals(t.client.openIds(), ["customresourcedefinitions@*", "kopfexamples@*"]);
  await t.stop();
});

Deno.test("a burst of CRD changes during a discovery leads to one more discovery only", async () => {
  const t = start({ clusterwide: true, resources: [KEX] });
  await listCrds(t.client);
  await t.observer.ready;
  await settle(); // the watches open once the current versions are asked for
  const crds = await t.client.stream("customresourcedefinitions@*");
  t.client.discoveryGate = deferred();
  crds.event("ADDED", crd("one"));
  await settle();
  crds.event("ADDED", crd("two"));
  crds.event("ADDED", crd("three"));
  crds.event("MODIFIED", crd("one", "2", "False"));
  await settle();
  assertEquals(t.client.discoveries.length, 2, "the initial one and the one in progress");
  t.client.discoveryGate.resolve();
  t.client.discoveryGate = undefined;
  await settle();
  assertEquals(t.client.discoveries.length, 3, "one more for all the changes during it");
  await t.stop();
});

Deno.test("CRD changes that do not affect discovery do not trigger it", async () => {
  const t = start({ clusterwide: true, resources: [KEX] });
  await listCrds(t.client, [crd("kopf.dev")]);
  await t.observer.ready;
  await settle(); // the watches open once the current versions are asked for
  const crds = await t.client.stream("customresourcedefinitions@*");
  const relabelled = crd("kopf.dev", "7");
  relabelled.metadata!.labels = { some: "label" };
  crds.event("MODIFIED", relabelled);
  await settle();
  assertEquals(t.client.discoveries.length, 1);
  crds.event("MODIFIED", crd("kopf.dev", "8", "False"));
  await settle();
  assertEquals(t.client.discoveries.length, 2, "the Established condition matters");
  await t.stop();
});

Deno.test("a changed resource definition restarts its watch", async () => {
  const t = start({ clusterwide: true, resources: [KEX] });
  await listCrds(t.client, [crd("kopf.dev")]);
  await t.observer.ready;
  await settle(); // the watches open once the current versions are asked for
  const first = t.client.latest("kopfexamples@*")!;
  t.client.resources = [new Resource({ ...KEX, subresources: ["status"] })];
  (await t.client.stream("customresourcedefinitions@*")).event("MODIFIED", {
    ...crd("kopf.dev", "2"),
    spec: { group: "kopf.dev", subresources: { status: {} } },
  });
  await settle();
  assert(first.closed);
  const second = t.client.latest("kopfexamples@*")!;
  assert(second !== first && !second.closed);
  assertEquals(t.observer.resources[0].subresources, ["status"]);
  await t.stop();
});

Deno.test("without permission to watch CRDs, the operator starts with what it discovered", async () => {
  const t = start({
    clusterwide: true,
    resources: [KEX],
    openErrors: { "customresourcedefinitions@*": forbidden("/apis/apiextensions.k8s.io") },
  });
  await t.observer.ready;
  await settle(); // the watches open once the current versions are asked for
  assertEquals(t.client.openIds(), ["kopfexamples@*"]);
  assertStringIncludes(t.logs.at("warning").join("\n"), "CustomResourceDefinitions");
  await t.stop();
});

Deno.test("a re-listing feeds changed objects and deletions missed in the gap", async () => {
  const t = start({ clusterwide: true, resources: [KEX] });
  await listCrds(t.client);
  const stream = await t.client.stream("kopfexamples@*");
  stream.listed([obj("a"), obj("b"), obj("c")]);
  stream.event("MODIFIED", obj("c", "5"));
  await settle();
  t.fed.length = 0;
  // After a 410, the watch lists again: b changed, c vanished, d is new, a is as it was.
  stream.listed([obj("a"), obj("b", "7"), obj("d", "8")], "9");
  await settle();
  assertEquals(t.fed, [
    "kopfexamples:LISTED:b@7",
    "kopfexamples:LISTED:d@8",
    "kopfexamples:DELETED:c@5",
  ]);
  const deleted = t.feeds.at(-1)!.event.object;
  assertEquals(deleted.metadata?.name, "n-c", "the deletion carries the identity");
  assertEquals(t.listed.length, 1, "the listing hook fires once per watch");
  await t.stop();
});

Deno.test("with selectors: every deletion is fed as a possible leaving, to be read to tell", async () => {
  const labels = parseLabelSelector("app=watched");
  const selection: WatchSelection = {
    labels,
    fields: [],
    labelSelector: "app=watched",
    fieldSelector: undefined,
    metadataOnly: false,
    reason: "a test",
  };
  const t = start({ clusterwide: true, resources: [KEX], selection: () => selection });
  await listCrds(t.client);
  const stream = await t.client.stream("kopfexamples@*");
  assertEquals(stream.options?.labelSelector, "app=watched", "the watch sends its selector");
  const watched = (uid: string, rv: string, app = "watched"): RawBody => ({
    ...obj(uid, rv),
    metadata: { ...obj(uid, rv).metadata, labels: { app } },
  });
  stream.listed([watched("a", "1"), watched("b", "2"), watched("c", "3")]);
  await settle();
  t.fed.length = 0;
  // As kube-apiserver sends them: the label changed, and the object is reported deleted
  // with its previous content (still matching) at the new version; then a real deletion.
  stream.event("DELETED", watched("a", "4"));
  stream.event("DELETED", watched("b", "5"));
  await settle();
  // After a 410, the watch lists again: c is not there — left or deleted, it is read to tell.
  stream.listed([], "9");
  await settle();
  assertEquals(t.fed, [
    "kopfexamples:LEFT:a@4",
    "kopfexamples:LEFT:b@5",
    "kopfexamples:LEFT:c@3",
  ]);
  // What tells them apart later: whether a state read afresh still meets the selectors.
  const left = t.feeds.at(-1)!.event;
  assert(left.type === "LEFT");
  const selects = left.selects;
  assertEquals([selects(watched("c", "10")), selects(watched("c", "10", "other"))], [true, false]);
  await t.stop();
});

Deno.test("a failed watch is retried after a pause, and continues where it was", async () => {
  const t = start({ clusterwide: true, resources: [KEX] });
  await listCrds(t.client);
  const first = await t.client.stream("kopfexamples@*");
  first.listed([obj("a"), obj("b")]);
  await settle();
  const reopened = t.client.next("kopfexamples@*");
  first.fail(new Error("connection reset"));
  await settle();
  assertStringIncludes(t.logs.at("warning").join("\n"), "failed: connection reset; retrying in 1s");
  await t.clock.advance(0.9);
  assertEquals(t.client.opened.get("kopfexamples@*")!.length, 1);
  await t.clock.advance(0.2);
  const second = await reopened;
  second.listed([obj("a")]);
  await settle();
  assertEquals(t.fed, [
    "kopfexamples:LISTED:a@1",
    "kopfexamples:LISTED:b@1",
    "kopfexamples:DELETED:b@1",
  ]);
  await t.stop();
});

Deno.test("repeated failures back off along the delays; a success starts them over", async () => {
  const t = start({ clusterwide: true, resources: [KEX] });
  await listCrds(t.client);
  const gone = () => new APINotFoundError(404, {}, { method: "GET", path: "/apis/kopf.dev/v1" });
  (await t.client.stream("kopfexamples@*")).fail(gone());
  await settle();
  t.client.openErrors.set("kopfexamples@*", gone());
  await t.clock.advance(1); // 2nd attempt fails at once
  await t.clock.advance(4.9);
  assertEquals(t.client.opened.get("kopfexamples@*")!.length, 1);
  await t.clock.advance(0.1); // 3rd attempt after 5s opens
  const third = t.client.latest("kopfexamples@*")!;
  assertEquals(t.client.opened.get("kopfexamples@*")!.length, 2);
  third.listed([]);
  await settle();
  // Up longer than the pause before it: a watch of use, after which the pauses start over.
  await t.clock.advance(5);
  third.fail(gone());
  await settle();
  await t.clock.advance(1);
  assertEquals(t.client.opened.get("kopfexamples@*")!.length, 3, "back to the first delay");
  await t.stop();
});

Deno.test("a watch that ends by itself is opened again", async () => {
  const t = start({ clusterwide: true, resources: [KEX] });
  await listCrds(t.client);
  (await t.client.stream("kopfexamples@*")).end();
  await settle();
  await t.clock.advance(1);
  assertEquals(t.client.opened.get("kopfexamples@*")!.length, 2);
  await t.stop();
});

Deno.test("a watch broken past its recovery (a defect) is reported and watched anew after a pause", async () => {
  const t = start({ clusterwide: true, resources: [KEX] });
  await listCrds(t.client);
  const first = await t.client.stream("kopfexamples@*");
  first.listed([obj("a"), obj("b")]);
  await settle();
  t.client.defects.set("kopfexamples@*", new TypeError("item.object is undefined"));
  const reopened = t.client.next("kopfexamples@*");
  first.event("MODIFIED", obj("a", "2"));
  await settle();
  const errors = t.logs.at("error");
  assertEquals(errors.length, 1);
  assertStringIncludes(
    errors[0],
    "Watching kopfexamples.v1.kopf.dev cluster-wide failed; watching it anew in 1s: " +
      "TypeError: item.object is undefined",
  );
  assert(first.closed, "the broken stream is closed");
  await t.clock.advance(0.9);
  assertEquals(t.client.opened.get("kopfexamples@*")!.length, 1);
  await t.clock.advance(0.2);
  const second = await reopened;
  second.listed([obj("a", "2")]);
  await settle();
  assertEquals(t.fed, [
    "kopfexamples:LISTED:a@1",
    "kopfexamples:LISTED:b@1",
    "kopfexamples:LISTED:a@2",
    "kopfexamples:DELETED:b@1",
  ]);
  // Broken again at once: the pauses grow along the backoff.
  t.client.defects.set("kopfexamples@*", new TypeError("again"));
  const third = t.client.next("kopfexamples@*");
  second.event("MODIFIED", obj("a", "3"));
  await settle();
  assertStringIncludes(
    t.logs.at("error").at(-1)!,
    "failed; watching it anew in 5s: TypeError: again",
  );
  await t.clock.advance(4.9);
  assertEquals(t.client.opened.get("kopfexamples@*")!.length, 2);
  await t.clock.advance(0.2);
  (await third).listed([obj("a", "3")]);
  await settle();
  assertEquals(t.fed.at(-1), "kopfexamples:LISTED:a@3");
  await t.stop();
});

Deno.test("a defect that breaks a watch five times in a row fails the run, after the watches stop", async () => {
  const t = start({ clusterwide: true, resources: [KEX] });
  await listCrds(t.client);
  let stream = await t.client.stream("kopfexamples@*");
  stream.listed([obj("a")]);
  let failed: unknown;
  void t.running.catch((error) => (failed = error));
  for (const [n, pause] of [[1, 1], [2, 5], [3, 5], [4, 5]]) {
    t.client.defects.set("kopfexamples@*", new TypeError(`defect ${n}`));
    const next = t.client.next("kopfexamples@*");
    stream.event("MODIFIED", obj("a", `${n + 1}`));
    await settle();
    assertStringIncludes(t.logs.at("error").at(-1)!, `watching it anew in ${pause}s`);
    await t.clock.advance(pause + 0.1);
    stream = await next;
    stream.listed([obj("a", `${n + 1}`)]);
    await settle();
    assertEquals(failed, undefined, `still running after ${n} defects`);
  }
  t.client.defects.set("kopfexamples@*", new TypeError("defect 5"));
  stream.event("MODIFIED", obj("a", "6"));
  const error = await assertRejects(() => t.running, WatchDefectsError);
  assertStringIncludes(
    error.message,
    "Watching kopfexamples.v1.kopf.dev cluster-wide failed 5 times in a row; stopping the " +
      "operator, as watching it anew does not help (a restart of the process begins afresh): " +
      "TypeError: defect 5",
  );
  assert(t.logs.at("error").at(-1)!.startsWith(`error: ${error.message}\n`), "with the stack");
  assertEquals(t.client.openIds(), [], "every watch has stopped");
});

Deno.test("defects more than two minutes apart never add up to a failure", async () => {
  const t = start({ clusterwide: true, resources: [KEX] });
  await listCrds(t.client);
  let stream = await t.client.stream("kopfexamples@*");
  stream.listed([obj("a")]);
  for (let n = 1; n <= 6; n++) {
    t.client.defects.set("kopfexamples@*", new TypeError(`defect ${n}`));
    const next = t.client.next("kopfexamples@*");
    stream.event("MODIFIED", obj("a", `${n + 1}`));
    await settle();
    assertStringIncludes(t.logs.at("error").at(-1)!, "watching it anew in 1s");
    await t.clock.advance(1.1);
    stream = await next;
    stream.listed([obj("a", `${n + 1}`)]);
    await t.clock.advance(121); // healthy for longer than the backoff's reset
  }
  assertEquals(t.logs.at("error").length, 6);
  await t.stop();
});

/**
 * An observer told of the operator's writes, watching kopfexamples cluster-wide (with the
 * setup given beside), its CRDs listed: the stream of kopfexamples, not listed yet.
 */
async function toldObserver(setup: Setup = {}) {
  const t = start({ clusterwide: true, resources: [KEX], toldOfWrites: true, ...setup });
  await listCrds(t.client);
  return { t, stream: await t.client.stream("kopfexamples@*") };
}

Deno.test("an object the operator made is fed at once; its watch's own event of it is not fed again", async () => {
  const { t, stream } = await toldObserver();
  t.observer.told(KEX, obj("a", "2"));
  assertEquals(t.fed, ["kopfexamples:ADDED:a@2"], "before the watch's first listing too");
  stream.listed([], "2");
  await settle();
  assertEquals(t.fed.at(-1), "kopfexamples:DELETED:a@2", "a listing without it: deleted");
  t.fed.length = 0;
  t.observer.told(KEX, obj("b", "3"));
  stream.event("ADDED", obj("b", "3"));
  t.observer.told(KEX, obj("b", "4"));
  stream.event("MODIFIED", obj("b", "4"));
  t.observer.told(KEX, obj("b", "3")); // an answer that comes after a newer event
  stream.event("DELETED", obj("b", "5"));
  await settle();
  t.observer.told(KEX, obj("b", "4")); // an answer that comes after the deletion
  assertEquals(t.fed, [
    "kopfexamples:ADDED:b@3",
    "kopfexamples:MODIFIED:b@4",
    "kopfexamples:DELETED:b@5",
  ]);
  t.observer.told(PODS, obj("c"));
  assertEquals(t.fed.length, 3, "no watch of that resource: nothing");
  await t.stop();
});

Deno.test("a live state the watch knows, or the queueing takes from its text, needs no parsing here", async () => {
  let taking = false;
  const t = start({ clusterwide: true, resources: [KEX, NODES], takes: () => taking });
  await listCrds(t.client);
  const stream = await t.client.stream("kopfexamples@*");
  const knows = (uid: string, resourceVersion: string, namespace = "a") =>
    stream.options!.knows!(
      { namespace, uid, resourceVersion },
      `text of ${uid}@${resourceVersion}`,
    );
  stream.listed([obj("x", "3")]);
  await settle();
  assertEquals(knows("x", "3"), true, "known in this very version: nothing to feed");
  assertEquals(knows("x", "2"), true, "and in an older one");
  assertEquals(knows("y", "4"), false, "an object it does not know is fed");
  assertEquals(knows("x", "4", "b"), false, "nor one of another namespace");
  assertEquals(t.taken, [], "the queueing is not asked of what the watch knows");
  assertEquals(knows("x", "4"), false, "not taken: parsed and fed");
  assertEquals(t.taken, ["x@4 text of x@4"]);
  taking = true;
  assertEquals(knows("x", "5"), true, "taken");
  assertEquals(t.taken, ["x@4 text of x@4", "x@5 text of x@5"]);
  t.fed.length = 0;
  // Its version is noted as the event's would be: the same event is not fed again.
  stream.event("MODIFIED", obj("x", "5"));
  stream.event("MODIFIED", obj("x", "6"));
  await settle();
  assertEquals(t.fed, ["kopfexamples:MODIFIED:x@6"]);
  // Cluster-scoped objects are found without a namespace.
  const nodes = await t.client.stream("nodes@*");
  nodes.listed([{ metadata: { uid: "n", name: "n", resourceVersion: "1" } }]);
  await settle();
  const node = { namespace: undefined, uid: "n", resourceVersion: "2" };
  assertEquals(nodes.options!.knows!(node, "text"), true);
  assertEquals(t.taken.at(-1), "n@2 text");
  await t.stop();
});

Deno.test("a live state is parsed here beside a listing, where full states are kept, and with metadata only", async () => {
  const t = start({
    clusterwide: true,
    resources: [KEX, PODS, NODES],
    takes: () => true,
    keepsLastStates: (resource) => resource === PODS,
    selection: (resource) =>
      resource === NODES
        ? {
          labels: [],
          fields: [],
          labelSelector: "",
          fieldSelector: "",
          metadataOnly: true,
          reason: "",
        }
        : undefined,
  });
  await listCrds(t.client);
  const stream = await t.client.stream("kopfexamples@*");
  stream.listing([obj("x", "3")], false);
  await settle();
  const knows = stream.options!.knows!;
  const x = { namespace: "a", uid: "x", resourceVersion: "3" };
  assertEquals(knows(x, ""), false, "beside a listing, a live event tells it of the object");
  stream.listedAfterParts([]);
  await settle();
  assertEquals(knows(x, ""), true);
  assertEquals(knows({ ...x, resourceVersion: "4" }, ""), true);
  const pods = await t.client.stream("pods@*");
  pods.listed([obj("p", "3")]);
  await settle();
  const p = { namespace: "a", uid: "p", resourceVersion: "3" };
  assertEquals(pods.options!.knows!(p, ""), true, "known in this very version");
  assertEquals(pods.options!.knows!({ ...p, resourceVersion: "4" }, ""), false, "body kept");
  const nodes = await t.client.stream("nodes@*");
  nodes.listed([{ metadata: { uid: "n", name: "n", resourceVersion: "1" } }]);
  await settle();
  const n = { namespace: undefined, uid: "n", resourceVersion: "2" };
  assertEquals(nodes.options!.knows!(n, ""), false, "metadata only: made its kind here");
  assertEquals(t.taken, ["x@4 "]);
  await t.stop();
});

Deno.test("a feed that fails on an object the operator wrote is reported, not thrown at the writer", async () => {
  const { t, stream } = await toldObserver({
    feedResult: (event) => {
      if (event.object.metadata?.uid === "sync") throw new TypeError("a feed's defect");
      if (event.object.metadata?.uid === "async") return Promise.reject(new TypeError("later"));
    },
  });
  stream.listed([], "1");
  await settle();
  t.observer.told(KEX, obj("sync", "2")); // would throw into the writer's call
  t.observer.told(KEX, obj("async", "3"));
  await settle();
  const errors = t.logs.at("error");
  assertEquals(errors.length, 2);
  assertStringIncludes(errors[0], "Feeding an object written by the operator failed: TypeError");
  assertStringIncludes(errors[1], "TypeError: later");
  await t.stop();
});

Deno.test("a listing older than a state the operator wrote tells nothing of that object", async () => {
  const { t, stream } = await toldObserver();
  t.observer.told(KEX, obj("a", "20"));
  stream.listed([], "10"); // its snapshot was taken before the write
  await settle();
  assertEquals(t.fed, ["kopfexamples:ADDED:a@20"]);
  stream.listed([], "30");
  await settle();
  assertEquals(t.fed, ["kopfexamples:ADDED:a@20", "kopfexamples:DELETED:a@20"]);
  t.observer.told(KEX, obj("b", "25")); // an answer that comes after a listing without it
  t.observer.told(KEX, obj("a", "20"));
  assertEquals(t.fed.length, 2, "states older than the listing: gone by then");
  await t.stop();
});

Deno.test("an object the operator made that the watch's selectors would not show is not fed", async () => {
  const selection: WatchSelection = {
    labels: parseLabelSelector("app=watched"),
    fields: [],
    labelSelector: "app=watched",
    fieldSelector: undefined,
    metadataOnly: false,
    reason: "a test",
  };
  const { t, stream } = await toldObserver({ selection: () => selection });
  stream.listed([], "1");
  await settle();
  const labelled = (app: string) => ({ metadata: { ...obj(app, "2").metadata, labels: { app } } });
  t.observer.told(KEX, labelled("other"));
  t.observer.told(KEX, labelled("watched"));
  assertEquals(t.fed, ["kopfexamples:ADDED:watched@2"]);
  t.observer.pause();
  t.observer.told(KEX, { metadata: { ...labelled("watched").metadata, uid: "paused" } });
  assertEquals(t.fed.length, 1, "paused: nothing");
  await t.stop();
});

Deno.test("an object the operator wrote is fed as a copy: the writer's answer is left as it is", async () => {
  const { t: whole, stream: wholeStream } = await toldObserver();
  wholeStream.listed([], "1");
  await settle();
  const answer = { ...obj("a", "2"), spec: { size: 1 } };
  whole.observer.told(KEX, answer);
  answer.spec.size = 2; // the writer's own, to change as it likes
  assertEquals(whole.feeds[0].event.object.spec, { size: 1 });
  await whole.stop();

  const selection: WatchSelection = {
    labels: [],
    fields: [],
    labelSelector: undefined,
    fieldSelector: undefined,
    metadataOnly: true,
    reason: "a test",
  };
  const { t: partial, stream: partialStream } = await toldObserver({ selection: () => selection });
  partialStream.listed([], "1");
  await settle();
  const managedFields = [{ manager: "kopf", operation: "Update" }];
  const metadata = { ...obj("m", "2").metadata, managedFields };
  const partialAnswer = { apiVersion: "meta.k8s.io/v1", kind: "PartialObjectMetadata", metadata };
  partial.observer.told(KEX, partialAnswer);
  partial.observer.told(KEX, {
    ...obj("w", "3"),
    metadata: { ...obj("w", "3").metadata, managedFields },
  });
  assertEquals(partialAnswer.kind, "PartialObjectMetadata", "the writer's answer as it came");
  const fed = partial.feeds.map(({ event }) => event.object);
  assertEquals(fed.map((o) => [o.kind, o.metadata?.uid]), [[KEX.kind, "m"], [KEX.kind, "w"]]);
  assertEquals(fed[1].spec, undefined, "metadata only, as the watch shows it");
  // kube-apiserver's meta.AsPartialObjectMetadata keeps the managed fields.
  assertEquals(fed[1].metadata?.managedFields, managedFields);
  assert(partial.feeds.every(({ event }) => event.source !== undefined), "read whole when asked");
  await partial.stop();
});

Deno.test("a failing initial discovery fails the run", async () => {
  const t = start({ clusterwide: true, discoveryError: new Error("no API") });
  await listCrds(t.client);
  await assertRejects(() => t.running, Error, "no API");
  assertEquals(t.client.openIds(), []);
});

Deno.test("a failing rediscovery is retried and the watches stay as they were", async () => {
  const t = start({ clusterwide: true, resources: [KEX] });
  await listCrds(t.client);
  await t.observer.ready;
  await settle(); // the watches open once the current versions are asked for
  t.client.discoveryError = new Error("flaky");
  t.client.resources = [KEX, LATER];
  (await t.client.stream("customresourcedefinitions@*")).event("ADDED", crd("later.dev"));
  await settle();
  assertEquals(t.client.openIds(), ["customresourcedefinitions@*", "kopfexamples@*"]);
  assertStringIncludes(t.logs.at("warning").join("\n"), "Discovery failed: flaky; retrying in 1s");
  await t.clock.advance(1);
  assertEquals(t.client.openIds(), ["customresourcedefinitions@*", "kopfexamples@*", "laters@*"]);
  await t.stop();
});

Deno.test("after the stop, nothing more is fed and the run resolves", async () => {
  const t = start({ clusterwide: true, resources: [KEX] });
  await listCrds(t.client);
  const stream = await t.client.stream("kopfexamples@*");
  stream.listed([obj("a")]);
  await settle();
  await t.stop();
  stream.event("MODIFIED", obj("a", "2"));
  await settle();
  assertEquals(t.fed, ["kopfexamples:LISTED:a@1"]);
  assertEquals(t.observer.watchers, []);
});

Deno.test("a stop before anything was listed ends the run cleanly", async () => {
  const t = start({ namespaces: ["a"] });
  await settle();
  await t.stop();
  // The initial discovery runs at once with the CRDs' listing, not after it.
  assertEquals(t.client.discoveries, [{ fresh: false }]);
  assertEquals(t.observer.watchers, []);
});

Deno.test("an observer runs once at a time", async () => {
  const t = start({ clusterwide: true });
  await assertRejects(() => t.observer.run(new AbortController().signal), Error, "already");
  await t.stop();
});

Deno.test("a listing in parts: objects are fed as parts arrive; it is complete only at LISTED", async () => {
  const t = start({ namespaces: ["*"], resources: [KEX] });
  await listCrds(t.client);
  (await t.client.stream("namespaces@*")).listed([ns("a")]);
  await t.observer.ready;
  await settle(); // the watches open once the current versions are asked for
  const first = await t.client.stream("kopfexamples@a");
  first.listed([obj("x"), obj("y"), obj("z")]);
  await settle();
  t.fed.length = 0;
  t.listed.length = 0;

  // A re-listing in parts that breaks off and begins anew: what it fed is not fed again,
  // and only the objects missing from the complete listing are deleted.
  const second = t.client.next("kopfexamples@a");
  first.fail(new Error("the stream broke"));
  await settle();
  await t.clock.advance(1.1);
  const relisting = await second;
  relisting.listing([obj("x", "2"), obj("y")], false);
  await settle();
  assertEquals(t.fed, ["kopfexamples:LISTED:x@2"], "fed as the part arrived");
  relisting.listing([obj("x", "2")], false); // begun anew: y is not in this listing yet
  relisting.listing([obj("w", "5")], true);
  await settle();
  assertEquals(t.fed, ["kopfexamples:LISTED:x@2", "kopfexamples:LISTED:w@5"]);
  relisting.listedAfterParts([obj("z")]);
  await settle();
  assertEquals(t.fed, [
    "kopfexamples:LISTED:x@2",
    "kopfexamples:LISTED:w@5",
    "kopfexamples:DELETED:y@1",
  ]);
  assertEquals(t.listed.length, 0, "the first listing was the one that counted");
  await t.stop();
});

Deno.test("a first listing in parts counts as listed only at its end", async () => {
  const t = start({ namespaces: ["*"], resources: [KEX] });
  await listCrds(t.client);
  (await t.client.stream("namespaces@*")).listed([ns("a")]);
  await t.observer.ready;
  await settle(); // the watches open once the current versions are asked for
  const stream = await t.client.stream("kopfexamples@a");
  stream.listing([obj("x"), obj("y")], false);
  await settle();
  assertEquals(t.fed, ["kopfexamples:LISTED:x@1", "kopfexamples:LISTED:y@1"]);
  assertEquals(t.listed.length, 0);
  stream.listedAfterParts([obj("z")], "7");
  await settle();
  assertEquals(t.fed.length, 3);
  assertEquals(t.listed.length, 1);
  await t.stop();
});

Deno.test("a pause closes the objects' watches; the resumption feeds only what changed", async () => {
  const t = start({ namespaces: ["*"], resources: [KEX] });
  await listCrds(t.client);
  const namespaces = await t.client.stream("namespaces@*");
  namespaces.listed([ns("a")]);
  await t.observer.ready;
  await settle(); // the watches open once the current versions are asked for
  const first = await t.client.stream("kopfexamples@a");
  first.listed([obj("x"), obj("y")]);
  await settle();
  t.fed.length = 0;

  t.observer.pause();
  await settle();
  assert(t.observer.paused);
  assert(first.closed, "the objects' watch is closed");
  assert(!namespaces.closed, "the namespaces are still observed");
  first.event("MODIFIED", obj("x", "2"));
  await settle();
  assertEquals(t.fed, [], "nothing is fed while paused");

  const second = t.client.next("kopfexamples@a");
  t.observer.resume();
  (await second).listed([obj("x", "3")]);
  await settle();
  assertEquals(t.fed, ["kopfexamples:LISTED:x@3", "kopfexamples:DELETED:y@1"]);
  assertEquals(t.listed.length, 1);
  await t.stop();
});

Deno.test("a watch started during a pause opens only on resumption", async () => {
  const t = start({ namespaces: ["*"], resources: [KEX] });
  await listCrds(t.client);
  const namespaces = await t.client.stream("namespaces@*");
  namespaces.listed([]);
  await t.observer.ready;
  await settle(); // the watches open once the current versions are asked for
  t.observer.pause();
  namespaces.event("ADDED", ns("b"));
  await settle();
  assertEquals(t.observer.watchers.map((w) => w.namespace), ["b"]);
  assertEquals(t.client.latest("kopfexamples@b"), undefined);
  t.observer.resume();
  await settle();
  assert(!t.client.latest("kopfexamples@b")!.closed);
  await t.stop();
});

Deno.test("a stop during a pause ends the run", async () => {
  const t = start({ clusterwide: true, resources: [KEX] });
  await listCrds(t.client);
  await t.observer.ready;
  await settle(); // the watches open once the current versions are asked for
  t.observer.pause();
  await settle();
  await t.stop();
});

Deno.test("deletion notices after a gap carry the last state without managed fields", async () => {
  const t = start({ clusterwide: true, resources: [KEX], keepsLastStates: () => true });
  await listCrds(t.client);
  const stream = await t.client.stream("kopfexamples@*");
  const heavy = obj("a");
  heavy.metadata!.managedFields = [{ manager: "kubectl" }];
  heavy.spec = { size: 3 };
  stream.listed([heavy]);
  stream.listed([]);
  await settle();
  const notice = t.feeds.at(-1)!.event;
  assertEquals(notice.type, "DELETED");
  assertEquals(notice.object.spec, { size: 3 });
  assertEquals(notice.object.metadata?.managedFields, undefined);
  assertEquals(t.feeds[0].event.object.metadata?.managedFields, [{ manager: "kubectl" }]);
  await t.stop();
});

Deno.test("a selection failing after a CRD change is reported and the watches stay", async () => {
  let failing = false;
  const t = start({
    clusterwide: true,
    resources: [KEX],
    select: (all) => {
      if (failing) throw new Error("registry bug");
      return all;
    },
  });
  await listCrds(t.client);
  await t.observer.ready;
  await settle(); // the watches open once the current versions are asked for
  failing = true;
  const crds = await t.client.stream("customresourcedefinitions@*");
  crds.event("ADDED", crd("later.dev"));
  await settle();
  assertStringIncludes(t.logs.at("error").join("\n"), "registry bug");
  assertEquals(t.client.openIds(), ["customresourcedefinitions@*", "kopfexamples@*"]);
  failing = false;
  t.client.resources = [KEX, LATER];
  crds.event("ADDED", crd("other.dev"));
  await settle();
  assertEquals(t.client.openIds(), ["customresourcedefinitions@*", "kopfexamples@*", "laters@*"]);
  await t.stop();
});

Deno.test("listed: after every initial watch has listed or failed once, not before", async () => {
  const t = start({ clusterwide: true });
  let listed = false;
  void t.observer.listed.then(() => (listed = true));
  await listCrds(t.client);
  await t.observer.ready;
  await settle(); // the watches open once the current versions are asked for
  (await t.client.stream("kopfexamples@*")).listed([obj("a")]);
  await settle();
  assert(!listed, "the pods are not listed yet");
  (await t.client.stream("pods@*")).fail(new Error("connection reset"));
  // A failing watch does not hold it (and is retried).
  await assertSettlesWithin(t.observer.listed, 5, "listed after a failed watch");
  assertEquals(t.fed, ["kopfexamples:LISTED:a@1"]);
  await t.stop();
});

Deno.test("by default, deletion notices after a gap carry only the type, identity and version", async () => {
  const t = start({ clusterwide: true, resources: [KEX, NODES] });
  await listCrds(t.client);
  const kex = await t.client.stream("kopfexamples@*");
  const nodes = await t.client.stream("nodes@*");
  const heavy = { ...obj("a", "3"), spec: { size: 3 }, status: { ok: true } };
  const uidless: RawBody = { metadata: { name: "plain", namespace: "ns", resourceVersion: "4" } };
  kex.listed([heavy, uidless]);
  kex.event("MODIFIED", { ...heavy, metadata: { ...heavy.metadata, resourceVersion: "5" } });
  nodes.listed([{ metadata: { uid: "node-1", name: "node-1", resourceVersion: "6" } }]);
  await settle();
  kex.listed([]);
  nodes.listed([]);
  await settle();
  const notices = t.feeds.filter((f) => f.event.type === "DELETED");
  assertEquals(notices.map((f) => f.event.object), [
    {
      apiVersion: "kopf.dev/v1",
      kind: "KopfExample",
      metadata: { name: "n-a", namespace: "a", uid: "a", resourceVersion: "5" },
    },
    {
      apiVersion: "kopf.dev/v1",
      kind: "KopfExample",
      metadata: { name: "plain", namespace: "ns", resourceVersion: "4" },
    },
    {
      apiVersion: "v1",
      kind: "Node",
      metadata: { name: "node-1", uid: "node-1", resourceVersion: "6" },
    },
  ]);
  await t.stop();
});

Deno.test("in both forms, a re-listing does not feed again the objects that did not change", async () => {
  for (const keeps of [false, true]) {
    const t = start({ namespaces: ["*"], resources: [KEX], keepsLastStates: () => keeps });
    await listCrds(t.client);
    (await t.client.stream("namespaces@*")).listed([ns("ns"), ns("other")]);
    const stream = await t.client.stream("kopfexamples@ns");
    stream.listed([obj("a"), obj("b"), obj("c")]);
    stream.event("MODIFIED", obj("b", "2"));
    stream.event("ADDED", obj("d", "3"));
    await settle();
    t.fed.length = 0;
    stream.listed([obj("a"), obj("b", "2"), obj("c", "4"), obj("d", "3")], "5");
    stream.listed([obj("a"), obj("b", "2"), obj("c", "4"), obj("d", "3")], "6");
    await settle();
    assertEquals(t.fed, ["kopfexamples:LISTED:c@4"], `keeping full states: ${keeps}`);
    await t.stop();
  }
});

Deno.test("keepsLastStates is asked per resource: full states for some, traces for others", async () => {
  const asked: string[] = [];
  const t = start({
    clusterwide: true,
    resources: [KEX, PODS],
    keepsLastStates: (resource) => {
      asked.push(resource.plural);
      return resource.plural === "pods";
    },
  });
  await listCrds(t.client);
  const kex = await t.client.stream("kopfexamples@*");
  const pods = await t.client.stream("pods@*");
  kex.listed([{ ...obj("k"), spec: { x: 1 } }]);
  pods.listed([{ ...obj("p"), spec: { y: 2 } }]);
  await settle();
  kex.listed([]);
  pods.listed([]);
  await settle();
  const notices = t.feeds.filter((f) => f.event.type === "DELETED").map((f) => f.event.object);
  assertEquals(asked.sort(), ["kopfexamples", "pods"]);
  assertEquals(notices.find((o) => o.metadata?.uid === "k")?.spec, undefined);
  assertEquals(notices.find((o) => o.metadata?.uid === "p")?.spec, { y: 2 });
  await t.stop();
});

/** An observation whose feed holds each item until the test resolves its hold. */
function startHolding() {
  const holds: ReturnType<typeof deferred<void>>[] = [];
  const t = start({
    clusterwide: true,
    resources: [KEX],
    feedResult: () => {
      const hold = deferred<void>();
      holds.push(hold);
      return hold.promise;
    },
  });
  return { t, holds };
}

Deno.test("back-pressure: while the feed's promise is pending, no further item is taken", async () => {
  const { t, holds } = startHolding();
  await listCrds(t.client);
  const stream = await t.client.stream("kopfexamples@*");
  stream.listed([]);
  stream.event("ADDED", obj("a", "2"));
  stream.event("MODIFIED", obj("a", "3"));
  stream.event("ADDED", obj("b", "4"));
  await settle();
  assertEquals(t.fed, ["kopfexamples:ADDED:a@2"]);
  assertEquals(stream.unread, 2, "the rest stays in the stream");
  await settle();
  assertEquals(t.fed.length, 1, "still waiting");
  holds[0].resolve();
  await settle();
  assertEquals(t.fed, ["kopfexamples:ADDED:a@2", "kopfexamples:MODIFIED:a@3"]);
  assertEquals(stream.unread, 1);
  holds[1].resolve();
  await settle();
  assertEquals(t.fed.length, 3);
  assertEquals(stream.unread, 0);
  await t.stop();
});

Deno.test("back-pressure: a listing in parts waits for each part, for so long only", async () => {
  const { t, holds } = startHolding();
  await listCrds(t.client);
  const stream = await t.client.stream("kopfexamples@*");
  stream.listing([obj("a")], false);
  stream.listing([obj("b")], true);
  stream.listing([obj("c")], true);
  stream.listing([obj("d")], true);
  stream.listedAfterParts([obj("e")]);
  await settle();
  assertEquals(t.fed, ["kopfexamples:LISTED:a@1"]);
  assertEquals(stream.unread, 4, "the next parts stay in the stream");
  holds[0].resolve();
  await settle();
  assertEquals(t.fed.length, 2);
  await t.clock.advance(120); // settings.watching.listPatience by default
  holds[1].resolve();
  await settle();
  // The listing has taken its time: the rest is fed at once, the feed's promises aside.
  assertEquals(t.fed.length, 5);
  assertEquals(t.listed.length, 1);
  await t.stop();
});

Deno.test("back-pressure: with no patience for listings, their parts are fed as they come", async () => {
  const t = start({
    clusterwide: true,
    resources: [KEX],
    feedResult: () => new Promise<void>(() => {}), // never settles
    watching: { listPatience: 0 },
  });
  await listCrds(t.client);
  const stream = await t.client.stream("kopfexamples@*");
  stream.listing([obj("a")], false);
  stream.listing([obj("b")], true);
  stream.listedAfterParts([obj("c")]);
  await settle();
  assertEquals(t.fed.length, 3);
  assertEquals(t.listed.length, 1);
  await t.stop();
});

Deno.test("back-pressure: a listing feeds everything first, then waits for the last promise", async () => {
  const holds = new Map<string, ReturnType<typeof deferred<void>>>();
  const t = start({
    clusterwide: true,
    resources: [KEX],
    feedResult: (event) => {
      const meta = event.object.metadata ?? {};
      const hold = deferred<void>();
      holds.set(`${event.type ?? "LISTED"}:${meta.uid}`, hold);
      // Only some events push back: the last promise returned is the one waited for.
      return meta.uid === "c" ? undefined : hold.promise;
    },
  });
  await listCrds(t.client);
  const stream = await t.client.stream("kopfexamples@*");
  stream.listed([obj("a"), obj("b")]);
  await settle();
  holds.get("LISTED:b")!.resolve();
  stream.event("ADDED", obj("c", "2"));
  await settle();
  t.fed.length = 0;
  stream.listed([obj("a", "5"), obj("c", "6")], "7"); // b is gone: a missed deletion
  stream.event("MODIFIED", obj("a", "8"));
  await settle();
  assertEquals(t.fed, [
    "kopfexamples:LISTED:a@5",
    "kopfexamples:LISTED:c@6",
    "kopfexamples:DELETED:b@1",
  ]);
  holds.get("LISTED:a")!.resolve();
  await settle();
  assertEquals(t.fed.length, 3, "the deletion, fed last, is the one waited for");
  holds.get("DELETED:b")!.resolve();
  await settle();
  assertEquals(t.fed.at(-1), "kopfexamples:MODIFIED:a@8");
  assertEquals(t.listed.length, 1, "the first listing was reported before its wait");
  await t.stop();
});

Deno.test("back-pressure: a stop or a pause ends the wait for the feed at once", async () => {
  const t = start({
    namespaces: ["*"],
    resources: [KEX],
    feedResult: () => new Promise<void>(() => {}), // never settles
  });
  await listCrds(t.client);
  (await t.client.stream("namespaces@*")).listed([ns("a")]);
  await t.observer.ready;
  await settle(); // the watches open once the current versions are asked for
  const first = await t.client.stream("kopfexamples@a");
  first.listed([obj("x")]);
  first.event("MODIFIED", obj("x", "2"));
  await settle();
  assertEquals(t.fed, ["kopfexamples:LISTED:x@1"]);

  const second = t.client.next("kopfexamples@a");
  t.observer.pause();
  await settle();
  assert(first.closed, "the paused watch is closed despite the pending feed");
  t.observer.resume();
  (await second).listed([obj("x", "3")]);
  await settle();
  assertEquals(t.fed, ["kopfexamples:LISTED:x@1", "kopfexamples:LISTED:x@3"]);

  await assertSettlesWithin(t.stop(), 1, "the stop while the feed holds the watch");
});

Deno.test("back-pressure: a failing feed, rejected or thrown, is reported and the watch goes on", async () => {
  const failures: [string, (event: ObservedEvent) => void | Promise<void>][] = [
    [
      "queue broke",
      (event) => event.type === "ADDED" ? Promise.reject(new Error("queue broke")) : undefined,
    ],
    // A bug of the queue that throws for one object loses that event, not the whole watch.
    ["a bug of the queue", (event) => {
      if (event.type === "ADDED") throw new TypeError("a bug of the queue");
    }],
  ];
  for (const [message, feedResult] of failures) {
    const t = start({ clusterwide: true, resources: [KEX], feedResult });
    await listCrds(t.client);
    const stream = await t.client.stream("kopfexamples@*");
    stream.listed([]);
    stream.event("ADDED", obj("a", "2"));
    stream.event("MODIFIED", obj("a", "3"));
    await settle();
    assertEquals(t.fed, ["kopfexamples:ADDED:a@2", "kopfexamples:MODIFIED:a@3"]);
    assertStringIncludes(t.logs.at("error").join("\n"), message);
    assertEquals(t.client.opened.get("kopfexamples@*")!.length, 1, "the watch is not restarted");
    await t.stop();
  }
});

Deno.test("live first: a held listing gets a live watch beside it, which goes on alone after it", async () => {
  const holds: ReturnType<typeof deferred<void>>[] = [];
  const t = start({
    clusterwide: true,
    resources: [KEX],
    // As the queueing does: a full backlog holds the listing, not the live events.
    feedResult: (event) => {
      if (event.type !== null) return undefined;
      const hold = deferred<void>();
      holds.push(hold);
      return hold.promise;
    },
  });
  t.client.versions.set("kopfexamples@*", "4"); // asked for before the listing
  await listCrds(t.client);
  const main = await t.client.stream("kopfexamples@*");
  assertEquals(main.options?.since, undefined, "the listing is a listing");
  main.listing([obj("a", "5"), obj("b", "6")], false);
  main.listing([obj("d", "7"), obj("f", "8")], true);
  main.listedAfterParts([], "9");
  await settle();
  assertEquals(t.fed, ["kopfexamples:LISTED:a@5", "kopfexamples:LISTED:b@6"]);
  const side = t.client.opened.get("kopfexamples@*")![1];
  assertEquals(side?.options?.since, "4", "held: a live watch from before the listing");
  side.event("ADDED", obj("c", "11")); // new: not in the listing
  side.event("MODIFIED", obj("a", "5")); // already seen in the listing: not fed again
  side.event("DELETED", obj("b", "12"));
  side.event("DELETED", obj("f", "14")); // deleted before the listing came to it
  side.event("MODIFIED", obj("d", "15")); // newer than what the listing will say
  await settle();
  assertEquals(t.fed.slice(2), [
    "kopfexamples:ADDED:c@11",
    "kopfexamples:DELETED:b@12",
    "kopfexamples:DELETED:f@14",
    "kopfexamples:MODIFIED:d@15",
  ], "live events are fed while the listing waits");
  holds.forEach((hold) => hold.resolve());
  await settle();
  // The rest of the listing: d's older state and deleted f are not fed; nothing is taken for
  // deleted that the live watch told of (c); the listing's end hands over to the live watch.
  assertEquals(t.fed.slice(6), []);
  assertEquals(t.listed.length, 1);
  assert(main.closed, "the listing's stream is closed at its end");
  assert(!side.closed, "the live watch goes on");
  side.event("MODIFIED", obj("c", "16"));
  await settle();
  assertEquals(t.fed.slice(6), ["kopfexamples:MODIFIED:c@16"]);
  await t.stop();
});

Deno.test("live first: a listing that is never held has no live watch beside it", async () => {
  const t = start({ clusterwide: true, resources: [KEX] });
  t.client.versions.set("kopfexamples@*", "4");
  await listCrds(t.client);
  const main = await t.client.stream("kopfexamples@*");
  main.listing([obj("a", "5")], false);
  main.listedAfterParts([obj("b", "6")], "9");
  main.event("ADDED", obj("c", "10"));
  await settle();
  assertEquals(t.client.opened.get("kopfexamples@*")!.length, 1);
  assert(!main.closed);
  assertEquals(t.fed.length, 3);
  await t.stop();
});
