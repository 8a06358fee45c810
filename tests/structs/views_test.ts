import {
  BodyHolder,
  isView,
  liveView,
  readOnlyView,
  toPlainData,
} from "../../src/structs/views.ts";
import { assert, assertEquals, assertThrows } from "../assert.ts";

Deno.test("read-only views read like the object and refuse any change", () => {
  const body = { spec: { field: "x", items: [1, 2], nested: { a: 1 } } };
  const spec = readOnlyView(body.spec, "spec");
  assertEquals(spec.field, "x");
  assertEquals(spec.items.length, 2);
  assertEquals(Object.keys(spec), ["field", "items", "nested"]);
  assertEquals(JSON.parse(JSON.stringify(spec)), body.spec);
  assert("nested" in spec);
  const s = spec as unknown as Record<string, unknown>;
  assertThrows(() => (s.field = "y"), TypeError, "The spec is read-only");
  assertThrows(() => delete s.field, TypeError, "patch.spec.field");
  assertThrows(() => ((s.nested as Record<string, unknown>).a = 2), TypeError, "read-only");
  assertThrows(() => (s.items as number[]).push(3), TypeError, "read-only");
  assertEquals(body.spec.field, "x");
  assertEquals(body.spec.items, [1, 2]);
});

Deno.test("a nested view is the same each time, and follows a replaced value", () => {
  const obj = { a: { b: 1 } };
  const v = readOnlyView(obj, "body");
  assert(v.a === v.a);
  obj.a = { b: 2 };
  assertEquals(v.a.b, 2);
});

Deno.test("live views follow the latest body of the holder", () => {
  const holder = new BodyHolder({
    metadata: { name: "n", labels: { a: "1" } },
    spec: { field: 1 },
  });
  const spec = liveView<{ field: number; extra?: { deep: string } }>(holder, ["spec"], "spec");
  const labels = liveView<Record<string, string>>(holder, ["metadata", "labels"], "labels");
  const status = liveView<Record<string, unknown>>(holder, ["status"], "status");
  assertEquals(spec.field, 1);
  assertEquals(Object.keys(status), []);
  assertEquals(spec.extra, undefined);
  holder.update({
    metadata: { name: "n", labels: { b: "2" } },
    spec: { field: 2, extra: { deep: "yes" } },
    status: { ok: true },
  });
  assertEquals(spec.field, 2);
  const extra = spec.extra!;
  assertEquals(extra.deep, "yes");
  holder.update({ metadata: { name: "n" }, spec: { field: 3, extra: { deep: "later" } } });
  assertEquals(extra.deep, "later"); // a nested live view follows too
  assertEquals({ ...labels }, {});
  holder.update({
    metadata: { name: "n", labels: { b: "2" } },
    spec: { field: 2 },
    status: { ok: true },
  });
  assertEquals({ ...labels }, { b: "2" });
  assertEquals(status.ok, true);
  assert("ok" in status);
  assertThrows(() => ((spec as { field: number }).field = 3), TypeError, "read-only");
});

Deno.test("views of frozen bodies read their nested values without breaking", () => {
  const frozen = Object.freeze({ spec: Object.freeze({ field: "x", list: Object.freeze([1]) }) });
  const view = readOnlyView(frozen, "body");
  assertEquals(view.spec.field, "x");
  assertEquals(view.spec.list[0], 1);
  assertThrows(
    () => ((view as unknown as Record<string, unknown>).spec = {}),
    TypeError,
    "read-only",
  );
  assertThrows(() => ((view.spec as unknown as Record<string, unknown>).field = 1), TypeError);
});

Deno.test("plain data from views: copies of what they show, cloneable, with non-plain values kept", () => {
  const body = { spec: { field: "x", items: [1, { a: 2 }] } };
  const spec = readOnlyView(body.spec, "spec");
  assert(isView(spec) && isView(spec.items) && !isView(body.spec));
  const plain = toPlainData({ whole: spec, part: spec.items, n: 1 });
  assertEquals(plain, { whole: body.spec, part: body.spec.items, n: 1 });
  assert(!isView(plain.whole) && !isView(plain.part) && plain.whole !== body.spec);
  assertEquals(structuredClone(plain), plain); // a view itself cannot be cloned
  assertThrows(() => structuredClone(spec));

  const holder = new BodyHolder({ metadata: {}, spec: { v: 1 } });
  const live = liveView(holder, ["spec"], "spec");
  holder.update({ metadata: {}, spec: { v: 2, w: [3] } });
  assert(isView(live));
  assertEquals(toPlainData(live), { v: 2, w: [3] }); // as it is now

  const date = new Date(0);
  const fn = () => 1;
  const kept = toPlainData({ date, fn });
  assert(kept.date === date && kept.fn === fn);
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  const copy = toPlainData(cyclic);
  assert(copy !== cyclic && copy.self === copy);
});

Deno.test("views are told from anything else, without asking other objects' getters", () => {
  const frozen = readOnlyView(Object.freeze({ a: Object.freeze({ b: 1 }) }), "spec");
  const bare = readOnlyView(Object.assign(Object.create(null), { a: { b: 1 } }), "spec");
  const list = readOnlyView([{ a: 1 }], "spec");
  const live = liveView(new BodyHolder({ metadata: {}, spec: { a: { b: 1 } } }), ["spec"]);
  for (const view of [frozen, bare, bare.a, list, list[0], live, live.a]) assert(isView(view));
  // Objects that inherit from a view are not views, nor are the data they show.
  for (const view of [frozen, bare, list, live]) assert(!isView(Object.create(view)));
  let read = 0;
  const withGetter = {
    get x() {
      return ++read;
    },
  };
  assert(!isView(withGetter) && !isView(bare.a.b) && !isView([]) && read === 0);
  // Another proxy that refuses keys it does not know is not a view either.
  const strict = new Proxy({}, {
    get(_target, key) {
      throw new Error(`unknown key ${String(key)}`);
    },
  });
  assert(!isView(strict));
});
