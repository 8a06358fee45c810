/**
 * The children's changes waiting for their parents: the latest per child, taken at once,
 * put back only when nothing newer came; retry states per handler and child; and which
 * owner references name a parent.
 */
import { ChildChanges, parentKindKey, parentsOf } from "../../src/engines/child_changes.ts";
import type { HandlerState } from "../../src/handling/handler_progress.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { Resource } from "../../src/structs/resources.ts";
import { assertEquals } from "../assert.ts";

const PODS = new Resource({ group: "", version: "v1", plural: "pods", kind: "Pod" });
const KEX = new Resource({
  group: "kopf.dev",
  version: "v1",
  plural: "kopfexamples",
  kind: "KopfExample",
  namespaced: true,
});
const NODES = new Resource({
  group: "",
  version: "v1",
  plural: "nodes",
  kind: "Node",
  namespaced: false,
});

function pod(uid: string, phase: string): RawBody {
  return { metadata: { name: uid, namespace: "ns", uid }, status: { phase } };
}

Deno.test("child changes: the latest of each child, taken at once; the first one says so", () => {
  const changes = new ChildChanges();
  assertEquals(changes.add("p", { resource: PODS, event: "ADDED", child: pod("a", "1") }), true);
  assertEquals(
    changes.add("p", { resource: PODS, event: "MODIFIED", child: pod("a", "2") }),
    false,
  );
  assertEquals(changes.add("p", { resource: PODS, event: "ADDED", child: pod("b", "1") }), false);
  assertEquals(changes.has("p"), true);
  const taken = changes.take("p");
  assertEquals(taken.map((c) => [c.child.metadata?.uid, c.event]), [["a", "MODIFIED"], [
    "b",
    "ADDED",
  ]]);
  assertEquals(changes.has("p"), false);
  assertEquals(changes.take("p"), []);
});

Deno.test("child changes: a retried change waits again, unless a newer one of the child came", () => {
  const changes = new ChildChanges();
  const old = { resource: PODS, event: "MODIFIED" as const, child: pod("a", "old") };
  const newer = { resource: PODS, event: "MODIFIED" as const, child: pod("a", "new") };
  changes.retry("p", old);
  assertEquals(changes.take("p"), [old]);
  assertEquals(changes.add("p", newer), true);
  changes.retry("p", old);
  assertEquals(changes.take("p"), [newer]);
});

Deno.test("child changes: retry states per handler and child, dropped with the parent", () => {
  const changes = new ChildChanges();
  const state = {} as HandlerState;
  changes.setState("p", "h", pod("a", "1"), state);
  assertEquals(changes.state("p", "h", pod("a", "2")), state, "by the child's uid");
  assertEquals(changes.state("p", "h", pod("b", "1")), undefined);
  assertEquals(changes.state("p", "other", pod("a", "1")), undefined);
  changes.setState("p", "h", pod("a", "1"), undefined);
  assertEquals(changes.state("p", "h", pod("a", "1")), undefined);
  changes.setState("p", "h", pod("a", "1"), state);
  changes.add("p", { resource: PODS, event: "ADDED", child: pod("a", "1") });
  changes.forget("p");
  assertEquals([changes.has("p"), changes.state("p", "h", pod("a", "1"))], [false, undefined]);
});

Deno.test("parentsOf: the owner references of the parent kinds, with whole names and uids", () => {
  const parents = new Map([
    [parentKindKey("kopf.dev", "KopfExample"), KEX],
    [parentKindKey("", "Node"), NODES],
  ]);
  const child: RawBody = {
    metadata: {
      namespace: "ns",
      ownerReferences: [
        { apiVersion: "kopf.dev/v1", kind: "KopfExample", name: "kex", uid: "u1" },
        { apiVersion: "v1", kind: "Node", name: "node", uid: "u2" },
        { apiVersion: "apps/v1", kind: "ReplicaSet", name: "rs", uid: "u3" },
        { apiVersion: "kopf.dev/v1", kind: "KopfExample", name: "", uid: "u4" },
        { apiVersion: "kopf.dev/v1", kind: "KopfExample", name: "nouid" },
      ],
    },
  };
  assertEquals(parentsOf(child, parents), [
    { resource: KEX, namespace: "ns", name: "kex", uid: "u1" },
    { resource: NODES, namespace: undefined, name: "node", uid: "u2" },
  ]);
  assertEquals(parentsOf({ metadata: {} }, parents), []);
});
