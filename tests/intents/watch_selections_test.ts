/**
 * The selectors derived from the handlers' filters: what all consumers of a resource's
 * watch require, in the API server's terms, and nothing a consumer does not require.
 */
import { kopf } from "../../mod.ts";
import { matcherOf } from "../../src/intents/registry.ts";
import { deriveWatchSelection, type WatchSelection } from "../../src/intents/watch_selections.ts";
import { parseLabelSelector } from "../../src/structs/label_selectors.ts";
import { assert, assertEquals } from "../assert.ts";
import { kexV1, pods } from "../fixtures/discovered.ts";

const POD_FIELDS = ["spec.nodeName", "status.phase"];

function registry(): kopf.OperatorRegistry {
  return new kopf.OperatorRegistry({ onWarning: () => {} });
}

function selection(registered: kopf.OperatorRegistry, resource = kexV1): WatchSelection {
  const fields = resource === pods ? POD_FIELDS : [];
  return deriveWatchSelection(matcherOf(registered).handlersFor(resource), fields);
}

Deno.test("a label that every handler requires with a value becomes the label selector", () => {
  const r = registry();
  kopf.on.create("kopfexamples", { registry: r, labels: { app: "watched" } }, function c() {});
  kopf.on.update(
    "kopfexamples",
    { registry: r, labels: { app: "watched", t: "x" } },
    function u() {},
  );
  kopf.daemon("kopfexamples", { registry: r, labels: { app: "watched" } }, function d() {});
  const selected = selection(r);
  assertEquals(selected.labelSelector, "app=watched");
  assertEquals(selected.fieldSelector, undefined);
  assertEquals(selected.reason, "what all 3 of its handler(s) require");
});

Deno.test("different values join as `in`; presence wins over values; absence only if shared", () => {
  const r = registry();
  kopf.on.create(
    "kopfexamples",
    { registry: r, labels: { app: "a", tier: "x", old: kopf.ABSENT } },
    function c() {},
  );
  kopf.on.event("kopfexamples", {
    registry: r,
    labels: { app: "b", tier: kopf.PRESENT, old: kopf.ABSENT },
  }, function e() {});
  kopf.timer("kopfexamples", {
    registry: r,
    interval: 1,
    labels: { app: "c", tier: "y", old: kopf.ABSENT },
  }, function t() {});
  assertEquals(selection(r).labelSelector, "app in (a,b,c),!old,tier");
  const mixed = registry();
  kopf.on.create("kopfexamples", { registry: mixed, labels: { x: kopf.ABSENT } }, function c() {});
  kopf.on.create("kopfexamples", { registry: mixed, labels: { x: "1" } }, function d() {});
  assertEquals(selection(mixed).labelSelector, undefined);
  assertEquals(selection(mixed).reason, "its handlers' filters have no requirement in common");
});

Deno.test("one handler without a filter the server can apply means no selector, and says which", () => {
  const r = registry();
  kopf.on.create("kopfexamples", { registry: r, labels: { app: "watched" } }, function c() {});
  kopf.on.create("kopfexamples", {
    registry: r,
    labels: { app: (value: unknown) => value === "watched" },
  }, function byCallback() {});
  const selected = selection(r);
  assertEquals(selected.labelSelector, undefined);
  assertEquals(selected.labels, []);
  assertEquals(
    selected.reason,
    'the handler "byCallback" (kopf.on.create) has no filter that the API server can apply',
  );
});

Deno.test("a callback beside a label criterion does not undo it", () => {
  const r = registry();
  kopf.on.create("kopfexamples", {
    registry: r,
    labels: { app: "watched", tier: () => true },
    when: () => true,
  }, function c() {});
  assertEquals(selection(r).labelSelector, "app=watched");
});

Deno.test("field filters: literals of selectable fields; labels by field; never update handlers'", () => {
  const r = registry();
  kopf.on.create("pods", { registry: r, field: "status.phase", value: "Running" }, function c() {});
  kopf.on.resume("pods", {
    registry: r,
    field: "status.phase",
    value: "Running",
    labels: { app: "x" },
  }, function r1() {});
  kopf.on.event("pods", {
    registry: r,
    field: "metadata.labels.app",
    value: "x",
    annotations: { a: "b" },
  }, function e() {});
  kopf.on.create("pods", {
    registry: r,
    field: ["status", "phase"],
    value: "Running",
    labels: { app: kopf.PRESENT },
  }, function c2() {});
  // The event handler's field is a label: both requirements are shared by everyone.
  const everyone = selection(r, pods);
  assertEquals(everyone.fieldSelector, undefined); // the event handler has no phase criterion
  assertEquals(everyone.labelSelector, undefined); // c has no label criterion
  const phased = registry();
  kopf.on.create(
    "pods",
    { registry: phased, field: "status.phase", value: "Running" },
    function c() {},
  );
  kopf.daemon(
    "pods",
    { registry: phased, field: "status.phase", value: "Running" },
    function d() {},
  );
  assertEquals(selection(phased, pods).fieldSelector, "status.phase=Running");
  // An update handler's value holds on either side of the change: not sent.
  kopf.on.update(
    "pods",
    { registry: phased, field: "status.phase", value: "Running" },
    function u() {},
  );
  assertEquals(selection(phased, pods).fieldSelector, undefined);
  // A field the server cannot select by is not sent; metadata.name always can be.
  const named = registry();
  kopf.on.create(
    "kopfexamples",
    { registry: named, field: "spec.field", value: "x" },
    function c() {},
  );
  assertEquals(selection(named).fieldSelector, undefined);
  const byName = registry();
  kopf.on.create(
    "kopfexamples",
    { registry: byName, field: "metadata.name", value: "one" },
    function c() {},
  );
  kopf.on.delete("kopfexamples", {
    registry: byName,
    labels: { "example.com/team": "a" },
    field: "metadata.name",
    value: "one",
  }, function d() {});
  assertEquals(selection(byName).fieldSelector, "metadata.name=one");
  assertEquals(selection(byName).labelSelector, undefined);
  const byLabelField = registry();
  kopf.on.create("kopfexamples", {
    registry: byLabelField,
    field: "metadata.labels.app",
    value: "x",
  }, function c() {});
  kopf.on.create("kopfexamples", { registry: byLabelField, labels: { app: "y" } }, function d() {});
  assertEquals(selection(byLabelField).labelSelector, "app in (x,y)");
});

Deno.test("values a label cannot have are not sent; admission handlers do not count", () => {
  const r = registry();
  kopf.on.create(
    "kopfexamples",
    { registry: r, labels: { app: "not a label value" } },
    function c() {},
  );
  assertEquals(selection(r).labelSelector, undefined);
  const admitted = registry();
  kopf.on.create("kopfexamples", { registry: admitted, labels: { app: "x" } }, function c() {});
  kopf.on.validate("kopfexamples", { registry: admitted }, function v() {});
  assertEquals(selection(admitted).labelSelector, "app=x");
  const none = registry();
  kopf.on.validate("kopfexamples", { registry: none }, function v() {});
  assertEquals(selection(none).reason, "no handler consumes its watch");
});

Deno.test("explicit selectors are added to the derived ones", () => {
  const r = registry();
  kopf.on.create("kopfexamples", { registry: r, labels: { app: "watched" } }, function c() {});
  const selected = deriveWatchSelection(matcherOf(r).handlersFor(kexV1), [], {
    labels: parseLabelSelector("team=a"),
    fields: [{ field: "metadata.namespace", op: "!=", value: "kube-system" }],
  });
  assertEquals(selected.labelSelector, "app=watched,team=a");
  assertEquals(selected.fieldSelector, "metadata.namespace!=kube-system");
  assert(selected.reason.endsWith("; and the selectors given for it"), selected.reason);
});

Deno.test("metadata only when every consumer declares it; admission handlers do not count", () => {
  const all = registry();
  kopf.on.create("kopfexamples", { registry: all, metadataOnly: true }, function c() {});
  kopf.index("kopfexamples", { registry: all, metadataOnly: true }, function i() {});
  kopf.on.validate("kopfexamples", { registry: all }, function v() {});
  assertEquals(selection(all).metadataOnly, true);
  assert(selection(all).reason.endsWith("; metadata only, as all its handlers declare"));
  const one = registry();
  kopf.on.create("kopfexamples", { registry: one, metadataOnly: true }, function c() {});
  kopf.on.event("kopfexamples", { registry: one }, function e() {});
  assertEquals(selection(one).metadataOnly, false);
  assertEquals(selection(registry()).metadataOnly, false, "no consumer: nothing to decide");
});
