/**
 * The object table: one record per object and resource, the memo copied for each object
 * only when first read, the flags kept apart; forgetting; what the watches know, and how
 * long a record lives.
 */
import { assert, assertEquals } from "../../assert.ts";
import type { RawBody } from "../../../src/structs/bodies.ts";
import { Memo } from "../../../src/structs/memos.ts";
import { Resource } from "../../../src/structs/resources.ts";
import { ObjectTable } from "../../../src/reactor/objects/object_table.ts";

const KEX = new Resource({ group: "kopf.dev", version: "v1", plural: "kopfexamples" });
const PODS = new Resource({ group: "", version: "v1", plural: "pods" });

function body(uid: string, name = uid): RawBody {
  return { metadata: { uid, name, namespace: "default" } };
}

Deno.test("each object gets its own copy of the operator's memo, made when first read", () => {
  let copies = 0;
  class Counted extends Memo {
    override copy(): Memo {
      copies++;
      return super.copy();
    }
  }
  const operatorMemo = new Counted({ shared: "yes" });
  const memories = new ObjectTable(operatorMemo);
  const a = memories.recall(KEX, body("a"), { noticedByListing: false });
  const b = memories.recall(KEX, body("b"), { noticedByListing: false });
  assertEquals(copies, 0, "nothing is copied before a handler needs the memo");

  const memoA = a.memo as Memo;
  assertEquals(copies, 1);
  assert(memoA !== operatorMemo && memoA.shared === "yes");
  assert(a.memo === memoA, "the same copy every time");
  assert(memories.recall(KEX, body("a"), { noticedByListing: true }).memo === memoA);
  assertEquals(copies, 1);

  memoA.counter = 1;
  const memoB = b.memo as Memo;
  assert(memoB !== memoA && memoB.counter === undefined, "objects' memos are separate");
  assertEquals(operatorMemo.counter, undefined, "the operator's memo is untouched");
  assertEquals(copies, 2);
});

Deno.test("a memo that copies itself as itself is shared by all objects", () => {
  const shared = { copy: () => shared, n: 0 };
  const memories = new ObjectTable(shared);
  const a = memories.recall(KEX, body("a"), { noticedByListing: false });
  const b = memories.recall(KEX, body("b"), { noticedByListing: false });
  assert(a.memo === shared && b.memo === shared);
});

Deno.test("memories are per resource and object; their flags are kept apart", () => {
  const memories = new ObjectTable({});
  const kex = memories.recall(KEX, body("same"), { noticedByListing: true });
  const pod = memories.recall(PODS, body("same"), { noticedByListing: false });
  assert(kex !== pod, "the same object key in another resource is another object");
  assertEquals(memories.size, 2);
  assertEquals([kex.noticedByListing, pod.noticedByListing], [true, false]);

  kex.fullyHandledOnce = true;
  pod.deletionHandled = true;
  assertEquals([kex.fullyHandledOnce, kex.deletionHandled, kex.noticedByListing], [
    true,
    false,
    true,
  ]);
  assertEquals([pod.fullyHandledOnce, pod.deletionHandled, pod.noticedByListing], [
    false,
    true,
    false,
  ]);
  kex.fullyHandledOnce = false;
  assertEquals([kex.fullyHandledOnce, kex.noticedByListing], [false, true]);

  // Objects without a uid are known by namespace and name.
  const nameless = { metadata: { name: "n", namespace: "default" } };
  assert(
    memories.recall(KEX, nameless, { noticedByListing: false }) ===
      memories.recall(KEX, { ...nameless }, { noticedByListing: true }),
  );
});

Deno.test("a forgotten object starts afresh when seen again", () => {
  const memories = new ObjectTable({});
  const first = memories.recall(KEX, body("a"), { noticedByListing: true });
  first.fullyHandledOnce = true;
  first.know("7");
  assertEquals(first.newest, "7");
  memories.forget(KEX, body("a"));
  memories.forget(PODS, body("a")); // unknown: nothing happens
  assertEquals(memories.size, 0);
  const again = memories.recall(KEX, body("a"), { noticedByListing: false });
  assert(again !== first);
  assertEquals([again.fullyHandledOnce, again.noticedByListing, again.isStale("6")], [
    false,
    false,
    false,
  ]);
  assert(first.isStale("6"), "the forgotten record still serves the processing that holds it");
});

Deno.test("a record lives while its watch knows the object or the processing remembers it", () => {
  const table = new ObjectTable({});
  const watched = table.entry(KEX, body("a"));
  assert(watched.tell("5"));
  assertEquals(table.size, 0, "watched, not remembered");
  assert(table.peek(KEX, body("a")) === watched);
  assertEquals(table.watched(KEX, "default"), [watched]);
  assertEquals(table.watched(KEX, "elsewhere"), []);
  assertEquals(table.watched(KEX, undefined), [watched]);

  const remembered = table.recall(KEX, body("a"), { noticedByListing: true });
  assert(remembered === watched, "one record for the watch and the memory");
  table.unwatch(KEX, "default", "a");
  assert(table.peek(KEX, body("a")) === watched, "the memory keeps it");
  assertEquals(table.watched(KEX, undefined), []);
  table.forget(KEX, body("a"));
  assertEquals(table.peek(KEX, body("a")), undefined, "neither: gone");

  table.entry(KEX, body("b")).tell("1");
  table.unwatch(KEX, "default", "b");
  assertEquals(table.peek(KEX, body("b")), undefined, "a watched-only record goes with the watch");
});

Deno.test("a watch is told of each version once; a re-listing of it changes nothing", () => {
  const table = new ObjectTable({});
  const entry = table.entry(KEX, body("a"));
  assert(entry.tell("5"));
  assert(!entry.tell("5"), "the same version again");
  assert(!entry.tell("4"), "an older one");
  assert(entry.tell("6"));
  assertEquals(entry.seen, "6");
  assert(entry.tell(undefined), "no version: told, as nothing can be compared");
  table.unwatchAll(KEX, undefined);
  assertEquals(table.peek(KEX, body("a")), undefined);
  const again = table.entry(KEX, body("a"));
  assert(again.tell("6"), "a new watch is told of everything again");
});

Deno.test("an object forgotten while its watch still knows it gets a new record for the watch", () => {
  const table = new ObjectTable({});
  const entry = table.recall(KEX, body("a"), { noticedByListing: false });
  entry.tell("9");
  entry.fullyHandledOnce = true;
  table.forget(KEX, body("a"));
  const fresh = table.peek(KEX, body("a"))!;
  assert(fresh !== entry && !fresh.remembered && fresh.watched);
  assertEquals([fresh.seen, fresh.fullyHandledOnce], ["9", false]);
  assert(!fresh.tell("9"), "what the watch was told stays known");
});

Deno.test("an object forgotten while the queue has work for it: the work passes to its new record", () => {
  const table = new ObjectTable({});
  const entry = table.recall(KEX, body("a"), { noticedByListing: false });
  const work = { entry };
  entry.work = work;
  table.forget(KEX, body("a"));
  const fresh = table.peek(KEX, body("a"))!;
  assert(fresh !== entry && fresh.work === work && work.entry === fresh && !fresh.remembered);
  fresh.work = undefined;
  table.release(fresh);
  assertEquals(table.peek(KEX, body("a")), undefined, "released once its work is over");
});

Deno.test("the remembered objects are counted by resource as they are recalled and forgotten", () => {
  const table = new ObjectTable({});
  table.recall(KEX, body("a"), { noticedByListing: false });
  table.recall(KEX, body("a"), { noticedByListing: false });
  table.recall(KEX, body("b"), { noticedByListing: false });
  table.recall(PODS, body("a"), { noticedByListing: false });
  table.entry(PODS, body("w")).tell("1"); // watched only: not remembered
  assertEquals([...table.sizes()].map(([r, n]) => [r.plural, n]), [["kopfexamples", 2], [
    "pods",
    1,
  ]]);
  table.forget(KEX, body("a"));
  table.forget(PODS, body("a"));
  assertEquals(table.size, 1);
  assertEquals([...table.sizes()].map(([r, n]) => [r.plural, n]), [["kopfexamples", 1]]);
});
