import { OperatorIndex } from "../../src/structs/indices.ts";
import { assert, assertEquals, assertThrows } from "../assert.ts";

function contents(index: OperatorIndex): [unknown, unknown[]][] {
  return [...index].map(([k, store]) => [k, [...store]]);
}

Deno.test("plain-object results merge under their keys; values of one key form a store", () => {
  const index = new OperatorIndex();
  index.replace("ns/a", { key1: "valueA" });
  index.replace("ns/b", { key1: "valueB" });
  index.replace("ns/c", { key2: { key3: "valueC" } }); // indices are not nested
  assertEquals(contents(index), [["key1", ["valueA", "valueB"]], ["key2", [{ key3: "valueC" }]]]);
  assertEquals(index.size, 2);
  assertEquals(index.get("key1")?.size, 2);
});

Deno.test("array keys compare by value; Maps give non-string keys", () => {
  const index = new OperatorIndex<readonly [string, string] | number, string>();
  index.replace("p1", new Map([[["ns1", "pod1"], "hello"]]));
  index.replace("p2", new Map([[7, "seven"]]));
  assertEquals([...index.get(["ns1", "pod1"])!], ["hello"]);
  assert(index.has(7) && !index.has(["ns1"] as never));
  const [first] = index.get(["ns1", "pod1"])!; // destructuring works like Kopf's unpacking
  assertEquals(first, "hello");
});

Deno.test("other results are stored under the key null; undefined keeps the old values", () => {
  const index = new OperatorIndex();
  index.replace("a", "pod1");
  index.replace("b", ["ns", "pod2"]);
  index.replace("c", new Set(["x"]));
  assertEquals([...index.keys()], [null]);
  assertEquals(index.get(null)?.size, 3);
  assertEquals(index.replace("a", undefined), false);
  assertEquals(index.get(null)?.size, 3);
  index.replace("d", { key: null }); // null values are indexed
  assertEquals([...index.get("key")!], [null]);
});

Deno.test("replacing or discarding an object removes its old values and empty keys", () => {
  const index = new OperatorIndex();
  index.replace("a", { k1: 1, k2: 2 });
  index.replace("b", { k1: 3 });
  index.replace("a", { k3: 4 });
  assertEquals(contents(index), [["k1", [3]], ["k3", [4]]]);
  index.discard("b");
  index.discard("unknown");
  assertEquals(contents(index), [["k3", [4]]]);
  assert(index.holds("a") && !index.holds("b"));
});

Deno.test("unusable keys are refused before anything changes", () => {
  const index = new OperatorIndex();
  index.replace("a", { k: 1 });
  assertThrows(() => index.replace("a", new Map([[{ no: 1 }, 1]])), TypeError, "index key must be");
  assertEquals(contents(index), [["k", [1]]]);
});

Deno.test("only plain objects are key → value results; class instances are values", () => {
  class Box {
    key = "v";
  }
  const index = new OperatorIndex();
  index.replace("a", Object.assign(Object.create(null), { k: 1 }));
  index.replace("b", new Box());
  assertEquals([...index.keys()], ["k", null]);
});
