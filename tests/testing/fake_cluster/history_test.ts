/**
 * The history ring that watches replay from.
 */
import { History } from "../../../src/testing/fake_cluster/history.ts";
import { assertEquals } from "../../assert.ts";

Deno.test("the history ring replays changes after a version and reports forgotten ones", () => {
  const history = new History(3);
  const change = (rv: number) => ({
    rv,
    type: "ADDED" as const,
    typeKey: "/cm",
    namespace: "",
    object: {},
  });
  for (let rv = 1; rv <= 5; rv++) history.push(change(rv));
  assertEquals(history.since(3)?.map((c) => c.rv), [4, 5]);
  assertEquals(history.since(2)?.map((c) => c.rv), [3, 4, 5]);
  assertEquals(history.since(1), undefined, "version 2 is forgotten");
  history.compact(4);
  assertEquals(history.since(3), undefined);
  assertEquals(history.since(4)?.map((c) => c.rv), [5]);
});
