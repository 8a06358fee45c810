/**
 * Field paths into JSON-like trees: removal that copies only along the path (the essences
 * of every event are cleared this way, without deep copies).
 */
import { assert, assertEquals } from "../assert.ts";
import { remove, type Tree, without } from "../../src/settings/field_paths.ts";

Deno.test("without() removes the value and the parents it empties, like remove()", () => {
  const cases: [Tree, string[]][] = [
    [{ status: { kopf: { progress: { a: 1 } }, phase: "x" } }, ["status", "kopf", "progress"]],
    [{ status: { kopf: { progress: { a: 1 } } }, spec: {} }, ["status", "kopf", "progress"]],
    [{ status: { kopf: { progress: { a: 1 }, dummy: 1 } } }, ["status", "kopf", "progress"]],
    [{ status: "not an object" }, ["status", "kopf"]],
    [{ spec: { a: 1 } }, ["status", "kopf"]],
    [{ a: null }, ["a"]],
  ];
  for (const [tree, path] of cases) {
    const before = structuredClone(tree);
    const expected = structuredClone(tree);
    remove(expected, path);
    assertEquals(without(tree, path), expected, `${JSON.stringify(tree)} without ${path}`);
    assertEquals(tree, before, "the input stays untouched");
  }
});

Deno.test("without() copies only along the path and shares the rest; nothing to remove, no copy", () => {
  const spec = { big: { nested: [1, 2, 3] } };
  const labels = { l: "v" };
  const tree: Tree = { spec, metadata: { labels }, status: { kopf: { progress: {} }, phase: 1 } };
  const result = without(tree, ["status", "kopf"]);
  assertEquals(result, { spec, metadata: { labels }, status: { phase: 1 } });
  assert(result !== tree);
  assert(result.spec === spec && result.metadata === tree.metadata, "untouched parts are shared");
  assert(without(tree, ["status", "absent"]) === tree);
  assert(without(tree, ["spec", "big", "nested", "x"]) === tree, "not an object on the way");
});
