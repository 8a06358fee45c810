/**
 * The children's changes waiting for their parents, on the parents' records: the latest per
 * child, taken at once, put back only when nothing newer came; retry states per handler and
 * child; all dropped with the parent, whose record then goes if nothing else keeps it.
 */
import { ChildChanges } from "../../../src/reactor/objects/parent_changes.ts";
import { ObjectTable } from "../../../src/reactor/objects/object_table.ts";
import type { ObjectEntry } from "../../../src/reactor/objects/object_entries.ts";
import type { HandlerState } from "../../../src/handling/handler_progress.ts";
import type { RawBody } from "../../../src/structs/bodies.ts";
import { Resource } from "../../../src/structs/resources.ts";
import { assert, assertEquals } from "../../assert.ts";

const PODS = new Resource({ group: "", version: "v1", plural: "pods", kind: "Pod" });
const KEX = new Resource({
  group: "kopf.dev",
  version: "v1",
  plural: "kopfexamples",
  kind: "KopfExample",
  namespaced: true,
});
/** The parent, as a child's owner reference names it. */
const P = { resource: KEX, namespace: "ns", name: "kex", uid: "p" };

function parent(objects: ObjectTable): ObjectEntry {
  return objects.entry(KEX, { metadata: { name: "kex", namespace: "ns", uid: "p" } });
}

function pod(uid: string, phase: string): RawBody {
  return { metadata: { name: uid, namespace: "ns", uid }, status: { phase } };
}

Deno.test("child changes: the latest of each child, taken at once; the first one says so", () => {
  const objects = new ObjectTable({});
  const changes = new ChildChanges(objects);
  assertEquals(changes.add(P, { resource: PODS, event: "ADDED", child: pod("a", "1") }), true);
  assertEquals(
    changes.add(P, { resource: PODS, event: "MODIFIED", child: pod("a", "2") }),
    false,
  );
  assertEquals(changes.add(P, { resource: PODS, event: "ADDED", child: pod("b", "1") }), false);
  assertEquals(changes.has(parent(objects)), true);
  const taken = changes.take(parent(objects));
  assertEquals(taken.map((c) => [c.child.metadata?.uid, c.event]), [["a", "MODIFIED"], [
    "b",
    "ADDED",
  ]]);
  assertEquals(changes.has(parent(objects)), false);
  assertEquals(changes.take(parent(objects)), []);
});

Deno.test("child changes: a retried change waits again, unless a newer one of the child came", () => {
  const objects = new ObjectTable({});
  const changes = new ChildChanges(objects);
  const old = { resource: PODS, event: "MODIFIED" as const, child: pod("a", "old") };
  const newer = { resource: PODS, event: "MODIFIED" as const, child: pod("a", "new") };
  changes.retry(parent(objects), old);
  assertEquals(changes.take(parent(objects)), [old]);
  assertEquals(changes.add(P, newer), true);
  changes.retry(parent(objects), old);
  assertEquals(changes.take(parent(objects)), [newer]);
});

Deno.test("child changes: retry states per handler and child, dropped with the parent", () => {
  const objects = new ObjectTable({});
  const changes = new ChildChanges(objects);
  const state = {} as HandlerState;
  changes.setState(parent(objects), "h", pod("a", "1"), state);
  assertEquals(changes.state(parent(objects), "h", pod("a", "2")), state, "by the child's uid");
  assertEquals(changes.state(parent(objects), "h", pod("b", "1")), undefined);
  assertEquals(changes.state(parent(objects), "other", pod("a", "1")), undefined);
  changes.setState(parent(objects), "h", pod("a", "1"), undefined);
  assertEquals(changes.state(parent(objects), "h", pod("a", "1")), undefined);
  changes.setState(parent(objects), "h", pod("a", "1"), state);
  changes.add(P, { resource: PODS, event: "ADDED", child: pod("a", "1") });
  changes.forget(P);
  assertEquals([changes.has(parent(objects)), changes.state(parent(objects), "h", pod("a", "1"))], [
    false,
    undefined,
  ]);
});

Deno.test("child changes: a parent's record lives while changes wait for it, and no longer", () => {
  const objects = new ObjectTable({});
  const changes = new ChildChanges(objects);
  changes.add(P, { resource: PODS, event: "ADDED", child: pod("a", "1") });
  assertEquals(objects.get(KEX, "ns", "p")?.children?.pending.size, 1, "on the parent's record");
  changes.forget(P);
  assertEquals(objects.get(KEX, "ns", "p"), undefined, "nothing else keeps it");
});

Deno.test("child changes: a parent with nothing waiting and nothing retried keeps no maps", () => {
  const objects = new ObjectTable({});
  const changes = new ChildChanges(objects);
  const record = parent(objects);
  record.work = {} as NonNullable<ObjectEntry["work"]>; // being processed: the record stays
  changes.add(P, { resource: PODS, event: "ADDED", child: pod("a", "1") });
  changes.setState(record, "h", pod("b", "1"), {} as HandlerState);
  changes.take(record);
  assert(record.children !== undefined, "a retry state is kept");
  changes.setState(record, "h", pod("b", "1"), undefined);
  assertEquals(record.children, undefined, "nothing left: no maps");
  assertEquals(objects.get(KEX, "ns", "p"), record, "still processed: the record stays");
  changes.add(P, { resource: PODS, event: "MODIFIED", child: pod("a", "2") });
  assertEquals(changes.take(record).length, 1);
  assertEquals(record.children, undefined);
  record.work = undefined;
  changes.add(P, { resource: PODS, event: "MODIFIED", child: pod("a", "3") });
  changes.take(record);
  assertEquals(objects.get(KEX, "ns", "p"), undefined, "nothing keeps it once taken");
});
