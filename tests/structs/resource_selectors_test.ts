import { EVERYTHING } from "../../src/structs/markers.ts";
import type { Resource } from "../../src/structs/resources.ts";
import {
  resource,
  Selector,
  SelectorError,
  TypedResource,
} from "../../src/structs/resource_selectors.ts";
import { assert, assertEquals, assertStringIncludes, assertThrows } from "../assert.ts";
import {
  configmaps,
  coreEvents,
  deployments,
  DISCOVERED,
  eventsK8sIo,
  jobs,
  kexV1,
  kexV1beta1,
  kexV2alpha1,
  namespaces,
  peerings,
  podMetrics,
  pods,
  statefulsets,
} from "../fixtures/discovered.ts";

function served(args: unknown[], keywords = {}): string[] {
  return Selector.parse(args, keywords).select(DISCOVERED).resources.map((r) => r.toString())
    .sort();
}

const names = (...rs: Resource[]) => rs.map((r) => r.toString()).sort();

Deno.test("group, version and name as three strings or group/version select that version", () => {
  assertEquals(served(["kopf.dev", "v1", "kopfexamples"]), names(kexV1));
  assertEquals(served(["kopf.dev/v1", "kopfexamples"]), names(kexV1));
  assertEquals(served(["apps", "v1", "deployments"]), names(deployments));
  assertEquals(served(["apps/v1", "deployments"]), names(deployments));
  assertEquals(served(["", "v1", "pods"]), names(pods));
  assertEquals(served(["kopf.dev", "v1beta1", "kopfexamples"]), names(kexV1beta1));
});

Deno.test("a single API part other than v1 is a group, served in its preferred version", () => {
  const s = Selector.parse(["kopf.dev", "kopfexamples"]);
  assertEquals([s.group, s.version, s.anyName], ["kopf.dev", undefined, "kopfexamples"]);
  assertEquals(served(["kopf.dev", "kopfexamples"]), names(kexV1));
  assertEquals(served(["apps", "deployments"]), names(deployments));
});

Deno.test("kubectl-style dotted names: plural.group and name.version.group", () => {
  assertEquals(served(["kopfexamples.kopf.dev"]), names(kexV1));
  assertEquals(served(["deployments.apps"]), names(deployments));
  assertEquals(served(["kopfexamples.v1beta1.kopf.dev"]), names(kexV1beta1));
  assertEquals(served(["pods.v1"]), names(pods));
  assertEquals(served(["pods.metrics.k8s.io"]), names(podMetrics));
  const metrics = Selector.parse(["pods.metrics.k8s.io"]);
  assertEquals([metrics.anyName, metrics.group, metrics.version], [
    "pods",
    "metrics.k8s.io",
    undefined,
  ]);
});

Deno.test("v1 alone means the core group: 'v1', 'pods' equals '', 'v1', 'pods'", () => {
  const a = Selector.parse(["v1", "pods"]);
  const b = Selector.parse(["", "v1", "pods"]);
  assertEquals([a.group, a.version, a.anyName], ["", "v1", "pods"]);
  assertEquals([b.group, b.version, b.anyName], ["", "v1", "pods"]);
  assertEquals(served(["v1", "pods"]), names(pods));
});

Deno.test("a bare name matches any group; core v1 wins over metrics.k8s.io for pods", () => {
  assertEquals(served(["kopfexamples"]), names(kexV1));
  assertEquals(served(["deployments"]), names(deployments));
  const selection = Selector.parse(["pods"]).select(DISCOVERED);
  assertEquals(selection.resources.map(String), [pods.toString()]);
  assertEquals(selection.warnings, []);
});

Deno.test("any name form matches: plural, singular, kind, short name", () => {
  for (const name of ["kopfexamples", "kopfexample", "KopfExample", "kex"]) {
    assertEquals(served([name]), names(kexV1), name);
  }
  assertEquals(served(["StatefulSet"]), names(statefulsets));
  assertEquals(served(["pod"]), names(pods)); // singular from the kind when discovery has none
  assertEquals(served(["po"]), names(pods));
});

Deno.test("keyword selectors match one kind of name each", () => {
  assertEquals(served([], { kind: "KopfExample" }), names(kexV1));
  assertEquals(served([], { plural: "kopfexamples" }), names(kexV1));
  assertEquals(served([], { singular: "kopfexample" }), names(kexV1));
  assertEquals(served([], { shortcut: "kex" }), names(kexV1));
  assertEquals(served([], { group: "kopf.dev", plural: "kopfexamples" }), names(kexV1));
  assertEquals(
    served([], { group: "kopf.dev", version: "v1", plural: "kopfexamples" }),
    names(kexV1),
  );
  assertEquals(served([], { kind: "kopfexamples" }), []); // a kind is not a plural
});

Deno.test("a category serves every preferred resource in it, without ambiguity checks", () => {
  assertEquals(served([], { category: "all" }), names(pods, deployments, statefulsets, jobs));
  assert(!Selector.parse([], { category: "all" }).isSpecific);
});

Deno.test("EVERYTHING serves all preferred resources of the group/version, never core events", () => {
  assertEquals(served(["kopf.dev", "v1", EVERYTHING]), names(kexV1, peerings));
  assertEquals(served(["kopf.dev/v1", EVERYTHING]), names(kexV1, peerings));
  assertEquals(served(["kopf.dev", EVERYTHING]), names(kexV1, peerings));
  const all = served([EVERYTHING]);
  assert(!all.includes(coreEvents.toString()), "core v1 events are excluded");
  assert(all.includes(eventsK8sIo.toString()), "events.k8s.io events are not core v1");
  assert(all.includes(configmaps.toString()) && all.includes(namespaces.toString()));
  assert(!all.includes(kexV1beta1.toString()), "only preferred versions");
  assert(!all.some((n) => n.includes("/")), "subresources are not resources");
});

Deno.test("a predicate sees every version, but never core v1 events", () => {
  const kexSelector = (r: Resource) => r.plural === "kopfexamples" && r.preferred;
  assertEquals(served([kexSelector]), names(kexV1));
  assertEquals(
    served([(r: Resource) => r.plural === "kopfexamples"]),
    names(kexV1, kexV1beta1, kexV2alpha1),
  );
  const allCoreV1 = (r: Resource) => r.group === "" && r.preferred;
  const core = served([allCoreV1]);
  assertEquals(core, names(pods, configmaps, namespaces));
  assertEquals(served(["v1", "events"]), names(coreEvents)); // named explicitly: served
});

Deno.test("a predicate combines with keyword selectors", () => {
  const kexSelector = (r: Resource) => r.plural === "kopfexamples" && r.preferred;
  assertEquals(served([kexSelector], { group: "kopf.dev" }), names(kexV1));
  assertEquals(served([kexSelector], { group: "apps" }), []);
});

Deno.test("ambiguous names serve nothing and warn; core v1 has priority", () => {
  const selection = Selector.parse(["widgets"]).select(DISCOVERED);
  assertEquals(selection.resources, []);
  assertEquals(selection.warnings.length, 1);
  assertStringIncludes(selection.warnings[0], "widgets.v1.example.com");
  assertStringIncludes(selection.warnings[0], "widgets.v1.example.org");
  assertStringIncludes(selection.warnings[0], "Name the API group");
  assertEquals(served(["widgets.example.org"]), ["widgets.v1.example.org"]);
  // "events" exists in core v1 and events.k8s.io: core v1 wins, as kubectl does.
  assertEquals(served(["events"]), names(coreEvents));
  assertEquals(served(["events.k8s.io", "events"]), names(eventsK8sIo));
});

Deno.test("the recommended specific forms of the docs select exactly one resource", () => {
  assertEquals(served(["pods"]), names(pods));
  assertEquals(served(["pods.v1"]), names(pods));
  assertEquals(served(["v1", "pods"]), names(pods));
  assertEquals(served(["pods.metrics.k8s.io"]), names(podMetrics));
  assertEquals(served(["metrics.k8s.io", "pods"]), names(podMetrics));
});

Deno.test("bad selectors fail with a message saying what to write", () => {
  const cases: [unknown[], object, string][] = [
    [["a", "b", "c", "d"], {}, "at most group, version and name"],
    [[() => true, "pods"], {}, "only positional selector"],
    [["pods"], { kind: "Pod" }, "several names"],
    [[], {}, "No resource is specified"],
    [[], { group: "apps" }, "No resource is specified"],
    [["apps/v1", "deployments"], { group: "batch" }, "given twice"],
    [[""], {}, "must not be empty"],
    [[42], {}, "expected a resource name"],
    [[EVERYTHING, "pods"], {}, "expected an API group"],
    [["pods"], { version: 1 }, "must be a string"],
  ];
  for (const [args, keywords, fragment] of cases) {
    assertThrows(() => Selector.parse(args, keywords), SelectorError, fragment);
  }
});

Deno.test("selectors print readably for messages and generated ids", () => {
  assertEquals(
    String(Selector.parse(["kopf.dev", "v1", "kopfexamples"])),
    "kopfexamples.v1.kopf.dev",
  );
  assertEquals(String(Selector.parse([EVERYTHING])), "everything");
  assertEquals(String(Selector.parse([], { kind: "KopfExample" })), "kind=KopfExample");
});

Deno.test("a failing predicate is reported with the resource it failed for", () => {
  const selector = Selector.parse([function picky(): boolean {
    throw new Error("no idea");
  }]);
  assertThrows(
    () => selector.select(DISCOVERED),
    SelectorError,
    "The resource predicate picky failed for pods.v1: no idea",
  );
});

Deno.test("kopf.resource() keeps its selector's arguments, checked where it is declared", () => {
  const kex = resource("kopf.dev", "v1", "kopfexamples");
  assert(kex instanceof TypedResource);
  assertEquals(kex.args, ["kopf.dev", "v1", "kopfexamples"]);
  assertEquals(String(kex), 'kopf.resource("kopf.dev", "v1", "kopfexamples")');
  assertEquals(served([...kex.args]), names(kexV1));
  assertEquals(resource("v1", "pods").args, ["v1", "pods"]);
  assert(Object.isFrozen(kex) && Object.isFrozen(kex.args));
  assertThrows(() => resource(""), SelectorError, "must not be empty");
  assertThrows(() => resource("a/b/c", "x"), SelectorError, "Invalid API group");
  // @ts-expect-error: names only; kopf.EVERYTHING and predicates select no one type.
  assertThrows(() => resource(EVERYTHING), SelectorError, "kopf.resource() takes a resource name");
  // @ts-expect-error: at least a name.
  assertThrows(() => resource(), SelectorError, "kopf.resource() takes a resource name");
});
