import { copyMemo, Memo } from "../../src/structs/memos.ts";
import { assert, assertEquals } from "../assert.ts";

Deno.test("a memo holds any values as properties", () => {
  const memo = new Memo({ counter: 1 });
  memo.counter = (memo.counter as number) + 1;
  memo["queue"] = [1];
  assertEquals(memo.counter, 2);
  assertEquals(memo.queue, [1]);
});

Deno.test("per-object memos are shallow copies: own keys, shared values", () => {
  const shared = { list: [] as number[] };
  const operatorMemo = new Memo({ shared, flag: false });
  const objectMemo = copyMemo(operatorMemo);
  assert(objectMemo instanceof Memo && objectMemo !== operatorMemo);
  objectMemo.flag = true;
  (objectMemo.shared as typeof shared).list.push(1);
  assertEquals(operatorMemo.flag, false);
  assertEquals(shared.list, [1]);
});

Deno.test("a memo with its own copy() decides how it is copied", () => {
  class Context {
    constructor(readonly template: string) {}
    copy(): Context {
      return this;
    }
  }
  const ctx = new Context("Hello, {name}!");
  assert(copyMemo(ctx) === ctx);
  class Plain {
    value = 1;
  }
  const p = new Plain();
  const c = copyMemo(p);
  assert(c !== p && c instanceof Plain && c.value === 1);
});
