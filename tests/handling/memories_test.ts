/**
 * The per-object memories: one per object and resource, the memo copied for each object
 * only when first read, the flags kept apart, forgetting.
 */
import { assert, assertEquals } from "../assert.ts";
import type { RawBody } from "../../src/structs/bodies.ts";
import { Memo } from "../../src/structs/memos.ts";
import { Resource } from "../../src/structs/resources.ts";
import { ObjectMemories } from "../../src/handling/memories.ts";

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
  const memories = new ObjectMemories(operatorMemo);
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
  const memories = new ObjectMemories(shared);
  const a = memories.recall(KEX, body("a"), { noticedByListing: false });
  const b = memories.recall(KEX, body("b"), { noticedByListing: false });
  assert(a.memo === shared && b.memo === shared);
});

Deno.test("memories are per resource and object; their flags are kept apart", () => {
  const memories = new ObjectMemories({});
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
  const memories = new ObjectMemories({});
  const first = memories.recall(KEX, body("a"), { noticedByListing: true });
  first.fullyHandledOnce = true;
  first.newestVersion = "7";
  memories.forget(KEX, body("a"));
  memories.forget(PODS, body("a")); // unknown: nothing happens
  assertEquals(memories.size, 0);
  const again = memories.recall(KEX, body("a"), { noticedByListing: false });
  assert(again !== first);
  assertEquals([again.fullyHandledOnce, again.noticedByListing, again.newestVersion], [
    false,
    false,
    undefined,
  ]);
});
