/**
 * Every resource-specification example, registered as a handler and resolved against
 * the discovery fixture: which resources get served, and which handlers serve them.
 */
import { kopf } from "../../mod.ts";
import type { Resource } from "../../src/structs/resources.ts";
import { matcherOf } from "../../src/intents/registry.ts";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import {
  coreEvents,
  deployments,
  DISCOVERED,
  jobs,
  kexV1,
  peerings,
  podMetrics,
  pods,
  statefulsets,
} from "../fixtures/discovered.ts";

type Args = unknown[];
const register = kopf.on.event as unknown as (...args: unknown[]) => unknown;

/** Register `fn` once per selector (options last before the function) and resolve. */
function resolveAll(selectors: Args[]): { served: string[]; registry: kopf.OperatorRegistry } {
  const registry = new kopf.OperatorRegistry({ onWarning: () => {} });
  function fn() {}
  for (const args of selectors) {
    const last = args[args.length - 1];
    const hasOptions = typeof last === "object" && last !== null && typeof last !== "symbol";
    const positional = hasOptions ? args.slice(0, -1) : args;
    const options = { ...(hasOptions ? last as object : {}), registry };
    register(...positional, options, fn);
  }
  const selection = matcherOf(registry).resolve(DISCOVERED);
  return { served: selection.resources.map(String).sort(), registry };
}

const names = (...rs: Resource[]) => rs.map(String).sort();

const EXAMPLES: [string, Args[], Resource[]][] = [
  ["group, version and name", [
    ["kopf.dev", "v1", "kopfexamples"],
    ["kopf.dev/v1", "kopfexamples"],
    ["apps", "v1", "deployments"],
    ["apps/v1", "deployments"],
    ["", "v1", "pods"],
  ], [kexV1, deployments, pods]],
  ["group only: preferred version", [["kopf.dev", "kopfexamples"], ["apps", "deployments"]], [
    kexV1,
    deployments,
  ]],
  ["kubectl style", [["kopfexamples.kopf.dev"], ["deployments.apps"]], [kexV1, deployments]],
  ["v1 is the core group", [["v1", "pods"], ["", "v1", "pods"]], [pods]],
  ["names alone", [["kopfexamples"], ["deployments"], ["pods"]], [kexV1, deployments, pods]],
  ["any kind of name", [
    ["kopfexamples"],
    ["kopfexample"],
    ["KopfExample"],
    ["kex"],
    ["StatefulSet"],
    ["deployments"],
    ["pod"],
  ], [kexV1, statefulsets, deployments, pods]],
  ["keyword names", [
    [{ kind: "KopfExample" }],
    [{ plural: "kopfexamples" }],
    [{ singular: "kopfexample" }],
    [{ shortcut: "kex" }],
    [{ group: "kopf.dev", plural: "kopfexamples" }],
    [{ group: "kopf.dev", version: "v1", plural: "kopfexamples" }],
  ], [kexV1]],
  ["a category", [[{ category: "all" }]], [pods, deployments, statefulsets, jobs]],
  ["everything in a group", [
    ["kopf.dev", "v1", kopf.EVERYTHING],
    ["kopf.dev/v1", kopf.EVERYTHING],
    ["kopf.dev", kopf.EVERYTHING],
  ], [kexV1, peerings]],
  ["a callable", [[(r: Resource) => r.plural === "kopfexamples" && r.preferred]], [kexV1]],
  ["a callable with a group", [[(r: Resource) => r.plural === "kopfexamples" && r.preferred, {
    group: "kopf.dev",
  }]], [kexV1]],
  ["core v1 events: only by name", [
    [(r: Resource) => r.group === "" && r.preferred],
    ["v1", "events"],
  ], DISCOVERED.filter((r) => r.group === "" && !r.plural.includes("/"))],
  ["multiple selectors on one function", [["kopfexamples"], ["v1", "pods"]], [kexV1, pods]],
  ["specific forms", [
    ["pods"],
    ["pods.v1"],
    ["v1", "pods"],
    ["pods.metrics.k8s.io"],
    ["metrics.k8s.io", "pods"],
  ], [pods, podMetrics]],
];

for (const [title, selectors, expected] of EXAMPLES) {
  Deno.test(`resource specification example: ${title}`, () => {
    assertEquals(resolveAll(selectors).served, names(...expected));
  });
}

Deno.test("core v1 events are served only when named", () => {
  const { served } = resolveAll([[(r: Resource) => r.group === "" && r.preferred]]);
  assert(!served.includes(String(coreEvents)));
  assert(resolveAll([["v1", "events"]]).served.includes(String(coreEvents)));
});

Deno.test("serving everything is best combined with filters", () => {
  const { served, registry } = resolveAll([[kopf.EVERYTHING, {
    labels: { "only-this": kopf.PRESENT },
  }]]);
  assert(served.length > 5 && !served.includes(String(coreEvents)));
  const tagged = { metadata: { name: "x", labels: { "only-this": "" } } };
  const untagged = { metadata: { name: "x" } };
  assertEquals(matcherOf(registry).selectEventHandlers(deployments, { body: tagged }).length, 1);
  assertEquals(matcherOf(registry).selectEventHandlers(deployments, { body: untagged }).length, 0);
});

Deno.test("an ambiguous name serves nothing and the registry warns", () => {
  const registry = new kopf.OperatorRegistry({ onWarning: () => {} });
  kopf.on.event("widgets", { registry }, function fn() {});
  const selection = matcherOf(registry).resolve(DISCOVERED);
  assertEquals(selection.resources, []);
  assertStringIncludes(selection.warnings.join("\n"), "is ambiguous");
});
